"""The overview's size sentence counts every row, drafts and archived among them; with any among them it
says so. "How many chairs do I have?" on a furniture export read "24 active products" in the scope line
and "This scope holds 49 rows (variants) for 29 products" as the first finding: two answers to one
question, the second silently counting 5 drafts (agent.analysis.overview._summary)."""

from __future__ import annotations

from agent.catalog.ingest import read_table_bytes
from tests.helpers import bullets, csv_bytes, plan_and_answer

HEADER = ["Handle", "Title", "Vendor", "Type", "Variant SKU", "Variant Price", "Status"]


def _first_finding(statuses: list[str]) -> str:
    rows = [[f"c{i}", f"Teak Chair {i}", "Oak & Co", "Chairs", f"C{i}", "120.00", s] for i, s in enumerate(statuses)]
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    _, _, md = plan_and_answer("How many chairs do I have?", table)
    return next(line for line in bullets(md) if line.startswith("This scope holds"))


def test_drafts_among_the_counted_rows_are_said():
    line = _first_finding(["active", "active", "active", "draft"])
    assert "for 4 products (drafts and archived included)" in line


def test_only_active_rows_say_nothing_more():
    line = _first_finding(["active", "active", "active"])
    assert "for 3 products, in" in line and "drafts" not in line
