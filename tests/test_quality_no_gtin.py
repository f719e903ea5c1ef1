"""Completeness when no row has a GTIN (content_quality.counts_gtin): a handmade earrings shop read
"0.0% of rows are complete for Google Shopping" whatever else it fixed, because every row failed
"Missing GTIN". With no GTIN anywhere in the scope, completeness (and per category) is counted
without the GTIN checks, the check row still counts the rows without one, and the answer says what
Merchant Center takes instead; one GTIN anywhere and every row needs one again, as before."""

from __future__ import annotations

from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import bullets, csv_bytes

TAX = load()
HEADER = ["Handle", "Title", "Body (HTML)", "Vendor", "Type", "Variant SKU", "Variant Price", "Variant Barcode"]
HEADER += ["Image Src", "Status"]


def _answer(gtins: list[str]):
    rows = [
        [f"ring-{i}", f"Gold Ring {i}", "<p>A gold ring</p>", "Muse", "Rings", f"R{i}", "15.00", gtin]
        + ["" if i == 3 else "https://example.com/r.jpg", "active"]
        for i, gtin in enumerate(gtins)
    ]
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    result = SKILLS["content_quality"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    return result, {r["Item"]: r for r in result.table.to_pylist()}, render_skill(result)


def test_no_gtin_anywhere_is_counted_without_the_gtin_checks():
    result, rows, md = _answer([""] * 5)
    # one row of five lacks its image: 4 of 5 complete, not 0 of 5
    assert rows["Rows complete for Google Shopping"]["Complete"] == 80.0
    assert rows["Rows complete for Google Shopping"]["Affected rows"] == 1
    assert rows["Missing GTIN"]["Affected rows"] == 5  # the check still says how many lack one
    assert not {"missing_gtin", "invalid_gtin"} & set(result.thresholds["required_for_complete"])
    said = bullets(md)
    assert said[0].startswith("80.0% of rows are complete for Google Shopping") and "GTIN" not in said[0]
    assert any(line.startswith("No row has a GTIN") and "identifier_exists" in line for line in said)
    cats = [r for r in result.table.to_pylist() if r["Section"] == "Completeness by category"]
    assert cats and all(r["Complete"] == 80.0 for r in cats)


def test_one_gtin_in_the_scope_makes_every_row_need_one():
    result, rows, md = _answer(["4006381333931", "", "", "", ""])
    assert rows["Rows complete for Google Shopping"]["Complete"] == 20.0  # only the row with its GTIN
    assert rows["Missing GTIN"]["Affected rows"] == 4
    assert "missing_gtin" in result.thresholds["required_for_complete"]
    assert not any(line.startswith("No row has a GTIN") for line in bullets(md))


def test_no_gtin_anywhere_is_not_listed_again_as_a_fix():
    """A held-out denim shop (13 products, no barcode on any) read "100.0% of rows are complete …; 0 rows
    need work", the identifier_exists advice, and then "Also to fix: missing gtin (13 rows)": the GTIN it
    had just said own-brand products go without. With no GTIN in the scope the GTIN checks stay in the
    table but out of "Also to fix"; with one GTIN the rest are listed, in the label's own capitals."""
    rows = [
        [f"ring-{i}", f"Gold Ring {i}", "" if i == 1 else "<p>A gold ring</p>", "Muse", "Rings", f"R{i}", "15.00"]
        + [gtin, "https://example.com/r.jpg", "active"]
        for i, gtin in enumerate([""] * 4)
    ]
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    md = render_skill(SKILLS["content_quality"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX)))
    fixes = [b for b in bullets(md) if b.startswith("Also to fix")]
    assert fixes == ["Also to fix: missing description (1 row)."], bullets(md)
    _, _, md = _answer(["4006381333931", "", "", "", ""])
    assert any(b.startswith("Also to fix: missing GTIN (4 rows)") for b in bullets(md)), bullets(md)
