"""A field the export has no column for is "not in this export", never every row missing it.

The held-out sweep found readiness answers saying 100 % of rows miss a GTIN on a Google Ads feed and a
price on an inventory subset: files that cannot carry the field. A column that is present but blank is
a real gap and still counts on every row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.analysis.content_quality import ABSENT_SECTION, CHECKS, FIELD_CHECKS, FIELD_LABELS
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import csv_bytes

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in {".csv", ".tsv", ".txt"})
TAX = load()
LABEL_OF_CHECK = {check: FIELD_LABELS[f] for f, checks in FIELD_CHECKS.items() for check in checks}


def readiness(data: bytes, name: str):
    table, evidence = read_table_bytes(data, name, KIND_ATTACHED)
    inp = SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX, sources=[evidence])
    result = SKILLS["content_quality"].run(inp)
    return evidence, result, result.table.to_pylist()


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_absent_field_is_listed_once_and_no_check_of_it_runs(path):
    evidence, result, rows = readiness(path.read_bytes(), path.name)
    listed = [r["Item"] for r in rows if r["Section"] == ABSENT_SECTION]
    assert listed == [FIELD_LABELS[f] for f in FIELD_CHECKS if f in evidence.absent_fields]
    checked = {r["Item"] for r in rows if r["Section"] == "Check"}
    skipped = {check for f in evidence.absent_fields for check in FIELD_CHECKS[f]}
    labels = {r["Item"]: r for r in rows}
    for check_id, label, _ in CHECKS:
        if check_id in skipped:
            assert label not in checked, f"{label} reported though the export has no {LABEL_OF_CHECK[check_id]} column"
    assert set(result.thresholds["required_for_complete"]).isdisjoint(skipped)
    assert labels  # the skill answered


def _export(with_gtin_column: bool) -> bytes:
    header = ["id", "title", "description", "brand", "price", "image_link", "google_product_category"]
    if with_gtin_column:
        header.append("gtin")
    rows = [
        [f"sku{i}", f"Garden Chair {i}", "Teak.", "Acme", "49.00 USD", f"https://x.test/{i}.jpg", "443"]
        + ([""] if with_gtin_column else [])
        for i in range(4)
    ]
    return csv_bytes(header, rows)


def test_no_gtin_column_is_not_in_this_export_but_a_blank_one_is_missing_everywhere():
    evidence, result, rows = readiness(_export(with_gtin_column=False), "feed.csv")
    assert evidence.absent_fields == ["gtin"]
    md = render_skill(result)
    assert "This export has no GTIN column" in md
    complete = next(line for line in md.splitlines() if "complete for Google Shopping" in line)
    assert complete.startswith("- 100.0% of rows are complete") and "GTIN" not in complete
    assert not any(r["Item"] == "Missing GTIN" for r in rows)

    evidence, result, rows = readiness(_export(with_gtin_column=True), "feed.csv")
    assert evidence.absent_fields == []
    missing = next(r for r in rows if r["Item"] == "Missing GTIN")
    assert missing["Affected rows"] == 4
    assert "This export has no" not in render_skill(result)
