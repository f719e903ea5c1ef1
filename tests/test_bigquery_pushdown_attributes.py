"""attribute_coverage both ways on the same BigQuery table: read into memory (under the size line) and
counted in BigQuery (above it, agent.analysis.attributes_sql), against the emulator on loopback.

The table is the demo catalog's offers in the transfer schema (each with its Google category, gaps_sql's
premise) with colours, materials and sizes written as feeds write them: case and spacing variants,
spelling variants ("gray", "Aluminum", "extra large"), blanks and whitespace. Table rows, findings,
the Markdown text and the A2UI messages must be identical, on the whole catalog and scoped, and
with a reference catalog (read in memory on both paths).
"""

from __future__ import annotations

import pytest

from agent.analysis import attributes, planner
from agent.analysis.registry import IN_BIGQUERY
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.sources import load_demo
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.bq_pushdown import assert_identical, assert_same, both_ways, load, run_skill

QUESTIONS = (
    "How well are colours filled in?",
    "Which materials or colours am I missing in outdoor seating?",
    "What sizes do I offer in furniture?",
)
COLOURS = ("Grey", "gray", "  GREY ", "Navy  Blue", "navy blue", "", "   ", "Multi-Colored", "multicolour")
MATERIALS = ("Aluminum", "aluminium", "Teak", "teak ", "Resin  Wicker")
SIZES = ("Extra Large", "XL", "x-large", "S", "s", "")


def _rows() -> list[dict]:
    out = []
    for i, row in enumerate(bq_seed.demo_products_rows_with_google_ids()):
        if i % 7 == 0:
            row = dict(row, color=COLOURS[(i // 7) % len(COLOURS)])
        if i % 11 == 0:
            row = dict(row, material=MATERIALS[(i // 11) % len(MATERIALS)])
        if i % 5 == 0:
            row = dict(row, size=SIZES[(i // 5) % len(SIZES)])
        out.append(row)
    return out


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=_rows())


def test_attribute_coverage_is_pushed_down():
    assert "attribute_coverage" in IN_BIGQUERY


@pytest.mark.parametrize("question", QUESTIONS)
def test_attribute_coverage_identical_in_memory_and_in_bigquery(bq_emulator, table_uri, question):  # noqa: F811
    pair = both_ways(bq_emulator.env, table_uri, "attribute_coverage", question)
    assert "attribute_coverage" in pair.skills
    assert_identical(pair)
    a = pair.memory
    rows = {r["Attribute"]: r for r in a.table.to_pylist()}
    assert {"Colour", "Material", "Size"} <= set(rows)
    if question == QUESTIONS[0]:  # the fixture's variants are merged (and counted) on both paths
        assert rows["Colour"]["Spelling variants merged (rows)"] > 0
        assert rows["Size"]["Spelling variants merged (rows)"] > 0
        assert "Grey (" in rows["Colour"]["Top values (rows)"]


def test_with_a_reference_catalog_identical(bq_emulator, table_uri):  # noqa: F811
    tax = taxonomy_mod.load()
    demo, _ = load_demo()
    memory = load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES=str(1 << 40))
    pushed = load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0")
    plan = planner.plan(QUESTIONS[1], memory.own.table, tax, None)
    a, b = (
        run_skill("attribute_coverage", memory, plan.scope, tax, reference=demo),
        run_skill("attribute_coverage", pushed, plan.scope, tax, reference=demo),
    )
    assert_same(a, b)
    assert "Reference fill rate" in a.table.column_names


def test_tally_is_the_in_memory_distribution():
    """attributes.tally over per-value counts equals the in-memory path over the same rows."""
    import pyarrow as pa

    from agent.catalog import canonical

    values = [*COLOURS, None, "Grey", "navy blue"]
    table = canonical.from_columns({"color": pa.array(values, pa.string())})
    want = attributes._distribution(attributes.attribute_values(table)["Colour"])
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    assert attributes.tally(list(counts.items())) == want
    assert want[2] == sum(1 for v in values if v and v.strip())


# "What sizes am I missing?" (agent.analysis.size_runs): each item group's variants take sizes of one run
# in order, written as feeds write them, some groups stopping short or skipping a size, so both paths
# have gaps, extended sizes, sold-out sizes (the demo's out-of-stock offers) and a number run to count
RUN_SIZES = (
    ("XS", "Small", "m", "L ", "x-large", "XXL"),
    ("S", "M", "Large", "XL"),
    ("s", "M", "XL"),
    ("8", "10", "12", "14"),
)
SIZE_QUESTIONS = ("Which sizes are missing?", "What sizes am I missing in furniture?")


def _run_rows() -> list[dict]:
    out, seen = [], {}
    for row in bq_seed.demo_products_rows_with_google_ids():
        group = row.get("item_group_id") or row["offer_id"]
        at = seen[group] = seen.get(group, -1) + 1
        run = RUN_SIZES[sum(map(ord, str(group))) % len(RUN_SIZES)]
        out.append(dict(row, size=run[at] if at < len(run) else None))
    return out


@pytest.fixture(scope="module")
def runs_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=_run_rows())


@pytest.mark.parametrize("question", SIZE_QUESTIONS)
def test_missing_sizes_identical_in_memory_and_in_bigquery(bq_emulator, runs_uri, question):  # noqa: F811
    pair = both_ways(bq_emulator.env, runs_uri, "attribute_coverage", question)
    assert_identical(pair)
    rows = pair.memory.table.to_pylist()
    assert "Products missing it" in pair.memory.table.column_names
    assert sum(r["Products missing it"] or 0 for r in rows if r["Size"].endswith(" (all)")) > 0
    assert any(r["Products sold out in it"] for r in rows)
    assert any(r["Products missing it (examples)"] for r in rows)  # both paths name the same products
