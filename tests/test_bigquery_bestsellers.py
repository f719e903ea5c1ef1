"""Best sellers read from the Merchant Center transfer in BigQuery (the emulator on loopback): a
`bq://…BestSellersProductClusterWeekly_<id>` / `…BrandWeekly_<id>` table, or the transfer dataset
with the merchant id, wherever a Best sellers source is accepted (DEMAND_URI, REFERENCE_URI). The
tables hold tests/bestsellers' reports in the transfer schema (nested demand and price records,
GTINs as a repeated field) in their own week's partition and an older week ranked in reverse, so
reading the newest partition only is what makes them equal the CSV downloads."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from agent import config as config_mod
from agent.analysis import planner
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.catalog import bestsellers
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.attachments import Attachment
from agent.catalog.sources import load_catalog_inputs
from agent.render.footer import source_line
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

MERCHANT = 123456
WEEK = dt.date(2026, 11, 23)  # the reports' own week (tests/bestsellers)
OUTDOOR_Q = "What are shoppers buying in outdoor furniture that I don't carry?"


@pytest.fixture(scope="module")
def tables(bq_emulator):  # noqa: F811
    dataset = "bestsellers_transfer"
    return f"{bq_emulator.project}.{dataset}", bq_seed.create_bestsellers_tables(
        bq_emulator.client, bq_emulator.project, dataset, MERCHANT
    )


@pytest.fixture
def settings(bq_emulator):  # noqa: F811
    return config_mod.load(bq_emulator.env).bigquery


def _csv(kind: str):
    path = bq_seed.BESTSELLERS / ("products.csv" if kind == "products" else "brands.csv")
    return bestsellers.read_csv_bytes(path.read_bytes(), path.name, "attached file")


def test_a_product_cluster_table_reads_as_its_csv_download(tables, settings):
    _, ids = tables
    inputs = load_catalog_inputs([], demand_uri=f"bq://{ids['products']}", bigquery=settings)
    assert inputs.problems == [] and inputs.demand is not None
    want, want_ev = _csv("products")
    assert inputs.demand.table.num_rows == want.num_rows > 0
    assert inputs.demand.table.to_pylist() == want.to_pylist()  # the older week is not read
    ev = inputs.demand.sources[0]
    assert ev.role == bestsellers.ROLE and ev.format == want_ev.format == bestsellers.FORMAT_PRODUCTS
    assert ev.kind == "BigQuery" and ev.snapshot_date == WEEK and "newest partition" in ev.snapshot_origin
    assert "scanned" in source_line(ev) and "_PARTITIONDATE" not in ev.columns


def test_the_transfer_dataset_reads_both_weekly_reports_for_the_merchant(tables, settings):
    where, _ = tables
    inputs = load_catalog_inputs([], demand_uri=f"bq://{where}", merchant_id=str(MERCHANT), bigquery=settings)
    assert inputs.problems == []
    formats = sorted(ev.format for ev in inputs.demand.sources)
    assert formats == sorted([bestsellers.FORMAT_PRODUCTS, bestsellers.FORMAT_BRANDS])
    want = _csv("products")[0].to_pylist() + _csv("brands")[0].to_pylist()
    assert sorted(map(repr, inputs.demand.table.to_pylist())) == sorted(map(repr, want))
    # another merchant's dataset has no such tables: the answer says the report could not be read
    other = load_catalog_inputs([], demand_uri=f"bq://{where}", merchant_id="999", bigquery=settings)
    assert other.demand is None and other.problems == ["The configured Best sellers report could not be read."]


def test_demand_gaps_from_bigquery_equals_the_answer_from_the_csv_reports(tables, settings):
    """The whole skill: the same table and findings from the transfer tables as from the downloads."""
    where, ids = tables
    tax = taxonomy_mod.load()
    from_bq = load_catalog_inputs(
        [], question=OUTDOOR_Q, demand_uri=f"bq://{where}", merchant_id=str(MERCHANT), bigquery=settings
    )
    atts = [
        Attachment(p.name, p.read_bytes(), "text/csv")
        for p in (bq_seed.BESTSELLERS / "products.csv", bq_seed.BESTSELLERS / "brands.csv")
    ]
    from_csv = load_catalog_inputs(atts, question=OUTDOOR_Q)
    plan = planner.plan(OUTDOOR_Q, from_csv.own.table, tax)
    assert "demand_gaps" in plan.skills

    def run(inputs):
        return SKILLS["demand_gaps"].run(
            SkillInput(
                own=inputs.own.table,
                reference=None,
                scope=plan.scope,
                taxonomy=tax,
                sources=tuple(inputs.own.sources),
                demand=inputs.demand.table,
            )
        )

    a, b = run(from_csv), run(from_bq)
    assert a.table.num_rows > 5
    assert sorted(map(repr, b.table.to_pylist())) == sorted(map(repr, a.table.to_pylist()))
    assert b.findings == a.findings
    # a Best sellers table at REFERENCE_URI is demand data, as a Best sellers CSV there is
    by_reference = load_catalog_inputs([], reference_uri=f"bq://{ids['brands']}", bigquery=settings)
    assert by_reference.reference is None and by_reference.demand.sources[0].format == bestsellers.FORMAT_BRANDS


def test_a_second_read_of_the_same_partition_comes_from_the_cache(tables, settings):
    _, ids = tables
    first = load_catalog_inputs([], demand_uri=f"bq://{ids['brands']}", bigquery=settings)
    again = load_catalog_inputs([], demand_uri=f"bq://{ids['brands']}", bigquery=settings)
    assert again.demand.table is first.demand.table
    assert again.demand.sources[0].bytes_scanned == 0


def test_caps_and_the_size_line_are_said_for_the_best_sellers_report(tables, settings):
    _, ids = tables
    capped = load_catalog_inputs(
        [], demand_uri=f"bq://{ids['products']}", bigquery=dataclasses.replace(settings, maximum_bytes_billed=100)
    )
    assert capped.demand is None
    assert capped.problems[0].startswith("The configured Best sellers report was not read: BigQuery estimates")
    over = load_catalog_inputs(
        [], demand_uri=f"bq://{ids['products']}", bigquery=dataclasses.replace(settings, in_memory_bytes=10)
    )
    assert over.demand is None and "BIGQUERY_IN_MEMORY_BYTES" in over.problems[0]
