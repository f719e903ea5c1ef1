"""Money properties over every real export in tests/corpus/ (whatever folders the repository holds):
the currency a price cell names is the currency read, and a Merchant Center feed's sale prices below its
prices are the variants the ladder counts as on sale.

Expected values come from Python's `csv` module and the bundled ISO list read here, not from the
product's parsers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Scope
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.catalog.taxonomy import load

ROOT = Path(__file__).resolve().parent
CORPUS = sorted(p for p in (ROOT / "corpus").rglob("*") if p.suffix.lower() in (".csv", ".tsv", ".txt"))
ISO = ROOT.parent / "data" / "currency" / "iso4217.csv"
CELL = re.compile(r"^\s*(?:([A-Z]{3})\s*)?(\d[\d.,]*)(?:\s*([A-Z]{3}))?\s*$")


def iso_codes() -> set[str]:
    with open(ISO, encoding="utf-8", newline="") as f:
        return {r["code"] for r in csv.DictReader(f)}


def csv_rows(path: Path) -> list[dict]:
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    first = text.split("\n", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter))


def column(rows: list[dict], *names: str) -> str | None:
    if not rows:
        return None
    wanted = {n.lower() for n in names}
    return next((k for k in rows[0] if k and k.strip().lower().removeprefix("g:") in wanted), None)


def amount(cell: str | None) -> tuple[float | None, str | None]:
    m = CELL.match(cell or "")
    if not m:
        return None, None
    code = m.group(1) or m.group(3)
    try:
        return float(m.group(2).replace(",", "")), code
    except ValueError:
        return None, None


def read(path: Path):
    try:
        return read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    except UnreadableCatalog:
        return None, None


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT / "corpus")) for p in CORPUS])
def test_the_currency_a_price_cell_names_is_read(path):
    rows = csv_rows(path)
    price = column(rows, "price", "regular price", "variant price")
    if price is None:
        pytest.skip("no price column")
    named = {code for _, code in (amount(r[price]) for r in rows) if code}
    if not named or not named <= iso_codes():
        pytest.skip("the price cells name no ISO code")
    table, _ = read(path)
    if table is None or table.num_rows == 0:
        pytest.skip("not read as a table (a reader question, not a money one)")
    read_codes = {v for v in table["currency"].to_pylist() if v is not None}
    assert read_codes == named


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT / "corpus")) for p in CORPUS])
def test_merchant_center_sale_prices_are_on_sale(path):
    rows = csv_rows(path)
    price, sale = column(rows, "price"), column(rows, "sale_price", "sale price")
    if price is None or sale is None or column(rows, "id") is None or column(rows, "sale_price_effective_date"):
        pytest.skip("not a Merchant Center feed with unscheduled sale prices")
    pairs = [(amount(r[price])[0], amount(r[sale])[0]) for r in rows if (r.get(price) or "").strip()]
    discounted = sum(1 for p, s in pairs if p and s and 0 < s < p)
    priced = sum(1 for p, _ in pairs if p and p > 0)
    table, ev = read(path)
    if table is None or ev.format != "Google Merchant Center feed" or table.num_rows != len(pairs):
        pytest.skip("not read as one variant per offer")
    result = SKILLS["price_ladder"].run(
        SkillInput(own=table, reference=None, scope=Scope(), taxonomy=load(), sources=(ev,))
    )
    total = result.table.to_pylist()[0] if result.table.num_rows else {}
    assert total.get("Priced variants", 0) == priced
    expected = round(100.0 * discounted / priced, 1) if priced else None
    assert total.get("On sale") == expected
