"""`image_url` is a dictionary column of the canonical table (issue 16 item 2).

A Shopify export names one image per product, filled down to its variants; decoding that to plain
strings was ~18 ms of a fresh 1M-variant ingest and ~130 MB of cache at 5M. A source whose links are
plain per-row strings gets a dictionary of one entry per row, numbered rather than hashed
(`values.per_row_dictionary`). What must not change: the values, the blanks a readiness check counts,
and the canonical Parquet tables kept before (plain-string `image_url`), still read as canonical.
"""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from agent.analysis.common import blank
from agent.catalog import canonical
from agent.catalog.evidence import KIND_ATTACHED, KIND_GCS
from agent.catalog.ingest import read_table_bytes
from agent.catalog.values import per_row_dictionary
from tests.helpers import csv_bytes

GMC_HEADER = ["id", "title", "description", "link", "image_link", "price", "availability", "brand"]


def _feed(rows: int) -> bytes:
    images = ["https://shop.example/a.jpg", "", "  ", "https://shop.example/a.jpg"]
    return csv_bytes(
        GMC_HEADER,
        [
            [
                f"S{i}",
                f"Chair {i}",
                "A chair",
                f"https://shop.example/p/{i}",
                images[i % 4],
                "10.00 USD",
                "in stock",
                "Acme",
            ]
            for i in range(rows)
        ],
    )


def test_the_canonical_image_url_is_a_dictionary():
    assert canonical.SCHEMA.field("image_url").type == pa.dictionary(pa.int32(), pa.string())


def test_per_row_links_are_numbered_not_hashed_and_keep_their_values():
    table, _ = read_table_bytes(_feed(40), "feed.csv", KIND_ATTACHED)
    column = table["image_url"]
    assert pa.types.is_dictionary(column.type)
    # one entry per row, repeats and all: no hash pass went over the links
    assert sum(len(chunk.dictionary) for chunk in column.chunks) == table.num_rows
    # long text is kept as written (not trimmed), and a blank link is still blank to a readiness check
    expected = ["https://shop.example/a.jpg", None, "  ", "https://shop.example/a.jpg"] * 10
    assert column.to_pylist() == expected
    assert blank(column).to_pylist() == [value is None or not value.strip() for value in expected]


def test_per_row_dictionary_moves_nulls_into_the_indices():
    strings = pa.chunked_array([pa.array(["a", None, "b"]), pa.array([None, "a"])])
    out = per_row_dictionary(strings)
    assert out.type == pa.dictionary(pa.int32(), pa.string())
    assert out.to_pylist() == strings.to_pylist()
    assert out.null_count == 2
    # a null lives in the indices, never as a dictionary entry that would look valid
    assert all(chunk.dictionary.null_count == 0 for chunk in out.chunks)


def test_a_shopify_image_filled_down_stays_one_entry_per_product():
    header = ["Handle", "Title", "Vendor", "Variant SKU", "Variant Price", "Image Src", "Option1 Name", "Option1 Value"]
    rows = []
    for p in range(5):
        rows.append([f"h{p}", f"Chair {p}", "Acme", f"S{p}-0", "10", f"https://cdn.example/{p}.jpg", "Size", "S"])
        rows += [[f"h{p}", "", "", f"S{p}-{v}", "10", "", "", size] for v, size in ((1, "M"), (2, "L"))]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export.csv", KIND_ATTACHED)
    column = table["image_url"]
    assert column.to_pylist() == [f"https://cdn.example/{p}.jpg" for p in range(5) for _ in range(3)]
    assert len(set(column.combine_chunks().dictionary.to_pylist())) == 5


def test_a_canonical_table_kept_with_plain_string_links_is_still_canonical():
    """A table saved before the change (plain-string `image_url`) takes the canonical fast path, and
    its links come back as the dictionary the schema now says, with the same values."""
    original, _ = read_table_bytes(_feed(12), "feed.csv", KIND_ATTACHED)
    fields = [pa.field("image_url", pa.string()) if f.name == "image_url" else f for f in original.schema]
    older = original.cast(pa.schema(fields))
    sink = io.BytesIO()
    pq.write_table(older, sink)
    again, evidence = read_table_bytes(sink.getvalue(), "saved.parquet", KIND_GCS)
    assert evidence.format == "canonical table (Parquet)"
    assert again.schema.equals(canonical.SCHEMA)
    assert again.to_pylist() == original.to_pylist()


def test_a_parquet_table_s_links_are_read_as_its_dictionary():
    """A warehouse table repeats each product's link on its variants; Parquet stores it
    dictionary-encoded, and it is read as that dictionary (ingest.PARQUET_DICT_ROLES), not as strings
    made a per-row dictionary: on the 1M bench table 331 MB parsed instead of 361 MB."""
    links = [f"https://cdn.example/{i // 4}.jpg" for i in range(400)]
    flat = pa.table(
        {
            "id": [f"V{i}" for i in range(400)],
            "item_group_id": [f"P{i // 4}" for i in range(400)],
            "title": [f"Chair {i // 4}" for i in range(400)],
            "price": [10.0] * 400,
            "image_link": links,
        }
    )
    sink = io.BytesIO()
    pq.write_table(flat, sink)
    table, _ = read_table_bytes(sink.getvalue(), "warehouse.parquet", KIND_GCS)
    column = table["image_url"]
    assert column.to_pylist() == links
    assert sum(len(chunk.dictionary) for chunk in column.chunks) == 100
