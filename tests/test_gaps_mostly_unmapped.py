"""A scope whose products are mostly mapped to no subcategory: its gaps are said with that caveat first.

A held-out bags shop's "Where are the gaps in bags?" answered "Thin — fewer than three products:
Handbags (1 product)" while 7 more of its 8 bags were mapped to no subcategory: they may well be
handbags. When the products not mapped to a subcategory are half the scope or more, the sentence that
counts them says so, and comes before the gaps (agent.analysis.gaps._findings)."""

from __future__ import annotations

from agent.analysis.inputs import SkillInput
from agent.analysis.planner import plan
from agent.analysis.registry import SKILLS
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import bullets, csv_bytes

TAX = load()
HEADER = ["Handle", "Title", "Vendor", "Type", "Product Category", "Variant SKU", "Variant Price", "Status"]
HANDBAGS = "Apparel & Accessories > Handbags, Wallets & Cases > Handbags"


def _gaps(names: list[str], question: str = "Where are the gaps in bags?") -> list[str]:
    """Each product typed "Bags"; those named "... Handbag" filed by the merchant as Handbags, the rest
    with no category that places them."""
    rows = [
        [f"p{i}", name, "Muse", "Bags", HANDBAGS if name.endswith("Handbag") else "", f"S{i}", "20.00", "active"]
        for i, name in enumerate(names)
    ]
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    p = plan(question, table, TAX, None)
    result = SKILLS["assortment_gaps"].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX))
    return bullets(render_skill(result, p.notes))


def test_most_of_the_scope_unmapped_is_said_before_its_gaps():
    said = _gaps(["Leather Handbag", "The Aria", "The Bella", "The Cleo", "The Dana"])
    first = said[0]
    assert first.startswith("4 products are in scope") and "That is 4 of the scope's 5" in first
    assert any(line.startswith("Thin") and "Handbags" in line for line in said[1:])


def test_the_whole_catalog_keeps_the_plain_sentence():
    """Unplaced products of the whole catalog are no subcategory's: nothing there to hedge."""
    said = _gaps(["Leather Handbag", "The Aria", "The Bella", "The Cleo", "The Dana"], "Where are my gaps?")
    unmapped = [line for line in said if "could not be placed" in line]
    assert unmapped and "That is" not in unmapped[0]


def test_a_scope_mostly_mapped_keeps_the_plain_sentence():
    """One unplaced product of three in scope: the sentence is the plain one, after the gaps."""
    from agent.analysis.gaps import _findings

    row = {"Products": 0, "Variants": 0, "In-stock variants": 0, "Gap": None, "Group": "All"}
    rows = [
        dict(row, Subcategory="Bags (all)", Products=3, **{"Left out (draft/archived products)": 0}),
        dict(row, Subcategory="Handbags", Products=2, Gap="thin"),
        dict(row, Subcategory="Not mapped to a subcategory", Products=1),
    ]
    found = {f.code: f for f in _findings(rows, False, 3, {"own_n": 1})}
    assert found["gaps.unmapped"].values["most"] is False and found["gaps.unmapped"].severity == 5
    rows[0]["Products"], rows[2]["Products"] = 4, 2  # half the scope: said first
    found = {f.code: f for f in _findings(rows, False, 4, {"own_n": 2})}
    assert found["gaps.unmapped"].values["most"] is True and found["gaps.unmapped"].severity == 9
