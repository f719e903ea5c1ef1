"""Wording rules found by asking held-out real exports the merchant's questions ("What's out of stock?",
"Where are my price gaps?", "Is my catalog ready for Google Shopping?", "Which brands do I carry
most?") and reading each answer against a csv-module count: small fixtures built the way those files
are written, and properties over every Shopify export in tests/corpus, expected values from `csv`."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import assert_prose_numbers_in_table, bullets, csv_bytes

TAX = load()
CORPUS = Path(__file__).parent / "corpus"
SHOPIFY = sorted(
    p
    for p in CORPUS.glob("*/*.csv")
    if p.read_bytes()[:300].decode("utf-8-sig", "replace").startswith("Handle,Title,Body (HTML),Vendor")
)
HEADER = ["Handle", "Title", "Body (HTML)", "Vendor", "Type", "Variant SKU", "Variant Price"]
HEADER += ["Variant Inventory Tracker", "Variant Inventory Qty", "Variant Inventory Policy", "Image Src", "Status"]


def _said(skill: str, table) -> tuple[list[str], str]:
    md = render_skill(SKILLS[skill].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX)))
    return bullets(md), md


def _shop(rows: list[list]) -> object:
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", KIND_ATTACHED)
    return table


def _boxes(n_out: int, n_in: int = 2) -> object:
    """Gift boxes of one type, the first n_out tracked at 0 and sold only in stock (a held-out stationery
    export's six zero-stock gift boxes), then n_in in stock."""
    rows = []
    for i in range(n_out + n_in):
        qty = "0" if i < n_out else "20"
        rows.append([f"box-{i}", f"Gift Box {i}", "<p>Box</p>", "Muse", "Gift Boxes", f"B{i}", "40.00"])
        rows[-1] += ["shopify", qty, "deny", "https://example.com/b.jpg", "active"]
    return _shop(rows)


def test_a_category_with_more_out_than_named_says_and_others():
    """The held-out stationery shop had six gift boxes fully out in one category and "What's out of
    stock?" named five of them, as if that were all: past the five named, the list ends "and others"."""
    said, _ = _said("availability", _boxes(7))
    line = next(b for b in said if b.startswith("Out of stock (every variant out listed first)"))
    assert line.endswith(" and others."), line
    assert line.count("Gift Box") == 5, line
    said, _ = _said("availability", _boxes(5))
    line = next(b for b in said if b.startswith("Out of stock (every variant out listed first)"))
    assert not line.endswith(" and others.") and line.count("Gift Box") == 5, line


def test_unknown_stock_is_said_once():
    """A held-out stroller shop's export (tracker and policy columns, no quantity) answered "Stock is
    unknown for all 8 variants: … nothing is reported as out of stock" and then a note saying the same."""
    header = [h for h in HEADER if h != "Variant Inventory Qty"]
    rows = [
        [f"s{i}", f"Stroller {i}", "<p>S</p>", "Glow", "Strollers", f"S{i}", "210.00", "shopify", "deny"]
        + ["https://example.com/s.jpg", "active"]
        for i in range(3)
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", KIND_ATTACHED)
    _, md = _said("availability", table)
    assert md.count("Stock is unknown") == 1, md


def _priced(prices: list[str]) -> object:
    rows = [
        [f"j{i}", f"Jacket {i}", "<p>J</p>", "Denim Co", "Jackets", f"J{i}", price, "", "", "", "https://e.com/j.jpg"]
        + ["active"]
        for i, price in enumerate(prices)
    ]
    return _shop(rows)


def test_price_gaps_without_a_hole_say_so_with_the_largest_step():
    """ "Where are my price gaps?" on a held-out denim shop (every step 1.5× or less) was answered with
    P10–P90 and tiers and no sentence on gaps. No hole is said, with the largest step and its category;
    a hole is said as before, and then "no holes" is not."""
    said, md = _said("price_ladder", _priced(["5500", "8000", "9500", "10000", "12000"]))
    line = next(b for b in said if b.startswith("No holes in the ladder"))
    assert "from 5,500.00 to 8,000.00 (1.5×)" in line, line
    assert_prose_numbers_in_table(md)
    said, _ = _said("price_ladder", _priced(["10", "11", "12", "40"]))
    assert any(b.startswith("Holes in the ladder") for b in said), said
    assert not any(b.startswith("No holes") for b in said), said


def _csv_rows(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8-sig", "replace"), newline="")))


def _active_first_rows(rows: list[dict]) -> list[dict]:
    """The first row of each product whose status is active or unstated (what the skills analyse)."""
    first: dict[str, dict] = {}
    for r in rows:
        first.setdefault(r.get("Handle") or "", r)
    return [r for r in first.values() if (r.get("Status") or "active").strip().lower() == "active"]


@pytest.fixture(scope="module")
def answers() -> dict[str, tuple[list[dict], dict[str, list[str]]]]:
    out = {}
    for path in SHOPIFY:
        table, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
        said = {skill: _said(skill, table)[0] for skill in ("brand_coverage", "content_quality", "price_ladder")}
        out[path.name] = (_csv_rows(path), said)
    return out


def test_corpus_two_vendors_are_never_a_single_vendor_catalog(answers):
    """Over every Shopify export: a catalog whose active products name two vendors or more (csv, case
    folded) is never called "Single-vendor"."""
    wrong = {}
    for name, (rows, said) in answers.items():
        vendors = {(r.get("Vendor") or "").strip().casefold() for r in _active_first_rows(rows)} - {""}
        if len(vendors) > 1 and any("Single-vendor" in b for b in said["brand_coverage"]):
            wrong[name] = sorted(vendors)[:5]
    assert not wrong, wrong


def test_corpus_no_gtin_anywhere_is_no_gtin_fix(answers):
    """Over every Shopify export with no barcode on any row (csv): the answer says what Merchant Center
    takes instead and never lists a GTIN under "Also to fix"."""
    assert any(not any((r.get("Variant Barcode") or "").strip() for r in rows) for rows, _ in answers.values())
    wrong = {}
    for name, (rows, said) in answers.items():
        if any((r.get("Variant Barcode") or "").strip() for r in rows):
            continue
        fixes = [b for b in said["content_quality"] if b.startswith("Also to fix") and "GTIN" in b.upper()]
        if fixes:
            wrong[name] = fixes
    assert not wrong, wrong


def test_corpus_price_gaps_are_always_answered(answers):
    """Over every Shopify export with priced products: the ladder says where its holes are or that there
    are none, whenever any category has two prices or more to step between."""
    mute = [
        name
        for name, (_, said) in answers.items()
        if any(b.startswith("Across") for b in said["price_ladder"])
        and not any(b.startswith(("Holes in the ladder", "No holes in the ladder")) for b in said["price_ladder"])
        and not any("one price" in b for b in said["price_ladder"])
    ]
    assert not mute, mute


def test_one_column_not_used_is_said_in_the_singular():
    """A held-out perfume feed (11 Merchant Center columns, one not read) said "1 of them are not used"."""
    header = ["id", "title", "description", "link", "image_link", "availability", "price", "brand"]
    header += ["condition", "google_product_category", "item_group_id"]
    row = ["oud-50ml", "Oud Attar - 50ml", "Agarwood attar", "https://e.com/o", "https://e.com/o.jpg", "in stock"]
    row += ["560 INR", "Pristine", "new", "Health & Beauty > Personal Care > Cosmetics > Perfume & Cologne", "oud"]
    table, src = read_table_bytes(csv_bytes(header, [row]), "google-merchant-feed.csv", KIND_ATTACHED)
    inp = SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX, sources=(src,))
    said = bullets(render_skill(SKILLS["catalog_overview"].run(inp)))
    line = next(b for b in said if "reads as a" in b)
    assert "1 of them is not used by the analysis" in line, line


def test_a_compare_at_price_of_zero_is_no_sale_price():
    """A held-out stroller shop writes "Variant Compare At Price" 0.00 on its full-price variants (Shopify
    exports do, for none): content quality counted them as "Sale price not below regular price". A
    compare-at of zero is no compare-at; one below the price (a held-out blinds shop: 54.00 on 54.59)
    still fails the check."""
    header = ["Handle", "Title", "Body (HTML)", "Vendor", "Type", "Variant SKU", "Variant Price"]
    header += ["Variant Compare At Price", "Image Src", "Status"]
    rows = [
        [f"st{i}", f"Stroller {i}", "<p>S</p>", "Glow", "Strollers", f"S{i}", price, compare, "https://e.com/s.jpg"]
        + ["active"]
        for i, (price, compare) in enumerate([("210.00", "0.00"), ("299.99", "0.00"), ("54.59", "54.00")])
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", KIND_ATTACHED)
    result = SKILLS["content_quality"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    check = {r["Item"]: r for r in result.table.to_pylist()}["Sale price not below regular price"]
    assert check["Affected rows"] == 1, check


def test_equally_incomplete_categories_name_the_larger_first():
    """A held-out blinds export: "Least complete categories" named three one-product categories at 0.0%
    (by name) and not its 52 window films, also at 0.0%. Equally complete, more rows to fix comes first."""
    header = ["Handle", "Title", "Body (HTML)", "Vendor", "Type", "Variant SKU", "Variant Price", "Image Src"]
    header += ["Status"]
    types = ["Andirons"] + ["Window Films"] * 3 + ["Zithers"]
    rows = [
        [f"p{i}", f"Item {i}", "", "Acme", kind, f"S{i}", "9.00", "https://e.com/p.jpg", "active"]
        for i, kind in enumerate(types)
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", KIND_ATTACHED)
    result = SKILLS["content_quality"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    cats = [r for r in result.table.to_pylist() if r["Section"] == "Completeness by category"]
    assert all(r["Complete"] == 0.0 for r in cats), cats
    assert cats[0]["Affected rows"] == 3, cats
    line = next(b for b in bullets(render_skill(result)) if b.startswith("Least complete categories"))
    assert "Window Films" in cats[0]["Item"], cats
    assert line.startswith(f"Least complete categories: {cats[0]['Item']} (0.0% complete)"), line
