"""The parallel reads of large files give exactly the table the plain reads give (issue 16, item 2).

A large CSV without quoted newlines is parsed as one single-threaded Arrow read per vCPU, each of its
own slice of the bytes (`csvread._split_read`); a large generic Parquet table is read in column
groups, its product ids unified and its long text dictionaries combined while Arrow reads the next
group (`ingest._read_overlapped`). Both are checked against the plain path on generated files with
what makes them hard: products split across slices and row groups, values that cleaning changes,
blanks, non-ASCII text, and a quoted newline exactly where the bytes would be cut.
"""

from __future__ import annotations

import csv
import io
import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from agent.catalog import csvread, ingest, parallel
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes

BRANDS = ["Acme", " Acme ", "Nordic  Home", "Café Olé", "", "ACME", "Zeta\u00a0Co"]


def _rows(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        product = rng.randint(0, n // 3)
        rows.append(
            [
                f"P{product}" if rng.random() > 0.01 else "",
                f"V{i}",
                f"  Item {product} Ü " if rng.random() < 0.1 else f"Item {product}",
                rng.choice(["", "plain text", "a longer description, with commas", "ümlaut and ß"]),
                rng.choice(BRANDS),
                f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d}" if rng.random() > 0.02 else "",
                str(rng.randint(0, 40)),
                rng.choice(["in stock", "out of stock", "preorder", ""]),
            ]
        )
    return rows


HEADER = ["item_group_id", "id", "title", "description", "brand", "price", "quantity", "availability"]


def _csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return out.getvalue().encode()


@pytest.fixture
def large(monkeypatch):
    """Files of a few MB count as large: the fast paths are taken, with many Arrow blocks."""
    monkeypatch.setattr(csvread, "_SMALL", 64 * 1024)
    monkeypatch.setattr(csvread, "_BLOCK", 64 * 1024)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1000)


def _same_table(a: pa.Table, b: pa.Table) -> bool:
    """Same schema and the same value in every cell. (Where the bytes are cut moves Arrow's block
    boundaries, so a dictionary column's chunks and dictionary order may differ; its values and the
    integer product keys may not.)"""
    return a.schema == b.schema and all(a[c].to_pylist() == b[c].to_pylist() for c in a.column_names)


def _plain_csv(monkeypatch) -> None:
    monkeypatch.setattr(csvread, "_split_read", lambda *args, **kwargs: None)


@pytest.mark.parametrize("slots", [2, 3, 5])
def test_split_csv_read_equals_the_whole_file_read(large, monkeypatch, slots):
    data = _csv(_rows(slots, 40_000))
    monkeypatch.setattr(parallel, "parallel_slots", lambda: slots)
    calls = []
    real = csvread._split_read
    monkeypatch.setattr(csvread, "_split_read", lambda *a, **k: calls.append(1) or real(*a, **k))
    split, split_ev = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    assert calls  # the fast path was taken
    _plain_csv(monkeypatch)
    whole, whole_ev = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    assert _same_table(split, whole) and split_ev == whole_ev
    assert split["product_key"].equals(whole["product_key"])
    assert split_ev.rows_read == 40_000 == sum(1 for _ in csv.reader(io.StringIO(data.decode()))) - 1


def test_a_quoted_newline_at_the_cut_falls_back_to_the_quote_aware_read(large, monkeypatch):
    before, after = _rows(1, 3000), _rows(2, 3000)
    long_value = "\n".join(f"line {i}" for i in range(4000))  # spans the middle (within one Arrow block)
    data = _csv(before + [["P1", "VX", "Long one", long_value, "Acme", "1.00", "1", "in stock"]] + after)
    middle = data.find(b"\n", len(data) // 2)
    assert data.rfind(b'"', 0, middle) > data.rfind(b"\nP", 0, middle)  # the cut would fall inside the quotes
    wanted = ingest._column_types(ingest.headers.detect(HEADER), HEADER)
    assert csvread._split_read(data, csvread.dedupe(HEADER), wanted, ",") is None
    table, ev = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    assert ev.rows_read == 6001 and ev.rows_skipped == 0
    assert table["description"][3000].as_py() == long_value


def _parquet(rows: list[list[str]], row_group_size: int) -> bytes:
    columns = list(zip(*rows))
    table = pa.table(
        {
            "item_group_id": pa.array([v or None for v in columns[0]]),
            "id": pa.array(columns[1]),
            "title": pa.array(columns[2]),
            "description": pa.array([v or None for v in columns[3]]),
            "brand": pa.array(columns[4]).dictionary_encode(),
            "price": pa.array([float(v) if v else None for v in columns[5]]),
            "quantity": pa.array([int(v) for v in columns[6]]),
            "availability": pa.array(columns[7]).dictionary_encode(),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=row_group_size)
    return sink.getvalue()


@pytest.mark.parametrize("row_group_size", [997, 5000])
def test_overlapped_parquet_read_equals_the_plain_read(large, monkeypatch, row_group_size):
    data = _parquet(_rows(row_group_size, 30_000), row_group_size)
    calls = []
    real = ingest._read_overlapped

    def spy(*args):
        table, unified, early = real(*args)
        calls.append(unified)
        return table, unified, early

    monkeypatch.setattr(ingest, "_read_overlapped", spy)
    overlapped, ev = read_table_bytes(data, "feed.parquet", KIND_ATTACHED)
    assert calls == [frozenset({"item_group_id"})]  # the overlapped path was taken

    def plain(data, wanted, as_dict, det):
        return pq.read_table(pa.BufferReader(data), columns=wanted, read_dictionary=as_dict), frozenset(), None

    monkeypatch.setattr(ingest, "_read_overlapped", plain)
    whole, whole_ev = read_table_bytes(data, "feed.parquet", KIND_ATTACHED)
    assert _same_table(overlapped, whole) and ev == whole_ev
    assert overlapped["product_key"].equals(whole["product_key"])
    # every product once: one key per distinct id (rows without an id are products of their own)
    ids = pc.drop_null(overlapped["product_id"]).cast(pa.string())
    blank = overlapped["product_id"].null_count
    assert len(pc.unique(overlapped["product_key"])) == len(pc.unique(ids)) + blank


def test_overlapped_parquet_read_holds_each_dictionary_column_once(large, monkeypatch):
    """A dictionary column of a large generic Parquet table (the brand, stored dictionary-encoded) comes
    from the overlapped read as one chunk, and the canonical column reuses that chunk's indices: the
    read table does not hold the row groups' pieces beside a copy until the ingest ends (issue 16
    item 2, peak memory). The brands are clean here: a value the cleaning changes (" Acme ") is
    re-encoded, into new indices, whatever the read gave. Availability is parsed into new codes
    either way and is not asked."""
    clean = ["Acme", "Nordic Home", "Café Olé", "Zeta Co"]
    rows = [[*row[:4], clean[i % len(clean)], *row[5:]] for i, row in enumerate(_rows(997, 30_000))]
    data = _parquet(rows, 997)
    assert pq.ParquetFile(io.BytesIO(data)).metadata.num_row_groups > 1
    seen = {}
    real = ingest.normalise

    def spy(table, *args, **kwargs):
        seen["read"] = table
        return real(table, *args, **kwargs)

    monkeypatch.setattr(ingest, "normalise", spy)
    canonical_table, _ = read_table_bytes(data, "feed.parquet", KIND_ATTACHED)
    read_brand = seen["read"]["brand"]
    assert read_brand.num_chunks == 1
    out = canonical_table["brand"]
    assert out.num_chunks == 1
    assert out.chunk(0).indices.buffers()[1].address == read_brand.chunk(0).indices.buffers()[1].address


def test_a_large_read_is_trimmed_before_its_normalisation(large, monkeypatch):
    """`heap.after_read`: a large Parquet file's read hands its freed pages back (one `malloc_trim`, on
    the pool) before the canonical table is built; a smaller file is not trimmed, and a CSV only when
    the file is CSV_TRIM_SHARE of the instance's memory or more."""
    from agent.catalog import heap

    trims: list[int] = []
    futures = []
    real_after_read = heap.after_read

    def after_read(file_bytes, rows, csv=False):
        future = real_after_read(file_bytes, rows, csv=csv)
        futures.append(future)
        if future is not None:
            future.result()
        return future

    monkeypatch.setattr(heap, "trim", lambda: trims.append(1))
    monkeypatch.setattr(heap, "after_read", after_read)
    data = _parquet(_rows(5, 30_000), 997)
    monkeypatch.setattr(heap, "TRIM_AFTER_READ_BYTES", len(data))
    read_table_bytes(data, "feed.parquet", KIND_ATTACHED)
    assert futures[-1] is not None and trims == [1]
    monkeypatch.setattr(heap, "TRIM_AFTER_READ_BYTES", len(data) + 1)  # one byte too small
    read_table_bytes(data, "feed.parquet", KIND_ATTACHED)
    assert futures[-1] is None and trims == [1]
    buffer = io.StringIO()
    csv.writer(buffer).writerows([HEADER, *_rows(6, 20_000)])
    text = buffer.getvalue().encode()
    monkeypatch.setattr(heap, "TRIM_AFTER_READ_BYTES", 1)
    monkeypatch.setattr(heap, "_BUDGET", [int(len(text) / heap.CSV_TRIM_SHARE) + 1])  # a share too small
    read_table_bytes(text, "feed.csv", KIND_ATTACHED)
    assert futures[-1] is None and trims == [1]
    heap.configure(int(len(text) / heap.CSV_TRIM_SHARE))  # the file is the share of the instance's memory
    read_table_bytes(text, "feed.csv", KIND_ATTACHED)
    assert futures[-1] is not None and trims == [1, 1]
