"""A stray NUL byte does not make a text export "binary"; real binary files are still refused.

Over every corpus CSV: the file with a NUL put into its first data row (inside the first 4 KB the
binary check samples) and another near its end reads exactly as the clean file does — same rows,
same skips, the same table — and is still recognised as a table when attached. Workbooks, PDFs,
images and noise are refused as before (agent.catalog.binary's rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.catalog.attachments import looks_delimited
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.ingest import read_table_bytes

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(path for path in CORPUS.rglob("*.csv") if not path.read_bytes().startswith((b"\xff\xfe", b"\xfe\xff")))


def test_a_nul_past_the_sampled_head_stays_in_its_cell_and_costs_no_row() -> None:
    data = b"title,price\n" + b"Garden chair,19.99\n" * 400 + b"Bench\x00 seat,49.00\n"
    table, evidence = read_table_bytes(data, "late-nul.csv", "csv")
    assert evidence.rows_read == 401 and evidence.rows_skipped == 0
    assert table.num_rows == 401


def _with_nuls(data: bytes) -> bytes:
    """A NUL after the first cell of the first data row (inside the sampled 4 KB), and two more near
    the end: a file whose head shows a NUL has all of them dropped (agent.catalog.binary)."""
    first_row = data.index(b"\n") + 1
    cut = data.find(b",", first_row)  # after the first cell of the first data row
    cut = cut if 0 < cut < 4096 else data.rfind(b",", 0, 4096)  # a header over 4 KB: a NUL inside it
    late = max(cut + 1, len(data) - 40)
    late = data.find(b",", late) if data.find(b",", late) > 0 else late
    return data[:cut] + b"\x00" + data[cut:late] + b"\x00\x00" + data[late:]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_stray_nul_reads_as_the_clean_file(path: Path) -> None:
    clean = path.read_bytes()
    table, evidence = read_table_bytes(clean, path.name, "csv")
    dirty_table, dirty_evidence = read_table_bytes(_with_nuls(clean), path.name, "csv")
    assert (dirty_evidence.rows_read, dirty_evidence.rows_skipped) == (evidence.rows_read, evidence.rows_skipped)
    assert dirty_table.equals(table)
    assert looks_delimited(_with_nuls(clean)) == looks_delimited(clean)


@pytest.mark.parametrize(
    "data",
    [
        b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)) * 4,  # xlsx / ods
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512,  # xls
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n" * 20,  # a PDF with no NUL at all
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200),
        bytes(range(256)) * 40,  # noise
        b"name,price\n" + b"a,\x00\x00\x00\x001\n" * 300,  # NULs in every row: not a stray byte
    ],
    ids=["zip", "ole2", "pdf", "png", "noise", "nul-in-every-row"],
)
def test_binary_files_are_still_refused(data: bytes) -> None:
    with pytest.raises(UnreadableCatalog, match="binary"):
        read_table_bytes(data, "upload.csv", "csv")
    assert not looks_delimited(data)


def test_the_corpus_is_here() -> None:
    assert len(FILES) >= 50
