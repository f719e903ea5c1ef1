"""Number and money formatting shared by the Markdown and A2UI renderers.

One formatter for both the prose and the table, so a number in a bullet is character-for-character a
number in the table. Conventions (documented for merchants and tests):

- count: thousands separators, no decimals: ``12,345``
- money: two decimals with thousands separators; with a known currency the ISO code goes first,
  ``USD 1,299.00`` (ISO codes are unambiguous where "$" is not: USD, CAD, AUD); without one, ``1,299.00``;
  a currency without minor units has none: ``JPY 12,000``, ``VND 5,790,000``.
  The currency is the result's, or, in a table whose prices come in several currencies, the row's own
  (a column with unit ``currency``), or a finding's own (its ``currency`` value): mixed currencies are
  never shown under one code.
- percent (0..100): one decimal and a percent sign: ``12.5%``
- ratio: one decimal and a multiplication sign: ``2.4×``
- number (any other figure, e.g. a share index): up to one decimal, trailing ``.0`` dropped: ``87``
- text: as is
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

UNIT_KEY = b"unit"  # same key as agent.analysis.result.UNIT_KEY (kept literal so render imports nothing heavy)
EMPTY = "–"  # a missing value in a table cell

_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)


def fmt_count(value: int | float) -> str:
    return f"{int(round(value)):,}"


# ISO 4217 currencies whose minor unit is 0: a yen or dong price has no cents ("JPY 1,500", not "JPY 1,500.00")
ZERO_DECIMAL = frozenset(
    {
        "BIF",
        "CLP",
        "DJF",
        "GNF",
        "ISK",
        "JPY",
        "KMF",
        "KRW",
        "PYG",
        "RWF",
        "UGX",
        "UYI",
        "VND",
        "VUV",
        "XAF",
        "XOF",
        "XPF",
    }
)


def fmt_money(value: float, currency: str | None = None) -> str:
    text = f"{float(value):,.0f}" if currency in ZERO_DECIMAL else f"{float(value):,.2f}"
    return f"{currency} {text}" if currency else text


def fmt_percent(value: float) -> str:
    return f"{float(value):.1f}%"


def fmt_ratio(value: float) -> str:
    return f"{float(value):.1f}×"


def fmt_number(value: float | int) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    text = f"{float(value):,.1f}"
    return text[:-2] if text.endswith(".0") else text


def in_words(number: int) -> str:
    """Small thresholds in prose ("fewer than three products") so they are not mistaken for results."""
    return _WORDS[number] if 0 <= number < len(_WORDS) else f"{number:,}"


def fmt_value(value: Any, unit: str | None, currency: str | None = None) -> str:
    """A value formatted by its unit; None (and NaN) as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return EMPTY
    if isinstance(value, float) and math.isinf(value):  # (the count and money formats would raise)
        return "∞" if value > 0 else "-∞"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if unit == "money":
        return fmt_money(value, currency)
    if unit == "currency":
        return str(value)
    if unit == "percent":
        return fmt_percent(value)
    if unit == "count":
        return fmt_count(value)
    if unit == "ratio":
        return fmt_ratio(value)
    if isinstance(value, (int, float)):
        return fmt_number(value)
    return str(value)


def column_unit(field: pa.Field) -> str:
    """The unit of a result-table column from its metadata; "text" when unset."""
    meta = field.metadata or {}
    raw = meta.get(UNIT_KEY)
    if raw is None:
        if pa.types.is_integer(field.type):
            return "count"
        return "number" if pa.types.is_floating(field.type) else "text"
    return raw.decode()


def unit_for_key(key: str, value: Any) -> str:
    """The unit of a finding value, from its key's suffix (the convention every skill follows):
    ``_price`` money, ``_pct`` percent, ``_x`` ratio, ``_n`` count, ``_num`` plain number; else by type."""
    for suffix, unit in (
        ("_price", "money"),
        ("_pct", "percent"),
        ("_x", "ratio"),
        ("_n", "count"),
        ("_num", "number"),
    ):
        if key.endswith(suffix):
            return unit
    if isinstance(value, bool):
        return "text"
    if isinstance(value, int):
        return "count"
    if isinstance(value, float):
        return "number"
    return "text"


def row_currency(row: dict, units: dict[str, str], default: str | None) -> str | None:
    """The currency of one table row's money cells: the row's currency column when the table has one
    (prices in several currencies), else the result's."""
    for name, unit in units.items():
        if unit == "currency":
            return row.get(name) or None
    return default
