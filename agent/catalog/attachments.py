"""A file part the service already decoded and judged to be a table (CSV/TSV or Parquet), and the
cheap test it judged by.

Merchants' files arrive under many labels: a Merchant Center feed as `text/tab-separated-values`, a
`.txt` export as `text/plain`, a `.csv` as `application/vnd.ms-excel` (Windows) or
`application/octet-stream`, or no type at all. The label is a hint; what the bytes are decides.
`looks_delimited` is that decision, kept light (no pyarrow) because the service calls it per part.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from agent.catalog.binary import looks_binary, without_nul

TABLE_SUFFIXES = (".csv", ".tsv", ".txt")
_SNIFF_BYTES = 64 * 1024
_DELIMITERS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class Attachment:
    """One attached catalog file. The service decodes base64 and picks a name before we see it."""

    name: str  # the part's file name, or "attachment-N.csv" when nameless
    data: bytes
    mime_type: str | None = None


def _text_sample(data: bytes) -> str | None:
    head = data[:_SNIFF_BYTES]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return head[: len(head) // 2 * 2].decode("utf-16", errors="ignore")
        except UnicodeDecodeError:
            return None
    if looks_binary(head):
        return None  # a PDF, an image, a spreadsheet workbook (agent.catalog.binary)
    return without_nul(head).decode("utf-8", errors="ignore")


def looks_delimited(data: bytes) -> bool:
    """Whether the bytes read as a delimited table: text whose first lines split, with one of
    `, ; tab |`, into a header of two or more cells holding a letter and rows of about that width
    (a short preamble such as "sep=;" or a title line is allowed; at least one row after the header)."""
    text = _text_sample(data)
    if not text:
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    if len(data) > _SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the sample may cut the last line
    lines = lines[:50]
    if not lines:
        return False
    for delim in _DELIMITERS:
        try:
            rows = list(csv.reader(io.StringIO("\n".join(lines), newline=""), delimiter=delim))
        except csv.Error:
            continue
        rows = [row for row in rows if row]
        for start in range(min(3, len(rows))):  # preamble lines above the header
            header = rows[start]
            if len(header) < 2 or not any(any(char.isalpha() for char in cell) for cell in header):
                continue
            body = rows[start + 1 :]
            if not body:
                continue  # a header alone is no table to read
            near = sum(1 for row in body if len(row) >= 2 and abs(len(row) - len(header)) <= max(2, len(header) // 2))
            if near >= max(1, (len(body) * 8) // 10):
                return True
    return False
