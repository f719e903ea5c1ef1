"""catalog_overview on hand-built canonical tables, numbers recomputed independently in plain Python."""

from __future__ import annotations

import statistics

import pytest

from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Scope
from agent.catalog.canonical import from_columns
from agent.catalog.evidence import SourceEvidence
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import assert_prose_numbers_in_table, bullets

ROWS = [
    # product_key, status, google id, mapping, price, brand, category_path
    (1, "active", 4105, "google_category", 120.0, "Sunny", "Garden > Loungers"),
    (1, "active", 4105, "google_category", 140.0, "Sunny", "Garden > Loungers"),
    (2, "active", 6828, "merchant_path", 45.0, "Sunny", "Garden > Chairs"),
    (3, "draft", 6828, "merchant_path", 60.0, "Oak&Co", "Garden > Chairs"),
    (4, "archived", 2684, "name_match", 700.0, "Oak&Co", "Garden > Tables"),
    (5, "active", None, "unmapped", 9.5, None, "Misc"),
    (6, None, 2684, "name_match", 510.0, "Oak&Co", "Garden > Tables"),
    (6, None, 2684, "name_match", 0.0, "Oak&Co", "Garden > Tables"),
]


def table(rows=ROWS, currency="EUR"):
    cols = list(zip(*rows))
    return from_columns(
        {
            "product_key": list(cols[0]),
            "status": list(cols[1]),
            "google_category_id": list(cols[2]),
            "category_mapping": list(cols[3]),
            "price": list(cols[4]),
            "brand": list(cols[5]),
            "category_path": list(cols[6]),
            "currency": [currency] * len(rows),
            "title": [f"p{k}" for k in cols[0]],
        }
    )


def run(t, scope=Scope(), sources=()):
    return SKILLS["catalog_overview"].run(
        SkillInput(own=t, reference=None, scope=scope, taxonomy=load(), sources=sources)
    )


def cell(result, section, item, column="Count"):
    for row in result.table.to_pylist():
        if row["Section"] == section and row["Item"] == item:
            return row[column]
    raise KeyError((section, item))


def test_counts_match_independent_recomputation():
    r = run(table())
    analysed = [row for row in ROWS if row[1] in ("active", None)]
    assert cell(r, "Summary", "Rows (variants)") == len(ROWS)
    assert cell(r, "Summary", "Products") == len({row[0] for row in ROWS})
    assert cell(r, "Summary", "Brands") == len({row[5] for row in analysed if row[5]})
    assert cell(r, "Status (rows)", "draft") == 1
    assert cell(r, "Status (rows)", "archived") == 1
    assert cell(r, "Status (rows)", "analysed (active or not stated)") == len(analysed)
    positive = [row[4] for row in analysed if row[4] > 0]
    sec = "Price (priced variants)"
    assert cell(r, sec, "Priced variants") == len(positive)
    assert cell(r, sec, "Lowest price", "Price") == min(positive)
    assert cell(r, sec, "Highest price", "Price") == max(positive)
    assert cell(r, sec, "Median price", "Price") == pytest.approx(statistics.median(positive))
    # the zero-priced variant of product 6 is counted and said, not used as the lowest price
    assert cell(r, "Price", "Priced 0.00 or below (left out of price figures)") == 1
    assert cell(r, "Category mapping (rows)", "not mapped") == sum(1 for row in analysed if row[3] == "unmapped")
    # bands over priced variants (9.5, 45, 120, 140, 510), cut at round numbers near the quartiles
    # (45 -> 50, 120 -> 100, 140 -> 100)
    bands = "Price bands (priced variants)"
    assert cell(r, bands, "Under EUR 50") == 2
    assert cell(r, bands, "EUR 50 to under EUR 100") == 0
    assert cell(r, bands, "EUR 100 and over") == 3
    assert r.currency == "EUR"


def test_rendered_answer_states_scope_and_numbers_come_from_table():
    src = SourceEvidence(
        name="catalog.csv",
        kind="attached file",
        format="Shopify product export",
        rows_read=8,
        columns=["Handle", "Title", "Vendor", "Weird"],
        unmapped_columns=["Weird"],
    )
    md = render_skill(
        run(table(), sources=(src,)), preface=("I could not read brochure.pdf: application/pdf is not CSV",)
    )
    assert md.startswith("## Catalog overview: whole catalog\n")
    assert "I could not read brochure.pdf" in md
    assert "Scope: the whole catalog." in md
    assert 3 <= len(bullets(md)) <= 7
    assert "EUR 9.50" in md and "EUR 510.00" in md
    assert "Shopify product export" in md
    assert "Evidence" not in md  # the footer is the service's job
    assert_prose_numbers_in_table(md)


def test_mixed_currencies_are_split_never_pooled():
    t = table()
    import pyarrow as pa

    cur = pa.array(["EUR", "USD"] * 4).dictionary_encode().cast(t.schema.field("currency").type)
    t = t.set_column(t.schema.get_field_index("currency"), "currency", cur)
    r = run(t)
    assert r.currency is None
    analysed = [(row, c) for row, c in zip(ROWS, ["EUR", "USD"] * 4) if row[1] in ("active", None) and row[4] > 0]
    for code in ("EUR", "USD"):
        mine = [row[4] for row, c in analysed if c == code]
        sec = f"Price (priced variants, {code})"
        assert cell(r, sec, "Priced variants") == len(mine)
        assert cell(r, sec, "Lowest price", "Price") == min(mine)
        assert cell(r, sec, "Highest price", "Price") == max(mine)
        assert sum(
            row["Count"] for row in r.table.to_pylist() if row["Section"] == f"Price bands (priced variants, {code})"
        ) == len(mine)
    md = render_skill(r)
    assert "USD 9.50" in md and "EUR 510.00" in md and "EUR 9.50" not in md
    assert "several currencies" in md
    assert_prose_numbers_in_table(md)


def test_scope_limits_rows():
    tax = load()
    scope = Scope(label="outdoor seating", taxonomy_id=6368, taxonomy_path=tax.node(6368).path)
    r = run(table(), scope=scope)
    assert cell(r, "Summary", "Rows (variants)") == 4  # products 1, 2, 3 (4105 and 6828 are under 6368)
    md = render_skill(r)
    assert "Furniture > Outdoor Furniture > Outdoor Seating (Google taxonomy id 6368)" in md
    assert_prose_numbers_in_table(md)


def test_empty_table_still_answers():
    r = run(from_columns({"product_key": []}))
    md = render_skill(r)
    assert "nothing to count" in md


def test_every_mapping_method_has_an_overview_label() -> None:
    from agent.analysis.overview import MAPPING_LABELS
    from agent.catalog.canonical import MAPPING_METHODS

    assert set(MAPPING_LABELS) == set(MAPPING_METHODS)


def test_an_export_without_categories_is_in_no_category():
    """tests/corpus/magento/btech-water-heater-one-row.csv has an empty `categories` cell and no Google category:
    its one product is "Unmapped", which is no category (the overview said "in 1 category")."""
    from pathlib import Path

    from agent.catalog.evidence import KIND_ATTACHED
    from agent.catalog.ingest import read_table_bytes

    path = Path(__file__).parent / "corpus" / "magento" / "btech-water-heater-one-row.csv"
    own, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    assert own["category_path"].null_count == own.num_rows and own["google_category_id"].null_count == own.num_rows
    result = run(own)
    assert cell(result, "Summary", "Categories") == 0
    text = render_skill(result)
    assert "in 0 categories" in text and "1 category" not in text
