"""content_quality both ways on the same BigQuery table: read into memory (under the size line) and
checked in BigQuery (above it, agent.analysis.content_quality_sql), against the emulator on loopback.

The table is the demo catalog's offers in the transfer schema (every offer carrying its Google
category, the decision in gaps_sql's docstring) with every check made to fail somewhere: blank and
over-long titles, missing images, descriptions and brands, zero and missing prices, GTINs with a wrong
check digit, letters, spaces or a wrong length, a valid GTIN-8, duplicate offer ids, sale prices not
below the price, over-long descriptions. Table rows, findings, the Markdown text and the A2UI messages
must be identical, on the whole catalog and scoped.
"""

from __future__ import annotations

import pytest

from agent.analysis import content_quality, planner
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import IN_BIGQUERY
from agent.catalog import taxonomy as taxonomy_mod
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.bq_pushdown import assert_identical, both_ways, load, run_skill

QUESTIONS = (
    "Is my catalog ready for Google Shopping?",
    "How complete is my outdoor furniture data?",
    "Which products in furniture are missing images or GTINs?",
)
BAD_GTINS = ("4006381333932", "40063813339A", " ", "400638133393", "96385074", "12345678901231", "0400638133393")


def _edge(i: int, row: dict) -> dict:
    """Row i made to fail one check or another (and some to pass them on the edge)."""
    kind = i % 13
    if kind == 1:
        return dict(row, title="   " if i % 2 else "x" * (content_quality.MAX_TITLE + 1))
    if kind == 2:
        return dict(row, image_link=None if i % 2 else "  ")
    if kind == 3:
        return dict(row, price=dict(row["price"], value="0") if row["price"] else None)
    if kind == 4:
        return dict(row, gtin=BAD_GTINS[(i // 13) % len(BAD_GTINS)])
    if kind == 5:
        return dict(row, description=" \t" if i % 2 else "d" * (content_quality.MAX_DESCRIPTION + 1))
    if kind == 6:
        return dict(row, brand="  " if i % 2 else None)
    if kind == 7 and row["price"]:
        return dict(row, sale_price={"value": row["price"]["value"], "currency": row["price"]["currency"]})
    if kind == 8:
        return dict(row, gtin=None)
    return row


def _rows() -> list[dict]:
    out = [_edge(i, r) for i, r in enumerate(bq_seed.demo_products_rows_with_google_ids())]
    for k in range(0, 60, 20):  # the same offer id twice (another feed label: its own primary key)
        out.append(dict(out[k], product_id=out[k]["product_id"].replace(":US:", ":CA:")))
    out.append(dict(out[3]))  # a row twice, primary key and all: rows are counted as rows on both paths
    twice = bq_seed.destinations(3)  # a destination listed twice, disapproved in both entries: one row
    out.append(dict(out[7], destinations=[*twice, twice[0]], issues=[*out[7]["issues"], *out[3]["issues"] * 2]))
    return out


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=_rows())


def test_content_quality_is_pushed_down():
    assert "content_quality" in IN_BIGQUERY


@pytest.mark.parametrize("question", QUESTIONS)
def test_content_quality_identical_in_memory_and_in_bigquery(bq_emulator, table_uri, question):  # noqa: F811
    pair = both_ways(bq_emulator.env, table_uri, "content_quality", question)
    assert "content_quality" in pair.skills
    assert_identical(pair)
    a = pair.memory
    checks = {r["Item"] for r in a.table.to_pylist() if r["Section"] == "Check"}
    sections = {r["Section"] for r in a.table.to_pylist()}
    assert {"Completeness", "Check", content_quality.MC_SECTION, "Completeness by category"} <= sections
    if question == QUESTIONS[0]:  # every check fails somewhere in the fixture, but the SKU one (a transfer
        # has no SKU) and the category one (every offer carries its Google category: the equality's premise)
        unfailed = ("duplicate_sku", "missing_category")
        assert checks == {label for check_id, label, _ in content_quality.CHECKS if check_id not in unfailed}


def test_gtin_check_digits_agree_with_the_in_memory_rule(bq_emulator, table_uri):  # noqa: F811
    """The SQL check digit on every GTIN of the fixture against content_quality.gtin_valid."""
    import pyarrow as pa

    from agent.analysis.content_quality_sql import _GTIN_OK

    gtins = sorted({r["gtin"].strip() for r in _rows() if r["gtin"] and r["gtin"].strip()})
    sql = f"SELECT gtin, {_GTIN_OK} AS ok FROM UNNEST(@gtins) AS gtin"
    from google.cloud.bigquery import ArrayQueryParameter, QueryJobConfig

    job = bq_emulator.client.query(
        sql, job_config=QueryJobConfig(query_parameters=[ArrayQueryParameter("gtins", "STRING", gtins)])
    )
    got = {r["gtin"]: bool(r["ok"]) for r in job.result()}
    want = dict(zip(gtins, content_quality.gtin_valid(pa.array(gtins)).to_pylist()))
    assert got == want and any(want.values()) and not all(want.values())


def test_the_cap_is_checked_on_the_columns_content_quality_reads(bq_emulator, table_uri):  # noqa: F811
    """content_quality reads titles, descriptions, images, GTINs and the records beyond the pushdown's own
    columns: a cap that admits those (Pushdown.estimate_for) runs it, one byte less refuses it before any
    query runs, while assortment_gaps (fewer columns) still runs under the smaller cap."""
    from agent.analysis import content_quality_sql, gaps
    from agent.catalog.bigquery import BytesCapExceeded

    tax = taxonomy_mod.load()
    probe = load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0").own.sources[0].pushdown
    need = probe.estimate_for(content_quality_sql.READS)
    assert need > probe.estimate
    whole = planner.plan(QUESTIONS[0], load(bq_emulator.env, table_uri).own.table, tax, None).scope
    ok = load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0", BIGQUERY_MAXIMUM_BYTES_BILLED=str(need))
    assert run_skill("content_quality", ok, whole, tax).table.num_rows > 1
    short = load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0", BIGQUERY_MAXIMUM_BYTES_BILLED=str(need - 1))
    assert short.problems == []  # the gaps columns fit: the source loads
    with pytest.raises(BytesCapExceeded) as caught:
        run_skill("content_quality", short, whole, tax)
    assert caught.value.estimate == need and short.own.sources[0].bytes_scanned == 0
    own = short.own
    pushed_gaps = gaps.run(
        SkillInput(own=own.table, reference=None, scope=whole, taxonomy=tax, sources=tuple(own.sources))
    )
    assert pushed_gaps.table.num_rows > 1


@pytest.fixture(scope="module")
def no_gtin_uri(bq_emulator):  # noqa: F811
    """The same messy offers with no GTIN on any of them (content_quality.counts_gtin)."""
    rows = [dict(r, gtin=None) for r in _rows()]
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)


@pytest.mark.parametrize("question", QUESTIONS[:2])
def test_no_gtin_anywhere_is_counted_without_it_both_ways(bq_emulator, no_gtin_uri, question):  # noqa: F811
    """With no GTIN in the scope both paths count completeness without the GTIN checks, from the same
    two counts, and say so; the fixture's other checks still make some rows incomplete."""
    pair = both_ways(bq_emulator.env, no_gtin_uri, "content_quality", question)
    assert_identical(pair)
    rows = pair.memory.table.to_pylist()
    assert 0 < rows[0]["Complete"] < 100
    checks = {r["Item"]: r for r in rows if r["Section"] == "Check"}
    by_category = sum(r["Affected rows"] for r in rows if r["Section"] == "Completeness by category")
    assert checks["Missing GTIN"]["Affected rows"] > rows[0]["Affected rows"]  # every row lacks one, fewer fail
    assert by_category == rows[0]["Affected rows"]  # per category without the GTIN checks too
    assert "quality.no_gtin" in {f.code for f in pair.memory.findings}
    assert "missing_gtin" not in pair.pushed.thresholds["required_for_complete"]
