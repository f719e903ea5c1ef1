"""bq:// sources against a real BigQuery engine on loopback (tests/bigquery_emulator.py), seeded with
Merchant Center transfer tables generated from the demo catalog (tests/bq_seed.py)."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt

import pytest

from agent import bqref
from agent import config as config_mod
from agent.catalog.sources import load_catalog_inputs, load_demo
from agent.render.footer import source_line
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

MERCHANT = 123456


@pytest.fixture
def settings(bq_emulator):  # noqa: F811
    found = config_mod.load(bq_emulator.env).bigquery
    bqref.configure(found)
    yield found
    bqref.configure(None)


def _offers(table) -> collections.Counter:
    """What a merchant would compare: (variant, title, price, currency, availability, brand) per row."""
    cols = [table[c].to_pylist() for c in ("variant_id", "title", "price", "currency", "availability", "brand")]
    return collections.Counter(zip(*(list(map(str, c)) for c in cols)))


def test_transfer_table_reads_as_the_demo_catalog(bq_emulator, settings):  # noqa: F811
    where = bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows())
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{where}", merchant_id=str(MERCHANT))
    assert inputs.problems == []
    got = inputs.own.table
    demo, _ = load_demo()
    import pyarrow.compute as pc

    active = demo.filter(pc.equal(demo["status"].cast("string"), "active"))
    assert got.num_rows == active.num_rows > 0
    assert _offers(got) == _offers(active)
    # product identity is the item group: as many products as the demo's active ones
    assert (
        pc.count_distinct(got["product_key"]).as_py() == pc.count_distinct(active["product_id"].cast("string")).as_py()
    )
    ev = inputs.own.sources[0]
    assert ev.kind == "BigQuery" and ev.format == "Merchant Center Products transfer table"
    assert ev.snapshot_date is not None and "_PARTITIONDATE" in ev.snapshot_origin
    line = source_line(ev)
    assert f"{got.num_rows:,} rows read" in line and "scanned" in line


def test_only_the_newest_partition_is_read(bq_emulator, settings):  # noqa: F811
    old = bq_seed.demo_products_rows(day="2026-11-27")
    new = [dict(r, offer_id=r["offer_id"] + "-n") for r in bq_seed.demo_products_rows(day="2026-11-28")[:200]]
    where = bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=old + new, field="product_data_timestamp"
    )
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{where}.Products_{MERCHANT}")
    table = inputs.own.table
    assert table.num_rows == 200
    assert all(v.endswith("-n") for v in table["variant_id"].to_pylist())
    assert inputs.own.snapshot_date == dt.date(2026, 11, 28)


def test_a_read_over_the_bytes_cap_is_not_run_and_the_answer_says_so(bq_emulator, settings):  # noqa: F811
    where = bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows()[:50]
    )
    capped = dataclasses.replace(settings, maximum_bytes_billed=100)
    bqref.configure(capped)
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{where}", merchant_id=str(MERCHANT))
    assert inputs.own is None
    assert len(inputs.problems) == 1 and "BIGQUERY_MAXIMUM_BYTES_BILLED" in inputs.problems[0]
    assert "100 bytes cap" in inputs.problems[0]
    # the same table under a cap it fits is read
    bqref.configure(dataclasses.replace(settings, maximum_bytes_billed=10**9))
    assert load_catalog_inputs([], catalog_uri=f"bq://{where}", merchant_id=str(MERCHANT)).own.table.num_rows == 50


def test_over_the_size_line_nothing_is_downloaded(bq_emulator, settings):  # noqa: F811
    where = bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows()[:50]
    )
    bqref.configure(dataclasses.replace(settings, in_memory_bytes=10))
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{where}", merchant_id=str(MERCHANT))
    # a transfer table is aggregated where it lies (tests/test_bigquery_pushdown.py): no row comes back
    assert inputs.problems == [] and inputs.own.table.num_rows == 0
    ev = inputs.own.sources[0]
    assert ev.pushdown is not None and ev.rows_read == 50 and ev.bytes_scanned == 0


def test_a_dataset_without_a_merchant_id_or_a_missing_table_is_a_problem_not_a_crash(bq_emulator, settings):  # noqa: F811
    where = bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows()[:5]
    )
    for uri, merchant in ((f"bq://{where}", None), (f"bq://{where}", "999"), (f"bq://{where}.Nope", None)):
        inputs = load_catalog_inputs([], catalog_uri=uri, merchant_id=merchant)
        assert inputs.own is None and inputs.problems == ["The configured catalog could not be read."]


def test_any_other_table_maps_through_the_generic_header_aliases(bq_emulator, settings):  # noqa: F811
    """Not a transfer table: its scalar columns go through the same header profiles as a CSV's."""
    from google.cloud import bigquery

    client = bq_emulator.client
    ds = f"{bq_emulator.project}.generic_{id(settings) % 100000}"
    client.create_dataset(ds, exists_ok=True)
    F = bigquery.SchemaField
    table = client.create_table(
        bigquery.Table(
            f"{ds}.my_products",
            schema=[
                F("sku", "STRING"),
                F("title", "STRING"),
                F("brand", "STRING"),
                F("price", "FLOAT"),
                F("currency", "STRING"),
                F("category", "STRING"),
                F("internal_notes", "STRING"),
                F("tags", "STRING", mode="REPEATED"),
            ],
        )
    )
    demo = [r for r in bq_seed.demo_rows() if r["price"]][:40]
    client.insert_rows_json(
        table,
        [
            {
                "sku": r["sku"],
                "title": r["title"],
                "brand": r["brand"],
                "price": float(r["price"]),
                "currency": r["currency"],
                "category": r["category"],
                "internal_notes": "x",
                "tags": ["a"],
            }
            for r in demo
        ],
    )
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{ds}.my_products")
    got = inputs.own.table
    assert inputs.problems == [] and got.num_rows == len(demo)
    assert sorted(zip(got["sku"].to_pylist(), got["price"].to_pylist())) == sorted(
        (r["sku"], float(r["price"])) for r in demo
    )
    ev = inputs.own.sources[0]
    assert ev.format.endswith("(BigQuery table)") and ev.snapshot_date is None
    assert "internal_notes" not in ev.columns and "tags" not in ev.columns  # projected: only what is used
    # over the line, a table of another schema is not pushed down (its columns' meaning is not known
    # to SQL): the answer names the line, and nothing is downloaded
    bqref.configure(dataclasses.replace(settings, in_memory_bytes=10))
    over = load_catalog_inputs([], catalog_uri=f"bq://{ds}.my_products")
    assert over.own is None and "BIGQUERY_IN_MEMORY_BYTES" in over.problems[0]


def test_a_partition_larger_than_a_grpc_message_is_read_whole(bq_emulator, settings):  # noqa: F811
    """Read streams arrive in messages of 65,536 rows; wide transfer rows make them pass 4 MB."""
    base = bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows())
    big = bq_seed.create_copies_table(bq_emulator.client, bq_emulator.project, base, 12, merchant_id=MERCHANT)
    inputs = load_catalog_inputs([], catalog_uri=f"bq://{big}", merchant_id=str(MERCHANT))
    assert inputs.problems == []
    n = len(bq_seed.demo_products_rows())
    assert inputs.own.table.num_rows == 12 * n > 32_000


def test_a_table_that_is_no_catalog_is_read_raw_for_its_own_reader(bq_emulator, settings):  # noqa: F811
    """read_newest_partition: what a Best sellers reader builds on (projected, newest partition only)."""
    from google.cloud import bigquery

    from agent.bqref import parse_bq_uri
    from agent.catalog.bigquery import read_newest_partition

    client = bq_emulator.client
    ds = f"{bq_emulator.project}.bestsellers_{id(client) % 100000}"
    client.create_dataset(ds, exists_ok=True)
    F = bigquery.SchemaField
    t = bigquery.Table(
        f"{ds}.BestSellersBrandWeekly_{MERCHANT}",
        schema=[
            F("rank_timestamp", "TIMESTAMP"),
            F("rank_id", "STRING"),
            F("rank", "INTEGER"),
            F("brand", "STRING"),
            F("category_id", "INTEGER"),
            F("relative_demand", "RECORD", fields=[F("bucket", "STRING")]),
        ],
    )
    t.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY, field="rank_timestamp")
    client.create_table(t)
    rows = [
        {
            "rank_timestamp": f"2026-11-{d}T00:00:00Z",
            "rank_id": f"{d}:{i}",
            "rank": i,
            "brand": f"B{i}",
            "category_id": 5,
            "relative_demand": {"bucket": "HIGH"},
        }
        for d in (21, 28)
        for i in range(1, 4)
    ]
    client.insert_rows_json(t, rows)
    table, plan = read_newest_partition(
        parse_bq_uri(f"bq://{ds}.BestSellersBrandWeekly_{MERCHANT}"),
        settings,
        ["rank", "brand", "relative_demand", "no_such_column"],
    )
    assert plan.partition == dt.date(2026, 11, 28) and table.column_names == ["rank", "brand", "relative_demand"]
    assert sorted(table["rank"].to_pylist()) == [1, 2, 3]
