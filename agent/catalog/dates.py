"""Dates as exports write them -> date32, and the snapshot date of a file.

ISO dates and timestamps (`2026-11-28`, `2026/11/28`, `20261128`, `2026-11-28T10:00:00Z`) are read
vectorised. Everything else is read once per distinct value (date columns repeat a few thousand
values at most) in the forms shop systems write in their admin locale:

* `2/20/25, 7:27 PM`, `02/20/2025 19:27`, `20/02/2025` — numbers with `/` (or `-`) and a year last;
* `20.02.2025`, `20.02.25 19:27` — dotted dates are day.month.year in every locale that writes them;
* `Feb 20, 2025`, `20 February 2025, 7:27 PM`, `Thu, 20 Feb 2025 19:27:00 +0000` — English month
  names (a leading weekday is ignored).

**Day/month order** of the slashed forms is never guessed silently. The file's own evidence decides
for the whole column: a value whose first number is over 12 (`20/02/2025`) makes the column
day-first, one whose second number is over 12 (`2/20/25`) month-first; a column showing both is
inconsistent and is not read. A file writes all its dates in one locale, so a column no value of
which settles the order (an `Updated` column that is `8/8/2026` on every row) takes the order its
sibling date columns settle (`Created` showing `7/28/2026`), and the evidence says so. When nothing
in the file settles it (every number ≤ 12 in every column), a Magento export is read month-first — Magento's admin writes dates in its locale, `en_US` by default (`M/D/YY, h:mm
AM`) — and the evidence says that this order was assumed; any other file's ambiguous dates are not
read, and the evidence says why.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.values import as_dictionary, chunked, parse_dates

_NUMERIC = re.compile(r"^(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?=$|[\sT,])")
_DOTTED = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?=$|[\s,])")
_MONTHS = {
    m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
}
_MONTH_FIRST = re.compile(r"^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?=$|[\s,])")
_DAY_FIRST = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})(?=$|[\s,])")

MONTH_FIRST = "month/day"
DAY_FIRST = "day/month"


@dataclass(frozen=True)
class DateColumn:
    dates: pa.ChunkedArray  # date32 per row, null where not a date (or not read)
    order: str | None = None  # MONTH_FIRST / DAY_FIRST when slashed dates were read
    assumed: bool = False  # the order came from the format's convention, not from the file
    note: str | None = None  # why dates that look like dates were not read
    sibling: bool = False  # the order came from the file's other date columns, not this one
    settles: str | None = None  # the order this column's own values settle (None: they do not)


def _year(text: str) -> int:
    year = int(text)
    return year if len(text) == 4 else (2000 + year if year < 70 else 1900 + year)


def _make(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


_WEEKDAY = re.compile(r"^(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+", re.I)


def _named(v: str) -> dt.date | None:
    v = _WEEKDAY.sub("", v)
    match = _MONTH_FIRST.match(v)
    if match and match.group(1)[:3].lower() in _MONTHS:
        return _make(int(match.group(3)), _MONTHS[match.group(1)[:3].lower()], int(match.group(2)))
    match = _DAY_FIRST.match(v)
    if match and match.group(2)[:3].lower() in _MONTHS:
        return _make(int(match.group(3)), _MONTHS[match.group(2)[:3].lower()], int(match.group(1)))
    return None


def parse_date_column(arr, month_first_default: bool = False, file_order: str | None = None) -> DateColumn:
    """A column of dates as written -> date32 (module docstring for the rules). `file_order` is the
    day/month order the file's other date columns settle, used when this column's values do not."""
    arr = chunked(arr)
    iso = parse_dates(arr)
    arrow_type = arr.type
    if not (
        pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_dictionary(arrow_type)
    ):
        return DateColumn(iso)
    if iso.null_count == arr.null_count:
        return DateColumn(iso)
    combined = as_dictionary(arr)
    entries = [None if v is None else v.strip() for v in combined.dictionary.to_pylist()]
    numeric = [(i, match) for i, v in enumerate(entries) if v and (match := _NUMERIC.match(v))]
    first_big = any(int(match.group(1)) > 12 for _, match in numeric)
    second_big = any(int(match.group(3)) > 12 for _, match in numeric)
    order, assumed, note, sibling, settles = None, False, None, False, None
    if numeric:
        if first_big and second_big:
            note = "mixes day/month and month/day dates"
        elif first_big:
            order = settles = DAY_FIRST
        elif second_big:
            order = settles = MONTH_FIRST
        elif file_order is not None:
            order, sibling = file_order, True
        elif month_first_default:
            order, assumed = MONTH_FIRST, True
        else:
            note = f"day/month order not settled by any value (e.g. {entries[numeric[0][0]]})"
    parsed: list[dt.date | None] = [None] * len(entries)
    for i, match in numeric:
        if order is not None:
            first, second = int(match.group(1)), int(match.group(3))
            month, day = (first, second) if order == MONTH_FIRST else (second, first)
            parsed[i] = _make(_year(match.group(4)), month, day)
    for i, v in enumerate(entries):
        if not v or parsed[i] is not None or _NUMERIC.match(v):
            continue
        match = _DOTTED.match(v)
        parsed[i] = _make(_year(match.group(3)), int(match.group(2)), int(match.group(1))) if match else _named(v)
    per_entry = pa.array(parsed, pa.date32())
    local = pa.chunked_array([pc.take(per_entry, combined.indices)], pa.date32())
    dates = pc.coalesce(iso, local) if iso.null_count < len(iso) else local
    return DateColumn(dates, order, assumed, note, sibling, settles)


def file_order(table: pa.Table, names: list[str]) -> str | None:
    """The day/month order the file's own date columns settle: one order shown by some column and
    contradicted by none (a column mixing both, or two columns disagreeing, settle nothing)."""
    seen: set[str] = set()
    for name in names:
        if name not in table.column_names:
            continue
        col = parse_date_column(table[name])
        if col.note and col.note.startswith("mixes"):
            return None
        if col.settles:
            seen.add(col.settles)
    return seen.pop() if len(seen) == 1 else None


@dataclass(frozen=True)
class Snapshot:
    rows: pa.ChunkedArray | None  # per-row dates of the chosen column
    newest: dt.date | None
    origin: str | None  # "column updated_at" (+ how the order was decided when it was assumed)
    note: str | None = None  # why a date column gave no date


def snapshot_from(table: pa.Table, candidates: list[str], month_first_default: bool = False) -> Snapshot:
    """The first candidate column with readable dates: its per-row dates and newest date."""
    notes = []
    siblings: list[str] | None = None  # the file's day/month order, worked out only when needed
    for name in candidates:
        if name not in table.column_names:
            continue
        col = parse_date_column(table[name], month_first_default)
        unsettled = col.assumed or bool(col.note and col.note.startswith("day/month order not settled"))
        if unsettled:  # the file's other columns come before the format's convention
            siblings = [column for column in candidates if column != name] if siblings is None else siblings
            order = file_order(table, [column for column in siblings if column != name])
            if order is not None:
                col = parse_date_column(table[name], month_first_default, file_order=order)
        newest = pc.max(col.dates).as_py()
        if newest is not None:
            origin = f"column {name}"
            if col.sibling:
                origin += f", read {col.order} as the file's other date columns show"
            elif col.assumed:
                origin += ", read month/day: Magento's en_US admin format, no date in the file settles the order"
            elif col.order is not None:
                origin += f", read {col.order} as its dates show"
            return Snapshot(col.dates, newest, origin)
        if col.note:
            notes.append(f"{name}: {col.note}")
    return Snapshot(None, None, None, "; ".join(notes) or None)
