"""A cell longer than Python's csv field limit (131,072 characters) is read like any other cell.

Real Shopify exports carry `Body (HTML)` cells of several hundred kilobytes. Arrow reads them, but
the csv-module paths (ragged rows mended or read row by row, the sniffing of the sample) used to
refuse such a row as "unparseable quoting" and skip it. Over every corpus CSV with a description
column: the file rewritten with its second row overlong (so the mending path runs) reads the same
rows, skips the same rows and keeps the same products whether or not the first row's description
is 300,000 characters of quoted commas and newlines; and in a Shopify export that description is
read whole.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from agent.catalog.ingest import read_table_bytes

CORPUS = Path(__file__).parent / "corpus"
LONG = '<p>a "quoted", long\ndescription ' * 10_000  # 300,000 characters, over the csv limit
assert len(LONG) > 131_072


def _decoded(path: Path) -> tuple[list[list[str]], str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    first = next((line for line in text.split("\n") if line.strip()), "")
    delimiter = max(("\t", ";", ",", "|"), key=first.count)
    before = csv.field_size_limit(1 << 30)
    try:
        rows = [
            row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if any(c.strip() for c in row)
        ]
    finally:
        csv.field_size_limit(before)
    return rows, delimiter


def _description_column(header: list[str]) -> int | None:
    for i, name in enumerate(header):
        lowered = name.lower()
        if "description" in lowered or lowered.startswith("body"):
            return i
    return None


def _cases() -> list[Path]:
    found = []
    for path in sorted(CORPUS.rglob("*.csv")):
        rows, _ = _decoded(path)
        if len(rows) >= 3 and _description_column(rows[0]) is not None and len(rows[1]) == len(rows[0]):
            found.append(path)
    return found


def _written(rows: list[list[str]], delimiter: str) -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


@pytest.fixture
def python_default_limit():
    """The csv module's limit is process-wide and other tests raise it: the reader must not rely on
    anyone else having done so, so each case starts from Python's own default."""
    before = csv.field_size_limit(131_072)
    yield
    csv.field_size_limit(before)


@pytest.mark.parametrize("path", _cases(), ids=lambda p: p.name)
@pytest.mark.usefixtures("python_default_limit")
def test_a_long_cell_reads_like_a_short_one(path: Path) -> None:
    rows, delimiter = _decoded(path)
    column = _description_column(rows[0])
    assert column is not None
    rows[2] = rows[2] + ["an extra cell"]  # an overlong row: the mending path runs on both files
    short = [list(row) for row in rows]
    rows[1][column] = LONG
    rows[1] = rows[1] + ["another extra cell"]  # and the long cell sits in a ragged row itself
    table_short, evidence_short = read_table_bytes(_written(short, delimiter), path.name, "csv")
    table_long, evidence_long = read_table_bytes(_written(rows, delimiter), path.name, "csv")
    assert evidence_long.rows_read == evidence_short.rows_read
    assert evidence_long.rows_skipped == evidence_short.rows_skipped
    assert evidence_long.skipped_reasons == evidence_short.skipped_reasons
    assert table_long.num_rows == table_short.num_rows
    if rows[0][column] == "Body (HTML)":  # Shopify: the first row of a handle holds its description
        longest = max(len(value or "") for value in table_long.column("description").to_pylist())
        assert longest >= len(LONG.strip()) - 10


def test_the_corpus_has_cases() -> None:
    assert len(_cases()) >= 5
