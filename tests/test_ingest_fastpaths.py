"""Ingest's fast paths give exactly what the general rule gives (issue 16, item 2: speed, same answers).

Each shortcut taken for speed — one-path own categories, the dictionary-level placeholder filter of the
mapping, combining own-category columns without re-splitting their paths — is checked against the
general rule written out here on many generated values, tricky ones included (placeholders in every
case and language, empty levels, non-breaking spaces, separators alone, control characters).

Over every corpus file, as is and with every large-file path taken: the order `finish` queues its
jobs in gives the table the old order gave; the byte-range text-cleaning
shortcut gives the Arrow IPC bytes the per-value test gives, and the overlapped Parquet read (column
groups by `pq.read_table`) gives the canonical table the one-piece `ParquetFile.read` gives. A
deliberately wrong shortcut (spaces let through) fails 13 of these comparisons.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agent.catalog import categorise, csvread, headers, ingest, parallel, taxonomy, values
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
from agent.catalog.readers import common
from agent.catalog.readers import own_categories as own

PIECES = sorted(own.PLACEHOLDERS) + [
    "Home",
    "Garden > Pots",
    "Tables, Chairs & Benches",
    "Gear/Bags",
    "Ü",
    "Straße",
    "K",
    "12",
    "-",
    "",
    " ",
    ">",
    " > ",
    "/",
    ";",
    ",",
    "\u00a0",
    "\t",
    "\x1c",
]


def _values(seed: int, n: int = 3000) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 4))]
        text = rng.choice(["", " ", " > ", "/", ";", ","]).join(parts)
        out.append("".join(c.upper() if rng.random() < 0.3 else c for c in text))
    return out


def _general_generic(value):
    if not value:
        return None
    paths = []
    for part in value.split(";"):
        for p in own._several_if_paths(part):
            paths.append(own._levels(p, ">") if ">" in p else own._levels(p, "/"))
    return own._join(paths)


def _general_single(value):
    return own._join([own._levels(value, ">")]) if value else None


def test_one_path_shortcuts_equal_the_general_parse():
    for v in _values(1) + [None, "", "Uncategorized", "UNCATEGORISED", " > ", "a > > b", "Sin categoría"]:
        assert own.generic(v) == _general_generic(v), v
        assert own.single(v) == _general_single(v), v


def test_combine_equals_joining_every_rows_paths():
    rng = random.Random(2)
    a = [own.generic(v) for v in _values(3, 400)]
    b = [own.single(v) for v in _values(4, 400)]
    rows_a = [rng.choice(a + [None]) for _ in range(5000)]
    rows_b = [rng.choice(b + [None]) for _ in range(5000)]
    got = own.combine(pa.array(rows_a).dictionary_encode(), pa.array(rows_b).dictionary_encode()).to_pylist()
    want = [
        own._join([p.split(" > ") for v in (x, y) if v for p in v.split(own.SEPARATOR)]) for x, y in zip(rows_a, rows_b)
    ]
    assert got == want


def test_placeholder_filter_nulls_exactly_the_placeholder_values():
    values = _values(5) + [
        "Uncategorized",
        "Home > Uncategorized",
        "NON CLASSÉ",
        "Без категории",
        "",
        ">",
        "\u00a0",
        None,
    ]

    def placeholder(v):
        return v is not None and all(
            lv.strip().casefold() in own.PLACEHOLDERS
            for lv in taxonomy.normalise_path(v).split(taxonomy.SEPARATOR)
            if lv.strip()
        )

    col = pa.chunked_array([pa.array(values, pa.string()).dictionary_encode()])
    out = categorise._without_placeholders(col)
    got = [v is None for v in (out.to_pylist() if out is not None else values)]
    assert got == [v is None or placeholder(v) for v in values]
    assert any(placeholder(v) for v in values) and not all(placeholder(v) for v in values if v is not None)


# --- every corpus file: the fast paths give the table the general path gives, byte for byte ---

CORPUS = Path(__file__).parent / "corpus"
CORPUS_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in {".csv", ".tsv", ".txt"})


def _ipc(table: pa.Table) -> bytes:
    """The table's Arrow IPC bytes: schema, chunking, dictionaries and every buffer's content."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _large(monkeypatch) -> None:
    """Corpus files count as large: split CSV reads, column jobs on the pool, overlapped Parquet reads."""
    monkeypatch.setattr(csvread, "_SMALL", 1024)
    monkeypatch.setattr(csvread, "_BLOCK", 4096)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 1)


@pytest.fixture(scope="module")
def shortcut_hits() -> list[str]:
    """Files on which the byte-range shortcut was taken (filled by the test below, checked at the end)."""
    return []


@pytest.mark.parametrize("size", ["as is", "large"])
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_tables_equal_the_general_path(monkeypatch, path, size, shortcut_hits):
    """With the byte-range text shortcut on (the default) and off (every value through the per-value
    test), each corpus file gives the same canonical table and evidence, in the files' own sizes and
    with every large-file path (split read, pool jobs) taken."""
    if size == "large":
        _large(monkeypatch)
    data = path.read_bytes()
    real = values._bytes_need_no_cleaning
    taken = []
    monkeypatch.setattr(values, "_bytes_need_no_cleaning", lambda *a: taken.append(1) is None and real(*a))
    fast, fast_ev = read_table_bytes(data, path.name, KIND_ATTACHED)
    if any(taken):
        shortcut_hits.append(path.name)
    general_calls = []
    monkeypatch.setattr(values, "_bytes_need_no_cleaning", lambda *a: general_calls.append(1) and False)
    general, general_ev = read_table_bytes(data, path.name, KIND_ATTACHED)
    assert general_calls, "the general path was not exercised"
    assert _ipc(fast) == _ipc(general)
    assert fast_ev == general_ev


def test_the_byte_range_shortcut_was_taken_on_the_corpus(shortcut_hits):
    """The comparison above is not vacuous: the shortcut fired on many corpus files (identifier
    columns of plain bytes), and not on all of them (text with spaces, non-ASCII)."""
    if not shortcut_hits:
        pytest.skip("run with the corpus comparison above")
    assert len(set(shortcut_hits)) >= 10


# canonical column -> a generic warehouse table's column name (the bench's Parquet layout)
WAREHOUSE = {
    "product_id": "item_group_id",
    "variant_id": "id",
    "title": "title",
    "description": "description",
    "brand": "brand",
    "product_type": "product_type",
    "price": "price",
    "availability": "availability",
    "gtin": "gtin",
    "color": "color",
    "status": "status",  # (with a stock quantity: no Merchant Center feed has these)
    "inventory_qty": "quantity",
}


def _as_parquet(path: Path, row_group_size: int = 7) -> bytes:
    """A corpus file's products as a generic warehouse table (its canonical values as text, the
    product ids as read, so repeats and oddities stay) in a Parquet file of many small row groups:
    every row group brings its own dictionaries, and products span row groups."""
    table, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    columns = {}
    for name, column_name in WAREHOUSE.items():
        column = table[name]
        number = pa.types.is_floating(column.type) or pa.types.is_integer(column.type)
        columns[column_name] = column if number else column.cast(pa.string())
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink, row_group_size=row_group_size)
    return sink.getvalue().to_pybytes()


def test_corpus_as_parquet_overlapped_read_equals_the_plain_read(monkeypatch):
    """Large generic Parquet tables are read in column groups by `pq.read_table` (one chunk per row
    group), their ids unified and long text combined on the pool meanwhile (`ingest._read_overlapped`);
    `ParquetFile.read` of all columns at once must give the same canonical table (chunking aside:
    compared with each column's chunks combined) for the products of every corpus file."""
    _large(monkeypatch)
    real_read, real_submit = ingest._read_overlapped, parallel.submit
    combined = []
    monkeypatch.setattr(parallel, "submit", lambda job, rows: combined.append(1) or real_submit(job, rows))
    early_taken = []
    real_early = common._early_or_own

    def early_or_own(early, cols, got, row_count):
        inputs, _ = early.result()
        early_taken.append(all(common.same_column(cols.get(n), inputs.get(n)) for n in common.MAPPING_INPUTS))
        return real_early(early, cols, got, row_count)

    monkeypatch.setattr(common, "_early_or_own", early_or_own)

    def plain(data, wanted, as_dict, det):
        return pq.ParquetFile(pa.BufferReader(data), read_dictionary=as_dict).read(columns=wanted), frozenset(), None

    overlapped_files = 0
    for path in CORPUS_FILES:
        data = _as_parquet(path)
        combined.clear()
        monkeypatch.setattr(ingest, "_read_overlapped", real_read)
        overlapped, overlapped_ev = read_table_bytes(data, path.stem + ".parquet", KIND_ATTACHED)
        overlapped_files += bool(combined)
        monkeypatch.setattr(ingest, "_read_overlapped", plain)
        whole, whole_ev = read_table_bytes(data, path.stem + ".parquet", KIND_ATTACHED)
        assert _ipc(overlapped.combine_chunks()) == _ipc(whole.combine_chunks()), path.name
        assert overlapped_ev == whole_ev, path.name
    # the path was taken (files of one row group, 7 rows or fewer, are read in one piece): not vacuous
    assert overlapped_files >= 50, overlapped_files
    # and so was the early mapping, on the very columns the draft then held
    assert len(early_taken) >= 50 and all(early_taken), early_taken


def test_an_early_mapping_of_other_columns_is_not_taken():
    """`finish` takes `start_mapping`'s answer only when it ran on the draft's own mapping columns:
    one started on other titles (which map elsewhere) is ignored, and the table is the one mapped
    as usual."""
    rows = 200
    table = pa.table(
        {
            "id": [f"v{i}" for i in range(rows)],
            "item_group_id": [f"p{i // 2}" for i in range(rows)],
            "title": ["Teak Garden Bench"] * rows,
            "price": [10.0] * rows,
        }
    )
    det = headers.detect(table.column_names)
    plain, _ = ingest.normalise(table, table.column_names, det, "t.parquet", KIND_ATTACHED)
    other = pa.chunked_array([pa.array(["Dry Dog Food 2 kg"] * rows).dictionary_encode()])
    early = common.start_mapping(lambda: {"title": other}, rows)
    assert early.result()[1][0] != plain["google_category_id"].combine_chunks()  # it maps elsewhere
    with_early, _ = ingest.normalise(table, table.column_names, det, "t.parquet", KIND_ATTACHED, early_mapping=early)
    assert _ipc(with_early) == _ipc(plain)


# --- the order `finish` queues its jobs in: earlier starts, the same table ---


def _recording(monkeypatch, order: list[str]) -> None:
    """Record each column job of `finish` as it starts (stage-2 jobs as "2:name")."""
    real_columns, real_joined = common._column_jobs, common._joined_jobs

    def wrap(jobs, prefix):
        return {name: (lambda name=name, job=job: order.append(prefix + name) or job()) for name, job in jobs.items()}

    monkeypatch.setattr(common, "_column_jobs", lambda *a: wrap(real_columns(*a), ""))
    monkeypatch.setattr(common, "_joined_jobs", lambda *a: wrap(real_joined(*a), "2:"))


@pytest.mark.parametrize(
    "path", [p for p in CORPUS_FILES if p.parent.name in ("shopify", "generic")][:6], ids=lambda p: p.name
)
def test_joined_jobs_are_queued_right_after_the_columns_they_read(monkeypatch, path):
    """Run inline (a small table), queue order is run order: the leading jobs come first, and each
    stage-2 job comes right after the last column it reads — no other column job in between — not
    after every column job (the mapping used to run alone at the end of a large ingest)."""
    order: list[str] = []
    _recording(monkeypatch, order)
    read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    stage1 = [name for name in order if not name.startswith("2:")]
    leading = [name for name in common.LEADING_JOBS if name in stage1]
    assert stage1[: len(leading)] == leading
    for joined, reads in common.JOINED_READS.items():
        position = order.index("2:" + joined)
        last_read = max((order.index(read) for read in reads if read in stage1), default=0)
        between = [name for name in order[last_read + 1 : position] if not name.startswith("2:")]
        assert between == [], (joined, between)
    others = [name for name in stage1 if name not in common.LEADING_JOBS]
    assert others and order.index("2:mapping") < order.index(others[-1])  # not the tail any more


def _queued_as_before(column_jobs, joined_jobs, futures, row_count):
    """The order before: every column job, then every joined job."""
    futures.update(parallel.submit_all(column_jobs, row_count))
    return parallel.submit_all(joined_jobs, row_count)


def test_corpus_tables_equal_in_the_old_job_order(monkeypatch):
    """Every corpus file, as CSV and as a many-row-group Parquet table, with every large-file path
    (pool jobs) taken: the new queue order gives the Arrow IPC bytes the old order gave. A joined job
    reading a column `JOINED_READS` does not list would raise here (its input not yet queued)."""
    _large(monkeypatch)
    for path in CORPUS_FILES:
        for data, name in ((path.read_bytes(), path.name), (_as_parquet(path), path.stem + ".parquet")):
            monkeypatch.setattr(common, "_submit_in_order", _queued_as_before)
            before, before_ev = read_table_bytes(data, name, KIND_ATTACHED)
            monkeypatch.undo()
            _large(monkeypatch)
            now, now_ev = read_table_bytes(data, name, KIND_ATTACHED)
            assert _ipc(now) == _ipc(before), name
            assert now_ev == before_ev, name
