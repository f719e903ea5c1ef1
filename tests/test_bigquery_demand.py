"""demand_gaps (and assortment_gaps' demand join) both ways on the same BigQuery table: read into memory
(under the size line) and with the own side aggregated in BigQuery (above it, agent.analysis.demand_sql),
against the emulator on loopback.

The catalog is the demo offers in the transfer schema, each carrying its Google category (the table on
which both paths place every offer alike, as in test_bigquery_pushdown). The demand data is the Best
sellers reports of tests/bestsellers, once as the reports state inventory status and once with every
status blanked, so that each cluster's and brand's status comes from the catalog side (GTINs, brands),
which is what the SQL computes.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from agent import config as config_mod
from agent.analysis import demand as demand_mod
from agent.analysis import gaps, planner
from agent.analysis.inputs import SkillInput
from agent.catalog import bestsellers
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.sources import load_catalog_inputs
from agent.render import a2ui
from agent.render.text import render_skill
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

MERCHANT = "123456"
QUESTIONS = (
    "What are shoppers buying in outdoor furniture that I don't carry?",
    "Which popular brands am I missing?",
    "What are the best sellers in furniture?",
)


def _reports(blank_status: bool) -> pa.Table:
    tables = []
    for name in ("products.csv", "brands.csv"):
        path = bq_seed.BESTSELLERS / name
        table, _ = bestsellers.read_csv_bytes(path.read_bytes(), path.name, "attached file")
        tables.append(table)
    demand = pa.concat_tables(tables)
    if blank_status:
        at = demand.schema.get_field_index("inventory_status")
        demand = demand.set_column(at, "inventory_status", pa.nulls(demand.num_rows, demand["inventory_status"].type))
    return demand


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows_with_google_ids()
    )


@pytest.fixture(scope="module")
def both(bq_emulator, table_uri):  # noqa: F811
    def load(line: str):
        settings = config_mod.load({**bq_emulator.env, "BIGQUERY_IN_MEMORY_BYTES": line}).bigquery
        return load_catalog_inputs([], catalog_uri=table_uri, merchant_id=MERCHANT, bigquery=settings)

    memory, pushed = load(str(1 << 40)), load("0")
    assert memory.problems == [] and pushed.problems == []
    assert memory.own.sources[0].pushdown is None and pushed.own.sources[0].pushdown is not None
    assert pushed.own.table.num_rows == 0  # nothing downloaded
    return memory, pushed


def _run(skill, inputs, scope, tax, demand):
    own = inputs.own
    return skill(
        SkillInput(own=own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(own.sources), demand=demand)
    )


def _same(a, b) -> None:
    assert b.table.schema == a.table.schema
    assert b.table.to_pylist() == a.table.to_pylist()
    assert b.findings == a.findings and b.notes == a.notes
    assert render_skill(b) == render_skill(a)
    assert a2ui.build_messages(b, "footer", "s") == a2ui.build_messages(a, "footer", "s")


@pytest.mark.parametrize("blank_status", [False, True], ids=["report-status", "catalog-status"])
@pytest.mark.parametrize("question", QUESTIONS)
def test_demand_gaps_identical_in_memory_and_in_bigquery(both, question, blank_status):
    memory, pushed = both
    tax = taxonomy_mod.load()
    demand = _reports(blank_status)
    scope = planner.plan(question, memory.own.table, tax, None).scope
    a = _run(demand_mod.run, memory, scope, tax, demand)
    b = _run(demand_mod.run, pushed, scope, tax, demand)
    _same(a, b)
    rows = a.table.to_pylist()
    listed = [r for r in rows if r["Kind"] in ("Product", "Brand")]
    assert len(listed) > 5
    if blank_status:  # every status was decided by the catalog side: the SQL's GTIN and brand figures
        assert {r["Status from"] for r in listed} <= {"your catalog (GTIN)", "your catalog (brand)", "neither"}
        states = {r["Your status"] for r in listed if r["Status from"] == "your catalog (GTIN)"}
        assert {"in stock", "not carried"} <= states
        assert {r["Your status"] for r in listed if r["Kind"] == "Brand"} >= {"in stock", "not carried"}
    assert any(r["Kind"] == "Subcategory" and r["Your products"] for r in rows) or scope.taxonomy_id is None


def test_without_demand_data_the_own_subcategories_are_identical(both):
    memory, pushed = both
    tax = taxonomy_mod.load()
    for question in (QUESTIONS[0], "What are the best sellers in my catalog?"):
        scope = planner.plan(question, memory.own.table, tax, None).scope
        a = _run(demand_mod.run, memory, scope, tax, None)
        b = _run(demand_mod.run, pushed, scope, tax, None)
        assert a.missing == b.missing == "demand"
        _same(a, b)
        assert a.table.to_pylist()[0]["Your products"] > 0


def test_the_own_side_is_recomputed_from_the_offers(both):
    """demand_sql's aggregates against a plain walk over the offers read into memory (the canonical
    table): the report's GTIN keys -> state, brands -> distinct products, the scope's products."""
    memory, pushed = both
    tax = taxonomy_mod.load()
    scope = planner.plan(QUESTIONS[0], memory.own.table, tax, None).scope
    rows = memory.own.table.to_pylist()
    gtins = {demand_mod._gtin_key(r["gtin"]) for r in rows[::7]} - {None}
    gtins |= {"99999999999999"}  # a GTIN nobody sells
    brands = {(r["brand"] or "").lower() for r in rows[::5]} - {""}
    inp = SkillInput(own=pushed.own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(pushed.own.sources))
    got = demand_mod.own_side(inp, gtins, brands)
    want_state: dict[str, str] = {}
    for r in rows:
        key = demand_mod._gtin_key(r["gtin"])
        if key in gtins:
            now = {"in_stock": "in stock", "out_of_stock": "out of stock"}.get(r["availability"], "stock unknown")
            if key not in want_state or demand_mod.STATE_ORDER[now] < demand_mod.STATE_ORDER[want_state[key]]:
                want_state[key] = now
    assert got.by_gtin == want_state and len(want_state) > 50
    want_brands = {b: len({r["product_key"] for r in rows if (r["brand"] or "").lower() == b}) for b in brands}
    assert got.brands == want_brands
    ids = set(gaps.common.scope_ids(scope, tax))
    assert got.products == len({r["product_key"] for r in rows if r["google_category_id"] in ids}) > 0
    assert sum(got.per_subcategory.values()) >= got.products


@pytest.mark.parametrize("question", ("Where are the gaps in outdoor furniture?", "Where are the gaps in my catalog?"))
def test_assortment_gaps_joins_demand_above_the_line_too(both, question):
    """'missing, and in the top 10% of demand' is found the same way when the catalog is aggregated in
    BigQuery (before, the pushdown answer left the join out with a note)."""
    memory, pushed = both
    tax = taxonomy_mod.load()
    demand = _reports(blank_status=True)
    scope = planner.plan(question, memory.own.table, tax, None).scope
    a = _run(gaps.run, memory, scope, tax, demand)
    b = _run(gaps.run, pushed, scope, tax, demand)
    _same(a, b)
    assert any(f.code == "gaps.demand_missing" for f in a.findings)
    assert not any("not joined" in n for n in b.notes)


def test_unplaced_offers_are_said_in_a_scoped_demand_answer(bq_emulator):  # noqa: F811
    rows = [
        dict(r, google_product_category=None, google_product_category_path=None) if i % 10 == 0 else r
        for i, r in enumerate(bq_seed.demo_products_rows_with_google_ids())
    ]
    uri = "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)
    settings = config_mod.load({**bq_emulator.env, "BIGQUERY_IN_MEMORY_BYTES": "0"}).bigquery
    pushed = load_catalog_inputs([], catalog_uri=uri, merchant_id=MERCHANT, bigquery=settings)
    tax = taxonomy_mod.load()
    scope = planner.plan(QUESTIONS[0], pushed.own.table, tax, None).scope
    result = _run(demand_mod.run, pushed, scope, tax, _reports(False))
    unplaced = sum(1 for r in rows if r["google_product_category"] is None)
    assert any(f"{unplaced:,} offers carry no Google product category" in n for n in result.notes)
