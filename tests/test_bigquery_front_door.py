"""A real agent process answering from a Merchant Center transfer dataset in the BigQuery emulator:
a trusted catalog_context naming `bq://project.dataset` reads the caller's `Products_<merchant_id>`,
the footer states the partition, rows and bytes scanned, and a cap the read would exceed is the answer."""

from __future__ import annotations

import json

import pytest

from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.helpers import artifacts_text, ask_with_catalog_context


@pytest.fixture(scope="module")
def dataset(bq_emulator):  # noqa: F811
    rows = bq_seed.demo_products_rows(merchant_id=555)
    where = bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows, merchant_id=555)
    return where, len(rows)


def test_context_dataset_is_read_for_the_callers_merchant(bq_emulator, dataset, start_server):  # noqa: F811
    where, n = dataset
    srv = start_server({**bq_emulator.env, "ALLOWED_CATALOG_PREFIXES": f"bq://{where}.Products_{{merchant_id}}"})
    text = artifacts_text(ask_with_catalog_context(srv.url, {"merchant_id": "555", "catalog_uri": f"bq://{where}"}))
    name = f"bq://{where}.Products_555".replace("_", "\\_")  # the footer is Markdown: names escaped
    assert f"{name} (BigQuery, Merchant Center Products transfer table)" in text
    assert f"{n:,} rows read" in text and "scanned" in text and "newest partition, _PARTITIONDATE" in text
    refused = ask_with_catalog_context(srv.url, {"merchant_id": "556", "catalog_uri": f"bq://{where}.Products_555"})
    assert refused["error"]["code"] == -32602 and where not in json.dumps(refused)


def test_a_question_over_the_cap_is_answered_with_that_fact(bq_emulator, dataset, start_server):  # noqa: F811
    where, _ = dataset
    srv = start_server(
        {**bq_emulator.env, "ALLOWED_CATALOG_PREFIXES": f"bq://{where}", "BIGQUERY_MAXIMUM_BYTES_BILLED": "1000"}
    )
    response = ask_with_catalog_context(srv.url, {"merchant_id": "555", "catalog_uri": f"bq://{where}"})
    answer = artifacts_text(response)
    assert "BigQuery estimates" in answer and "to scan, over the 1.0 kB cap per question" in answer
    assert "rows read" not in answer  # nothing was read, and no other catalog stood in for it


def test_above_the_line_gaps_are_aggregated_in_bigquery(bq_emulator, dataset, start_server):  # noqa: F811
    """BIGQUERY_IN_MEMORY_BYTES=0: nothing is downloaded; assortment_gaps answers from SQL aggregates, and
    so do the overview and the price ladder; a skill without a SQL form says it was not run (it needs the catalog in memory)
    instead of answering from an empty table."""
    where, n = dataset
    srv = start_server(
        {**bq_emulator.env, "ALLOWED_CATALOG_PREFIXES": f"bq://{where}", "BIGQUERY_IN_MEMORY_BYTES": "0"}
    )
    context = {"merchant_id": "555", "catalog_uri": f"bq://{where}"}
    response = ask_with_catalog_context(srv.url, context, "Where are the gaps in outdoor furniture?")
    answer = artifacts_text(response)
    assert f"{n:,} rows aggregated in BigQuery" in answer and "scanned" in answer
    assert "Outdoor" in answer and "was not run" not in answer
    overview = artifacts_text(ask_with_catalog_context(srv.url, context, "What is in this catalog?"))
    assert "was not run" not in overview and "Top brands" in overview  # overview_sql
    assert f"{n:,} rows aggregated in BigQuery" in overview and "rows read" not in overview
    # (the whole catalog: this table's offers carry no Google category, so no scope can place them)
    ladder = artifacts_text(ask_with_catalog_context(srv.url, context, "How is my catalog priced?"))
    assert "was not run" not in ladder and "median" in ladder.lower(), ladder  # price_ladder_sql
    assert f"{n:,} rows aggregated in BigQuery" in ladder and "rows read" not in ladder
    quality = artifacts_text(ask_with_catalog_context(srv.url, context, "Is my catalog ready for Google Shopping?"))
    assert "was not run" not in quality and "Merchant Center disapproves" in quality, quality  # content_quality_sql
    assert f"{n:,} rows aggregated in BigQuery" in quality
    colours = artifacts_text(ask_with_catalog_context(srv.url, context, "How well are colours filled in?"))
    assert "was not run" not in colours and "Fill rates across" in colours, colours  # attributes_sql
    # a skill without a SQL form (whichever is left: the list grows) says so instead of answering empty
    from agent.analysis.registry import IN_BIGQUERY, SKILLS

    # every skill has a SQL form now: a new skill without one fails here, and is then answered with the
    # line ("… was not run: it needs the catalog in memory", runner.OVER_LINE_TEXT) until it has one
    assert set(SKILLS) == IN_BIGQUERY


def test_above_the_line_demand_gaps_answer_from_bigquery(bq_emulator, dataset, start_server):  # noqa: F811
    """demand_gaps has a SQL form of its own side (agent.analysis.demand_sql): above the line it answers
    from the Best sellers report and the aggregated catalog instead of saying it was not run. The line is
    set between the two: the report (a few hundred ranked rows) is read into memory, as it must be."""
    where, n = dataset
    tables = bq_seed.create_bestsellers_tables(bq_emulator.client, bq_emulator.project, where.split(".")[1], 555)
    srv = start_server(
        {
            **bq_emulator.env,
            "ALLOWED_CATALOG_PREFIXES": f"bq://{where}",
            "BIGQUERY_IN_MEMORY_BYTES": "200000",
            "DEMAND_URI": f"bq://{tables['products']}",
        }
    )
    context = {"merchant_id": "555", "catalog_uri": f"bq://{where}"}
    answer = artifacts_text(
        ask_with_catalog_context(srv.url, context, "What are shoppers buying in outdoor furniture that I don't carry?")
    )
    assert "was not run" not in answer and f"{n:,} rows aggregated in BigQuery" in answer
    assert "not carried" in answer and "Sunvale Coastal Outdoor Chair" in answer
