"""Parquet inputs: generic columns, key-value snapshot_date metadata, canonical round trip."""

from __future__ import annotations

import datetime as dt
import io

import pyarrow as pa
import pyarrow.parquet as pq

from agent.catalog import canonical
from agent.catalog.evidence import KIND_GCS
from agent.catalog.sources import read_table_bytes


def parquet(table: pa.Table, metadata: dict[bytes, bytes] | None = None) -> bytes:
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


GENERIC = pa.table(
    {
        "product_id": ["P1", "P1", "P2"],
        "sku": ["A", "B", "C"],
        "title": ["Teak chair ", "Teak chair", "Parasol"],
        "price": [199.0, 209.0, 89.5],
        "inventory_qty": pa.array([3, 0, None], pa.int64()),
        "category": ["Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs"] * 2 + ["Garden > Shade"],
        "updated_at": pa.array([dt.datetime(2026, 11, 20, 8), dt.datetime(2026, 11, 21, 9), None], pa.timestamp("s")),
    }
)


def test_parquet_key_value_snapshot_date_wins_when_newer():
    data = parquet(GENERIC, {b"snapshot_date": b"2026-11-28"})
    table, ev = read_table_bytes(data, "gs://b/acme/products.parquet", KIND_GCS)
    assert table.schema.equals(canonical.SCHEMA)
    assert ev.format == "Parquet" and ev.rows_read == 3
    assert (ev.snapshot_date, ev.snapshot_origin) == (dt.date(2026, 11, 28), "Parquet metadata snapshot_date")
    rows = table.to_pylist()
    assert [r["title"] for r in rows] == ["Teak chair", "Teak chair", "Parasol"]
    assert [r["availability"] for r in rows] == ["in_stock", "out_of_stock", "unknown"]
    assert rows[0]["product_key"] == rows[1]["product_key"] != rows[2]["product_key"]
    assert (rows[0]["google_category_id"], rows[0]["category_mapping"]) == (6828, "merchant_path")
    # "Garden > Shade" (a shade: window blinds) and "Parasol" disagree: unsure, so unmapped
    assert (rows[2]["google_category_id"], rows[2]["category_mapping"]) == (None, "unmapped")


def test_parquet_date_column_without_metadata():
    table, ev = read_table_bytes(parquet(GENERIC), "products.parquet", KIND_GCS)
    assert (ev.snapshot_date, ev.snapshot_origin) == (dt.date(2026, 11, 21), "column updated_at")
    assert table["snapshot_date"].to_pylist() == [dt.date(2026, 11, 20), dt.date(2026, 11, 21), None]


def test_parquet_without_any_date_says_so():
    table, ev = read_table_bytes(parquet(GENERIC.drop(["updated_at"])), "p.parquet", KIND_GCS)
    assert ev.snapshot_date is None and ev.snapshot_origin is None


def test_parquet_is_recognised_by_magic_bytes_whatever_the_name():
    table, ev = read_table_bytes(parquet(GENERIC), "latest-snapshot", KIND_GCS)
    assert ev.format == "Parquet" and table.num_rows == 3


def test_canonical_parquet_round_trips_without_renormalising():
    original, _ = read_table_bytes(parquet(GENERIC), "p.parquet", KIND_GCS)
    data = parquet(original, {b"snapshot_date": b"2026-11-29"})
    again, ev = read_table_bytes(data, "saved.parquet", KIND_GCS)
    assert ev.format == "canonical table (Parquet)"
    assert again.schema.equals(canonical.SCHEMA)
    # Same values row by row; a dictionary's layout (entry order, repeated entries) may differ
    # after Parquet re-encodes it, which is representation, not content.
    assert again.to_pylist() == original.to_pylist()
    assert (ev.snapshot_date, ev.snapshot_origin) == (dt.date(2026, 11, 29), "Parquet metadata snapshot_date")


def test_shopify_columns_in_parquet_use_the_shopify_reader():
    t = pa.table(
        {
            "Handle": ["h", "h"],
            "Title": ["Chair", None],
            "Variant Price": ["10", "12"],
            "Variant SKU": ["A", "B"],
            "Vendor": ["Acme", None],
        }
    )
    table, ev = read_table_bytes(parquet(t), "shop.parquet", KIND_GCS)
    assert ev.format == "Shopify product export (Parquet)"
    assert table["title"].to_pylist() == ["Chair", "Chair"] and table["brand"].to_pylist() == ["Acme", "Acme"]


def test_a_canonical_parquet_kept_before_the_merchant_center_columns_is_still_canonical():
    """A table kept before `disapproved_destinations` / `issue_codes` existed (canonical.ADDED_LATER) is
    read by the canonical fast path, those columns null: no re-normalising, no change of answer."""
    from agent.catalog import canonical

    original, _ = read_table_bytes(parquet(GENERIC), "p.parquet", KIND_GCS)
    older = original.drop_columns(list(canonical.ADDED_LATER))
    again, ev = read_table_bytes(parquet(older), "saved.parquet", KIND_GCS)
    assert ev.format == "canonical table (Parquet)"
    assert again.schema == canonical.SCHEMA
    assert again.drop_columns(list(canonical.ADDED_LATER)).to_pylist() == older.to_pylist()
    assert all(again[column].null_count == again.num_rows for column in canonical.ADDED_LATER)
