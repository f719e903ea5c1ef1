"""The sale's schedule of a Merchant Center transfer table (`sale_price_effective_start_date` /
`_end_date`, two TIMESTAMPs) is read on both paths, so a sale price outside its window is not taken for
the current price: read into memory it becomes the canonical `sale_start`/`sale_end` (UTC days) that
common.sales applies at the snapshot partition's day; aggregated in BigQuery the offer columns
`sale_start`/`sale_end` of agent.analysis.sql_run give the same days per offer. A generic table or CSV
export with the transfer's column names maps them too."""

from __future__ import annotations

import datetime as dt

import pytest

from agent import config as config_mod
from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
from agent.catalog.sources import load_catalog_inputs
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

MERCHANT = "123456"


@pytest.fixture(scope="module")
def seeded(bq_emulator):  # noqa: F811
    today = dt.datetime.now(dt.timezone.utc).date()
    rows = bq_seed.with_sales(bq_seed.demo_products_rows_with_google_ids(), today)
    uri = "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)
    return uri, rows


def _load(env, uri, line):
    settings = config_mod.load({**env, "BIGQUERY_IN_MEMORY_BYTES": line}).bigquery
    inputs = load_catalog_inputs([], catalog_uri=uri, merchant_id=MERCHANT, bigquery=settings)
    assert inputs.problems == []
    return inputs


def _day(stamp):
    return dt.date.fromisoformat(stamp[:10]) if stamp else None


def test_the_schedule_is_read_into_memory_and_applied_at_the_partition_day(bq_emulator, seeded):  # noqa: F811
    uri, rows = seeded
    inputs = _load(bq_emulator.env, uri, str(1 << 40))
    table, ev = inputs.own.table, inputs.own.sources[0]
    by_offer = {r["offer_id"]: r for r in rows}
    got = dict(
        zip(table["variant_id"].to_pylist(), zip(table["sale_start"].to_pylist(), table["sale_end"].to_pylist()))
    )
    sales = [r for r in rows if r.get("sale_price")]
    assert len(sales) > 100
    for r in sales:
        want = (_day(r.get("sale_price_effective_start_date")), _day(r.get("sale_price_effective_end_date")))
        assert got[r["offer_id"]] == want
    when = ev.snapshot_date
    assert when is not None and common.as_of(table, inputs.own.sources) == when
    on_sale = common.sales(table, when).on_sale
    offer_ids = table["variant_id"].to_pylist()

    def current(r) -> bool:
        start, end = _day(r.get("sale_price_effective_start_date")), _day(r.get("sale_price_effective_end_date"))
        return (start is None or start <= when) and (end is None or end >= when)

    want_on = {r["offer_id"] for r in sales if current(r)}
    assert {o for o, flag in zip(offer_ids, on_sale.tolist()) if flag} == want_on
    assert 0 < len(want_on) < len(sales)  # ended and not-yet-begun sales are not current
    assert set(by_offer) >= want_on
    assert "sale_price_effective_start_date" in ev.date_columns


def test_price_ladder_counts_only_current_sales(bq_emulator, seeded):  # noqa: F811
    """The share on sale with the schedule read, against the same table with the schedule blanked
    (every sale price then current): their ratio is that of the current sales to all sale prices."""
    import pyarrow as pa

    uri, rows = seeded
    inputs = _load(bq_emulator.env, uri, str(1 << 40))
    tax = taxonomy_mod.load()
    table, when = inputs.own.table, inputs.own.sources[0].snapshot_date

    def on_sale(own) -> float:
        result = SKILLS["price_ladder"].run(
            SkillInput(own=own, reference=None, scope=Scope(), taxonomy=tax, sources=tuple(inputs.own.sources))
        )
        return result.table.to_pylist()[0]["On sale"]

    blank = table
    for name in ("sale_start", "sale_end"):
        blank = blank.set_column(blank.schema.get_field_index(name), name, pa.nulls(blank.num_rows, pa.date32()))
    sales = [r for r in rows if r.get("sale_price")]
    current = [
        r
        for r in sales
        if (_day(r.get("sale_price_effective_start_date")) or when)
        <= when
        <= (_day(r.get("sale_price_effective_end_date")) or when)
    ]
    with_schedule, without = on_sale(table), on_sale(blank)
    assert 0 < with_schedule < without
    assert with_schedule / without == pytest.approx(len(current) / len(sales), abs=0.01)


def test_the_offer_columns_give_the_same_days_in_bigquery(bq_emulator, seeded):  # noqa: F811
    uri, rows = seeded
    pushed = _load(bq_emulator.env, uri, "0")
    pushdown = pushed.own.sources[0].pushdown
    assert pushdown is not None
    sql = (
        sql_run.offers(["sale_start", "sale_end"])
        + "SELECT sale_start AS s, sale_end AS e, COUNT(*) AS n FROM scoped GROUP BY 1, 2"
    )
    got = {(r["s"], r["e"]): int(r["n"]) for r in pushdown.query(sql)}
    want: dict = {}
    for r in rows:
        key = (_day(r.get("sale_price_effective_start_date")), _day(r.get("sale_price_effective_end_date")))
        want[key] = want.get(key, 0) + 1
    assert got == want and len(want) == len(bq_seed.SALE_SCHEDULES)


def test_a_csv_export_of_the_transfer_maps_the_schedule_columns():
    text = (
        "id,title,price,sale_price,sale_price_effective_start_date,sale_price_effective_end_date\n"
        "a,Teak chair,100.00 USD,80.00 USD,2026-11-01 08:00:00 UTC,2026-11-10 08:00:00 UTC\n"
        "b,Teak bench,100.00 USD,80.00 USD,,\n"
    )
    table, _ = read_table_bytes(text.encode(), "export.csv", KIND_ATTACHED)
    assert table["sale_start"].to_pylist() == [dt.date(2026, 11, 1), None]
    assert table["sale_end"].to_pylist() == [dt.date(2026, 11, 10), None]
    assert common.sales(table, dt.date(2026, 11, 28)).on_sale.tolist() == [False, True]


def test_the_narrow_bench_table_keeps_what_the_skills_read(bq_emulator):  # noqa: F811
    """bench/bench_bigquery.py --narrow: titles, GTINs, sale prices and their schedule are read from it, so
    the in-memory path's figures there are not a lower bound for the skills that read them."""
    rows = bq_seed.with_sales(bq_seed.demo_products_rows_with_google_ids())
    uri = "bq://" + bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=rows, schema=bq_seed.narrow_schema()
    )
    table = _load(bq_emulator.env, uri, str(1 << 40)).own.table
    assert table.num_rows == len(rows)
    for column in ("title", "gtin", "sale_price", "sale_start", "sale_end", "brand", "price"):
        assert table[column].null_count < table.num_rows, column
    assert table["sale_price"].null_count == sum(1 for r in rows if not r.get("sale_price"))


@pytest.mark.parametrize("question", ("How is my catalog priced?", "How is my patio furniture priced?"))
def test_price_ladder_judges_the_schedule_alike_both_ways(bq_emulator, seeded, question):  # noqa: F811
    """price_ladder_sql applies the same window at the partition day as common.sales in memory: the
    same answer, and fewer variants on sale than sale prices (the ended and not-yet-begun ones)."""
    from tests import bq_pushdown

    uri, rows = seeded
    got = bq_pushdown.both_ways(bq_emulator.env, uri, "price_ladder", question)
    bq_pushdown.assert_identical(got)  # table, findings, notes, text and A2UI
    every = sum(1 for r in rows if r.get("sale_price"))
    total = got.memory.table.to_pylist()[0]
    assert total["On sale"] and 0 < total["On sale"] * total["Priced variants"] / 100 < every
