"""Bytes of a delimited text file -> an Arrow table of the columns we need, plus what happened.

Fast path: `pyarrow.csv` (only the columns a format reader asked for, dictionary types for
low-cardinality text); a large file without quoted newlines is cut after line feeds into one slice
per vCPU, each parsed by a single-threaded Arrow read side by side (`_split_read`), else Arrow's own
multi-threaded read parses it. Messy input gets the same result through fallbacks, each one only
paid for when needed: a UTF-8 BOM is dropped; UTF-16 (Excel "Unicode text") and
Latin-1/Windows-1252 are transcoded; the delimiter is sniffed among `,` `;` tab `|`; quoted newlines
trigger a quote-aware re-read; and a file Arrow refuses is read with Python's `csv` module as a last
resort.

Ragged rows (a row with fewer or more cells than the header) are data, not damage: a WooCommerce
export whose header grew over time (later batches appended `Meta:` columns) has early rows that
simply end. Arrow only reads rectangular tables, so its invalid-row handler collects the ragged
rows' text; each is found in the bytes and rewritten to the header's width — short rows padded with
empty cells (null), long rows cut to their known cells with their non-blank extra cells counted
(`rows_overlong`, `extra_cells`) so the evidence can say so — and Arrow reads the mended bytes
once more, rows in their original order. Should a row not be found or the re-read still see
ragged rows, Python's `csv` module reads the whole file with the same rules. Well-formed files
never pay for any of this. One exception to "long rows keep their known cells": when every row is longer
than the header by the same count and the typed columns read right only past a gap (a column missing from
the header), the rows are aligned past that gap first (`_realign`); and a single long row whose extra cells are a text
cell's unquoted delimiters is read with that cell joined back (`Rejoin`).
"""

from __future__ import annotations

import csv
import functools
import io
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from agent.catalog.binary import SAMPLE_BYTES, looks_binary, without_nul
from agent.catalog.errors import UnreadableCatalog

log = logging.getLogger(__name__)

DELIMITERS = (",", ";", "\t", "|")
# Why a row was skipped, as the evidence footer says it ("3 skipped (1 unparseable quoting, …)").
SKIP_EMPTY = "with cells only in columns not read"
SKIP_UNPARSED = "unparseable quoting"
SKIP_HEADER = "repeating the header"
_SAMPLE = 256 * 1024
_SMALL = 8 * 1024 * 1024  # below this, always parse quote-aware: it costs nothing measurable
_BLOCK = 1 << 22  # Arrow block size: fewer, larger chunks than the 1 MiB default
_PARALLEL_ROWS = 1 << 30  # (run_parallel's size argument: always side by side)


@dataclass
class RawCsv:
    table: pa.Table  # the requested columns, named by `columns`
    columns: list[str]  # full header, de-duplicated ("Price", "Price (2)")
    rows_read: int  # data rows in the file (blank lines and lines of bare delimiters aside), skipped ones included
    rows_skipped: int
    delimiter: str
    encoding: str
    rows_padded: int = 0  # rows shorter than the header, read with their missing cells null
    rows_overlong: int = 0  # rows with non-blank cells beyond the header (those cells are not read)
    extra_cells: int = 0  # how many such cells
    skipped_reasons: dict[str, int] = field(default_factory=dict)  # why rows_skipped were skipped
    rows_rejoined: int = 0  # rows longer than the header by a delimiter inside a text cell, read as one cell


def _csv_rows(text: str, delimiter: str) -> Any:
    """`csv.reader` over `text`, able to read any cell `text` holds.

    Python's csv module refuses a field over 131,072 characters ("field larger than field limit"),
    and real Shopify exports carry `Body (HTML)` cells longer than that: such a row read as "broken
    quoting" and skipped. No cell can be longer than the text it is in, and the text is already
    bounded (MAX_BODY_BYTES, the source size limits), so the limit is raised to the text's length —
    never lowered: it is the process's one csv setting, and only this module reads CSV at length."""
    if len(text) > csv.field_size_limit():
        csv.field_size_limit(len(text))
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)


def _decode_sample(data: bytes) -> tuple[bytes, str]:
    """Return UTF-8 bytes and the encoding label; transcodes only when the bytes are not UTF-8."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:], "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").encode("utf-8"), "utf-16"
        except UnicodeDecodeError:
            raise UnreadableCatalog("not a readable CSV: the text encoding is not recognised") from None
    sample = data[:_SAMPLE]
    try:
        sample.decode("utf-8")
        return data, "utf-8"
    except UnicodeDecodeError as exc:
        if len(data) > _SAMPLE and exc.start >= len(sample) - 3:
            return data, "utf-8"  # a multi-byte character cut by the sample boundary
    return _transcode_8bit(data)


def _transcode_8bit(data: bytes) -> tuple[bytes, str]:
    try:
        return data.decode("cp1252").encode("utf-8"), "windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8"), "latin-1"


def _skip_blank_lines(data: bytes) -> bytes:
    i = 0
    size = len(data)
    while i < size:
        j = data.find(b"\n", i)
        line = data[i : (size if j < 0 else j)]
        if line.strip(b" \t\r"):
            break
        if j < 0:
            return b""
        i = j + 1
    return data[i:] if i else data


_SEP_DIRECTIVE = re.compile(rb'^\s*"?sep=(.)"?\s*$', re.I)
# A markup document, not a table: Merchant Center's XML (RSS or Atom) product feeds, a WordPress export
# (held-out securetoolcompany/MetaWork-gemini export.xml, WooCommerce products as WXR), a saved web page.
# Its first line read as a header found no product column, and the answer said so — true, but no help.
_MARKUP = re.compile(rb"^<(?:\?xml|!--|!doctype|rss[\s>]|feed[\s>]|html[\s>])", re.I)


def _sniff(text: str, forced: str | None = None) -> tuple[str, list[str], int]:
    """Pick the delimiter whose first rows are widest and most consistent.

    Returns (delimiter, header cells, number of preamble lines before the header). A preamble is a
    few narrow lines ("Products export", "Generated 2026-11-28") above a wider header.
    """
    best: tuple[tuple, str, list[list[str]]] | None = None
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]  # the sample may cut the last row
    head = "".join(lines[:200])
    for delim in (forced,) if forced else DELIMITERS:
        try:
            rows = [record for record in _csv_rows(head, delim) if record and any(cell.strip() for cell in record)]
        except csv.Error:
            continue
        rows = rows[:30]
        if not rows:
            continue
        widths = [len(record) for record in rows]
        modal = max(set(widths), key=lambda w: (widths.count(w), w))
        start = 0
        while start < len(rows) - 1 and len(rows[start]) <= 2 < modal and len(rows[start]) < modal:
            start += 1
        width = len(rows[start])
        body = rows[start + 1 :]
        consistent = sum(1 for record in body if len(record) == width) / len(body) if body else 1.0
        key = (width > 1, round(consistent, 1), width)
        if best is None or key > best[0]:
            best = (key, delim, rows[: start + 1])
    if best is None:
        raise UnreadableCatalog("not a readable CSV: no header row found")
    rows = best[2]
    return best[1], rows[-1], len(rows) - 1


def _unwrapped(data: bytes, header: list[str], delimiter: str, preamble: int) -> bytes | None:
    """The rows inside a file whose every line is one quoted cell, else None.

    A CSV pasted into one spreadsheet column and saved again comes back with each line quoted whole and its
    own quotes doubled: `"id,title,price"` then `"001,""T-shirt Blanc"",19.99 EUR"` (held-out
    MaatarChaima/product_feeds product_feed.csv). Read as it is, the header was one column named
    "id,title,…" and the file "no product columns recognised". When the header is a single cell holding
    another delimiter and every row of the file is a single cell, those cells are the file: one line each,
    the same rows read."""
    if preamble or len(header) != 1 or not any(d in header[0] for d in DELIMITERS):
        return None
    try:
        cells = [row for row in _csv_rows(data.decode("utf-8", errors="surrogateescape"), delimiter) if row]
    except csv.Error:
        return None
    if any(len(row) != 1 for row in cells):
        return None
    return "\n".join(row[0] for row in cells).encode("utf-8", errors="surrogateescape") + b"\n"


def _skip_lines(data: bytes, count: int) -> bytes:
    """Drop `count` non-blank lines (and the blank lines among them) from the start."""
    pos = 0
    while count > 0:
        j = data.find(b"\n", pos)
        if j < 0:
            return b""
        if data[pos:j].strip(b" \t\r"):
            count -= 1
        pos = j + 1
    return data[pos:]


def _has_quoted_newlines(sample: str, delimiter: str) -> bool:
    """Whether the sample already shows a value spanning lines (then parse quote-aware at once)."""
    if '"' not in sample:
        return False
    lines = sample.splitlines()[:-1]  # the last line may be cut
    if not lines:
        return False
    try:
        records = sum(1 for _ in _csv_rows("\n".join(lines), delimiter))
    except csv.Error:
        return True
    return records < len([line for line in lines if line.strip()]) - 1


def dedupe(header: list[str]) -> list[str]:
    """Blank names become "column N"; repeated names get " (2)", " (3)"."""
    seen: dict[str, int] = {}
    out = []
    for i, raw in enumerate(header):
        name = raw.replace("\ufeff", "").replace("\u00a0", " ").strip() or f"column {i + 1}"
        if name in seen:
            seen[name] += 1
            name = f"{name} ({seen[name]})"
        else:
            seen[name] = 1
        out.append(name)
    return out


def _prepared(data: bytes) -> tuple[bytes, str, str | None]:
    """The file's bytes ready to sniff: refused when empty or binary, NULs dropped, decoded to UTF-8
    (with the encoding it was in), leading blank lines and Excel's "sep=;" directive line taken off
    (the delimiter it forces, else None)."""
    if not data or (not data[:65536].strip() and not data.strip()):
        raise UnreadableCatalog("not a readable CSV: the file is empty")
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        if looks_binary(data):
            raise UnreadableCatalog("not a readable CSV: the file is binary")
        data = without_nul(data) if b"\x00" in data[:SAMPLE_BYTES] else data
    data, encoding = _decode_sample(data)
    data = _skip_blank_lines(data)
    if not data:
        raise UnreadableCatalog("not a readable CSV: the file is empty")
    if _MARKUP.match(data.lstrip()[:16]):
        raise UnreadableCatalog(
            "an XML or HTML document, not a table; an XML product feed is not read — attach a CSV or TSV export"
        )
    forced = None
    first_end = data.find(b"\n")
    directive = _SEP_DIRECTIVE.match(data[: first_end if first_end >= 0 else len(data)])
    if directive:
        forced = directive.group(1).decode("latin-1")
        data = _skip_blank_lines(data[first_end + 1 :]) if first_end >= 0 else b""
    return data, encoding, forced


def read_csv(
    data: bytes,
    choose: Callable[[list[str]], dict[str, pa.DataType]],
    kinds: Callable[[list[str]], dict[str, str]] | None = None,
) -> RawCsv:
    """Parse `data`; `choose(columns)` names the columns to read and their Arrow types. `kinds(columns)`
    (optional, called after `choose`) says what some columns hold (KIND_NUMBER, KIND_TEXT, KIND_URL): with it,
    rows all longer than the header by the same count may be aligned past a gap (`_realign`)."""
    data, encoding, forced = _prepared(data)
    text = data[:_SAMPLE].decode("utf-8", errors="ignore")
    delimiter, header, preamble = _sniff(text, forced)
    unwrapped = _unwrapped(data, header, delimiter, preamble)
    if unwrapped is not None:  # every line one quoted cell holding the real row
        data, text = unwrapped, unwrapped[:_SAMPLE].decode("utf-8", errors="ignore")
        delimiter, header, preamble = _sniff(text, forced)
    if preamble:
        data = _skip_blank_lines(_skip_lines(data, preamble))
    if not any(any(char.isalpha() for char in cell) for cell in header):
        raise UnreadableCatalog("not a readable CSV: no header row found")
    columns = dedupe(header)
    chosen = choose(columns)
    shifted = Ragged()
    typed = kinds(columns) if kinds is not None else {}
    rejoin = Rejoin(columns, typed, delimiter)
    if kinds is not None:
        realigned = _realign(data, text, columns, typed, delimiter, preamble, shifted)
        if realigned is not None:
            data = realigned
            text = data[:_SAMPLE].decode("utf-8", errors="ignore")
            preamble = 0
    wanted = _numbers_as_sampled(chosen, columns, text, delimiter, preamble)
    quoted_nl = _has_quoted_newlines(text, delimiter)
    invalid: list[tuple[int, int, str]] = []  # the ragged rows of the last read
    try:
        table, skipped = _arrow_read(data, columns, wanted, delimiter, quoted_nl, invalid)
    except UnicodeError:
        data, encoding = _transcode_8bit(data)
        table, skipped = _arrow_read(data, columns, wanted, delimiter, quoted_nl, invalid)
    if table is None and wanted != _as_text(wanted):  # a number column held text after the sample
        wanted = _as_text(wanted)
        table, skipped = _arrow_read(data, columns, wanted, delimiter, quoted_nl, invalid)
    ragged = Ragged()
    if table is not None and skipped:  # ragged rows: mend them in the bytes, read once more
        mended = _mend(data, invalid, delimiter, len(columns), ragged, rejoin)
        if mended is not None:
            again, left = _arrow_read(mended, columns, wanted, delimiter, quoted_nl)
            if again is None and wanted != _as_text(wanted):
                again, left = _arrow_read(mended, columns, _as_text(wanted), delimiter, quoted_nl)
            if again is not None and not left:
                table, skipped = again, 0
        if skipped:
            ragged = Ragged()
    if table is None or skipped:  # Arrow refused the file, or ragged rows it could not mend: read every row
        try:
            table, skipped = _python_read(data, columns, _as_text(wanted), delimiter, ragged, rejoin)
        except UnreadableCatalog:
            if table is None:
                raise
            ragged = Ragged()  # broken quoting Python cannot read either: Arrow's rows, the rest skipped
    table, blank = _drop_blank_rows(_unify(table))
    # A line of bare delimiters (a spreadsheet's empty row) is a blank line: neither read nor skipped.
    # A row with cells only in columns no field reads is a row of the file: read, and skipped for that.
    unread = blank - min(blank, _bare_delimiter_lines(data, delimiter)) if blank else 0
    table, repeats = _drop_repeated_headers(table, header, data)
    reasons = {reason: k for reason, k in ((SKIP_UNPARSED, skipped), (SKIP_EMPTY, unread), (SKIP_HEADER, repeats)) if k}
    return RawCsv(
        table,
        columns,
        table.num_rows + unread + repeats,
        skipped + unread + repeats,
        delimiter,
        encoding,
        ragged.padded,
        ragged.overlong + shifted.overlong,
        ragged.extra_cells + shifted.extra_cells,
        reasons,
        ragged.rejoined,
    )


KIND_NUMBER, KIND_TEXT, KIND_URL = "number", "text", "url"
KIND_PRICE, KIND_SALE = "price", "sale"  # numbers; a sale price is judged against its row's price
_KINDS = (KIND_NUMBER, KIND_TEXT, KIND_URL, KIND_PRICE, KIND_SALE)
_NUMBER_CELL = re.compile(r"^\D{0,4}?-?\d[\d.,' ]*\D{0,4}$")
_BARE_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?$")


def _cell_score(kind: str, cell: str) -> int:
    """+1 when a non-blank cell looks like what its column holds, -1 when it does not, 0 when blank: a
    price column reading a number, a name or category reading text (not a bare number), an image a URL."""
    value = cell.strip()
    if not value:
        return 0
    if kind in (KIND_NUMBER, KIND_PRICE, KIND_SALE):
        return 1 if _NUMBER_CELL.match(value) else -1
    if kind == KIND_TEXT:
        return -1 if _BARE_NUMBER.match(value) else 1
    if kind == KIND_URL:
        return 1 if value.lower().startswith(("http://", "https://", "//", "www.")) or "/" in value else -1
    return 0


def _plain_number(cell: str) -> float | None:
    try:
        return float(cell.strip().replace(",", "."))
    except ValueError:
        return None


def _sale_score(sale: str, price: str) -> int:
    """A sale price beside its row's price: below it and above a tenth of it (+1), else -1 (a 0/1 flag
    cell read as the sale price of a 280 item is no sale); without a price, scored as a number."""
    value, regular = _plain_number(sale), _plain_number(price)
    if not sale.strip() or value is None or regular is None or regular <= 0:
        return _cell_score(KIND_SALE, sale)
    return 1 if regular / 10 <= value <= regular else -1


class Rejoin:
    """A row longer than the header because a text cell holds the delimiter unquoted, read as one cell.

    A feed written without quoting has rows like `105,Gastrostomy Tube (Size 24, 26, 28),High-quality…,new,
    https://…,0 KES,in_stock,Brand` (tests/corpus/gmc/equinox-health-kes.csv; a held-out feed has one in a
    description): the commas of the title split it into three cells, so read from the left the description
    was " 26", the price a URL and the brand "0 KES". The rule, for a row k cells longer than the header in
    a file whose other rows fit it (a file-wide shift is `_realign`'s): each run of k + 1 cells starting in
    a text column (a title, description, category or brand) is tried joined back with the delimiter, and
    the typed columns (`_cell_score`, `_sale_score`) score each reading. The best join is taken only when
    it beats the left alignment by two points or more (so "Table,20,B,stray" keeps its cells and its
    extra ones are counted, as before); between joins that score alike, the one whose joined pieces start
    with a space (prose writes ", " after a comma, a cell boundary has none), then the leftmost. An id,
    a number or a link is never joined."""

    def __init__(self, columns: list[str], kinds: dict[str, str], delimiter: str) -> None:
        self.width = len(columns)
        self.delimiter = delimiter
        self.scored = [(i, kinds[c]) for i, c in enumerate(columns) if kinds.get(c) in _KINDS and kinds[c] != KIND_SALE]
        self.sales = [i for i, c in enumerate(columns) if kinds.get(c) == KIND_SALE]
        self.price = next((i for i, c in enumerate(columns) if kinds.get(c) == KIND_PRICE), None)
        self.joinable = [i for i, c in enumerate(columns) if kinds.get(c) == KIND_TEXT]

    def _score(self, row: list[str]) -> int:
        price = row[self.price] if self.price is not None else ""
        return sum(_cell_score(kind, row[i]) for i, kind in self.scored) + sum(
            _sale_score(row[i], price) for i in self.sales
        )

    def __call__(self, cells: list[str]) -> list[str] | None:
        """`cells` with one text cell rejoined to the header's width, or None to keep the left alignment."""
        k = len(cells) - self.width
        if k <= 0 or not self.scored:
            return None
        best, best_key = None, (self._score(cells[: self.width]) + 2, 0)
        for p in self.joinable:
            joined = [*cells[:p], self.delimiter.join(cells[p : p + k + 1]), *cells[p + k + 1 :]]
            # prose writes ", " after a comma; a field boundary of an unquoted row has no space after it
            key = (self._score(joined), sum(1 for piece in cells[p + 1 : p + k + 1] if piece[:1].isspace()))
            if key >= best_key and (best is None or key > best_key):
                best, best_key = joined, key
        return best


def _realign(
    data: bytes, text: str, columns: list[str], kinds: dict[str, str], delimiter: str, preamble: int, shifted: Ragged
) -> bytes | None:
    """`data` with a column missing from the header put back, or None to read the rows as they are.

    A header that lost a column (a Hebrew WooCommerce export, tests/corpus/woocommerce/zhuhit-glass-signs-he.csv,
    has every row one cell longer than its header: a column is missing after `Sold individually?`) makes a
    left-aligned read put each cell after the gap under the wrong header: `Regular price` reads the empty
    sale price and `Categories` the price. The rule, for any file: when every sampled data row is longer than
    the header by the same k > 0 cells, each gap position p (header columns before p read cells from the left,
    the ones from p on read k cells further right; p = width is today's left alignment, k cells from the end
    dropped) is scored over the sampled rows by the typed columns (`_cell_score`). The file is realigned
    only where the best position beats the left alignment by at least one point per two rows — so a file
    that reads well today (its extra cells a trailing delimiter or stray cells) is left alone — and on a
    tie the position dropping the fewest non-blank cells, then the one nearest the right end, wins. Rows
    of another width (after the sample) stay as they are; the non-blank cells the gap drops are counted in
    `shifted` as extra cells not read."""
    width = len(columns)
    scored = [(i, kinds[c]) for i, c in enumerate(columns) if kinds.get(c) in _KINDS and kinds[c] != KIND_SALE]
    sales = [i for i, c in enumerate(columns) if kinds.get(c) == KIND_SALE]
    price = next((i for i, c in enumerate(columns) if kinds.get(c) == KIND_PRICE), None)
    if not scored:
        return None
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]
    try:
        rows = [r for r in _csv_rows("".join(lines[:500]), delimiter) if r and any(c.strip() for c in r)]
    except csv.Error:
        return None
    body = rows[preamble + 1 :]
    extra = {len(r) - width for r in body}
    if not body or len(extra) != 1 or (k := extra.pop()) <= 0:
        return None

    def mapped(p: int, i: int) -> int:
        return i if i < p else i + k

    def key(p: int) -> tuple[int, int, int]:
        typed = sum(_cell_score(kind, r[mapped(p, i)]) for r in body for i, kind in scored)
        typed += sum(
            _sale_score(r[mapped(p, i)], r[mapped(p, price)] if price is not None else "") for r in body for i in sales
        )
        dropped = sum(1 for r in body for cell in r[p : p + k] if cell.strip())
        return typed, -dropped, p

    best = max(range(width + 1), key=key)
    if best == width or key(best)[0] - key(width)[0] < max(1, len(body) / 2):
        return None
    decoded = data.decode("utf-8", errors="surrogateescape")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    try:
        for n, row in enumerate(_csv_rows(decoded, delimiter)):
            if n and len(row) == width + k:
                gap = sum(1 for cell in row[best : best + k] if cell.strip())
                if gap:
                    shifted.overlong += 1
                    shifted.extra_cells += gap
                row = row[:best] + row[best + k :]
            writer.writerow(row)
    except csv.Error:
        shifted.overlong = shifted.extra_cells = 0
        return None
    return out.getvalue().encode("utf-8", errors="surrogateescape")


def _drop_repeated_headers(table: pa.Table, header: list[str], data: bytes) -> tuple[pa.Table, int]:
    """Rows that repeat the header line are dropped and counted (read, and skipped with SKIP_HEADER).

    Two exports pasted into one file (tests/corpus/woocommerce/salimhm-air-fryers-repeated-header.csv: a
    second batch's `"Name","Description",…` line in the middle) leave a row whose cells are the column
    names: read as data it was a product titled "Name" with no price, counted among the products. The rule:
    a row is a repeated header when every cell it has in the columns read equals that column's own name
    (case and outer spaces aside) and at least two do (a `Type` column once holding "type" is not enough).
    Checked only when the header line's exact text recurs at the start of a later line. A file without
    one (nearly all) is told by one read column first (`_holds_own_name`), and else by one byte search."""
    names = dict(zip(dedupe(header), header))
    if not _holds_own_name(table, names):
        return table, 0
    first = data.find(b"\n")
    line = data[: first if first >= 0 else len(data)].rstrip(b"\r")
    if first < 0 or not line.strip() or data.find(b"\n" + line, first) < 0:  # bytes.find: a fast scan
        return table, 0
    import pyarrow.compute as pc

    matches: Any = None
    alike: Any = None
    for name in table.column_names:
        column = table[name]
        if not (pa.types.is_string(column.type) or pa.types.is_dictionary(column.type)):
            same = pc.is_null(column)  # a number read in a row cannot be a column's name
        else:
            text = pc.utf8_lower(pc.utf8_trim_whitespace(column.cast(pa.string())))
            hit = pc.fill_null(pc.equal(text, names.get(name, name).strip().lower()), False)
            same = pc.or_(hit, pc.is_null(column))
            count = hit.cast(pa.int32())
            matches = count if matches is None else pc.add(matches, count)
        alike = same if alike is None else pc.and_(alike, same)
    if alike is None or matches is None:
        return table, 0
    repeated = pc.and_(alike, pc.greater_equal(matches, 2))
    found = pc.sum(repeated.cast(pa.int64())).as_py() or 0
    return (table.filter(pc.invert(repeated)), found) if found else (table, 0)


def _holds_own_name(table: pa.Table, names: dict[str, str]) -> bool:
    """Whether a read column holds its own header cell, exactly, in some row (or this cannot be told
    cheaply). A row that repeats the header line holds every column's name, so one column is enough:
    a dictionary column's entries (a few thousand values) when there is one, else one text column's
    rows. The byte search it spares scans the whole file, ~14 ms of a 228 MB (1M-variant) export."""
    import pyarrow.compute as pc

    text_column = None
    for name in table.column_names:
        column, cell = table[name], names.get(name, name)
        if not cell:
            continue
        if pa.types.is_dictionary(column.type):
            return any(pc.any(pc.equal(chunk.dictionary, cell)).as_py() for chunk in column.chunks)
        if text_column is None and pa.types.is_string(column.type):
            text_column = (column, cell)
    if text_column is None:
        return True
    return bool(pc.any(pc.equal(*text_column)).as_py())


def _bare_delimiter_lines(data: bytes, delimiter: str) -> int:
    """Lines holding nothing but delimiters and spaces (only counted when blank rows were dropped)."""
    escaped = re.escape(delimiter.encode())
    return len(re.findall(rb"(?m)^[ \t\r]*(?:" + escaped + rb"[ \t\r]*)+$", data))


@dataclass
class Ragged:
    """What the tolerant reader did to rows whose width is not the header's."""

    padded: int = 0
    overlong: int = 0
    extra_cells: int = 0
    rejoined: int = 0  # long rows whose extra cells were a text cell's unquoted delimiters (Rejoin)


_PLAIN_NUMBER = {"float": re.compile(r"-?\d+(\.\d+)?"), "int": re.compile(r"-?\d+")}


def _as_text(wanted: dict[str, pa.DataType]) -> dict[str, pa.DataType]:
    """Number columns back to text (parsed later, value by value, with every notation we accept)."""
    return {
        column: (pa.string() if pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type) else arrow_type)
        for column, arrow_type in wanted.items()
    }


def _numbers_as_sampled(
    wanted: dict[str, pa.DataType], columns: list[str], text: str, delimiter: str, preamble: int
) -> dict[str, pa.DataType]:
    """Keep a number type only for columns whose sampled values are all plain numbers ("19.99",
    "-3", blank): the reader then converts them directly, with no text column and no cast. Anything
    else in the sample ("$1,299", "12,50", "No old price") reads as text; text turning up after
    the sample makes the read fail and repeat as text (read_csv)."""
    numeric = {
        column: arrow_type
        for column, arrow_type in wanted.items()
        if pa.types.is_floating(arrow_type) or pa.types.is_integer(arrow_type)
    }
    if not numeric:
        return wanted
    lines = text.splitlines(keepends=True)
    if len(lines) > 1 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]  # the sample may cut the last row
    try:
        rows = [
            record
            for record in _csv_rows("".join(lines[:500]), delimiter)
            if record and any(cell.strip() for cell in record)
        ][preamble + 1 :]
    except csv.Error:
        return _as_text(wanted)
    index = {column: i for i, column in enumerate(columns)}
    out = dict(wanted)
    for col, typ in numeric.items():
        pattern = _PLAIN_NUMBER["float" if pa.types.is_floating(typ) else "int"]
        i = index[col]
        if not rows or any(
            len(record) != len(columns) or (record[i] != "" and not pattern.fullmatch(record[i])) for record in rows
        ):
            out[col] = pa.string()
    return out


def _arrow_read(
    data: bytes,
    columns: list[str],
    wanted: dict[str, pa.DataType],
    delimiter: str,
    quoted_nl: bool = False,
    invalid: list[tuple[int, int, str]] | None = None,
) -> tuple[pa.Table | None, int]:
    """Arrow's read; `invalid`, when given, collects each ragged row's (expected, actual, text)."""
    quote_aware_first = quoted_nl or len(data) <= _SMALL
    if not quote_aware_first:
        split = _split_read(data, columns, wanted, delimiter)
        if split is not None:
            if invalid is not None:
                invalid.clear()
            return split, 0
    for newlines in (True,) if quote_aware_first else (False, True):
        skipped = [0]
        if invalid is not None:
            invalid.clear()

        def on_invalid(row, _s: list[int] = skipped) -> str:
            _s[0] += 1
            if invalid is not None:
                invalid.append((row.expected_columns, row.actual_columns, row.text))
            return "skip"

        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),  # zero-copy: no Python file object in the read loop
                read_options=pacsv.ReadOptions(column_names=columns, skip_rows=1, block_size=_BLOCK),
                parse_options=pacsv.ParseOptions(
                    delimiter=delimiter, newlines_in_values=newlines, invalid_row_handler=on_invalid
                ),
                convert_options=pacsv.ConvertOptions(
                    include_columns=list(wanted) or columns[:1],
                    column_types=wanted,
                    strings_can_be_null=True,
                    null_values=[""],
                    quoted_strings_can_be_null=True,
                ),
            )
        except pa.ArrowInvalid as exc:
            if "UTF8" in str(exc) or "utf8" in str(exc).lower() and "invalid" in str(exc).lower():
                raise UnicodeError("not utf-8") from None
            log.info("arrow csv read failed (newlines_in_values=%s): %s", newlines, exc)
            continue
        if (
            skipped[0]
            and not newlines
            and (invalid is None or any(line_text.count('"') % 2 for _, _, line_text in invalid))
        ):
            continue  # perhaps quoted newlines split a row (an odd quote shows it): re-read quote-aware
        return table, skipped[0]
    return None, 0


def _options(
    columns: list[str], wanted: dict[str, pa.DataType], delimiter: str, newlines: bool, header: bool, threads: bool
) -> dict[str, Any]:
    return {
        "read_options": pacsv.ReadOptions(
            column_names=columns, skip_rows=1 if header else 0, block_size=_BLOCK, use_threads=threads
        ),
        "convert_options": pacsv.ConvertOptions(
            include_columns=list(wanted) or columns[:1],
            column_types=wanted,
            strings_can_be_null=True,
            null_values=[""],
            quoted_strings_can_be_null=True,
        ),
        "parse_options": pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=newlines),
    }


def _cuts(data: bytes, parts: int) -> list[int]:
    """Offsets that cut `data` into `parts` pieces right after a line feed (start and end included)."""
    cuts = [0]
    for i in range(1, parts):
        at = data.find(b"\n", max(cuts[-1], len(data) * i // parts))
        if at < 0 or at + 1 >= len(data):
            break
        cuts.append(at + 1)
    return cuts + [len(data)]


def _split_read(data: bytes, columns: list[str], wanted: dict[str, pa.DataType], delimiter: str) -> pa.Table | None:
    """The fast path for a large file without quoted newlines: one single-threaded Arrow read per
    vCPU (a few slices each), each of its own slice of the bytes (cut after a line feed), side by side. Arrow's own
    multi-threaded read must find row boundaries serially and costs about twice the CPU of its
    single-threaded read on this kind of machine; here each thread parses and converts its slice
    alone, so the two vCPUs do half the work each. A row is never cut in two: without quoted
    newlines a line feed ends a row, and a quoted newline at a cut leaves a ragged row on each
    side — then (and for any ragged row or refusal at all) None: the caller's whole-file read,
    with its own rules, decides, so the result is always what that read gives."""
    from agent.catalog.parallel import parallel_slots, run_parallel

    # a few slices per vCPU (each at least _SMALL bytes): when another process takes a vCPU for a
    # while, the pool hands the waiting slices to the thread that is running instead of idling
    cuts = _cuts(data, min(4 * parallel_slots(), max(1, len(data) // _SMALL)))
    if len(cuts) < 3:
        return None
    buffer = pa.py_buffer(data)
    flags = [False]  # any ragged row, in any slice

    def read(i: int) -> pa.Table | None:
        def on_invalid(_row) -> str:
            flags[0] = True
            return "skip"

        options = _options(columns, wanted, delimiter, False, header=i == 0, threads=False)
        options["parse_options"].invalid_row_handler = on_invalid
        try:
            return pacsv.read_csv(pa.BufferReader(buffer.slice(cuts[i], cuts[i + 1] - cuts[i])), **options)
        except pa.ArrowInvalid:
            return None

    parts = run_parallel({i: functools.partial(read, i) for i in range(len(cuts) - 1)}, _PARALLEL_ROWS)
    tables = [parts[i] for i in range(len(cuts) - 1)]
    if flags[0] or any(table is None for table in tables):
        return None
    return pa.concat_tables(tables)


def _find_row(data: bytes, raw: bytes, start: int, taken: set[int]) -> int:
    """Offset of `raw` as a whole line at or after `start` (else from the top), not yet taken; -1 if none."""
    for origin in (start, 0):
        pos = origin
        while True:
            at = data.find(raw, pos)
            if at < 0:
                break
            end = at + len(raw)
            if (at == 0 or data[at - 1] in b"\n\r") and data[end : end + 1] in (b"\n", b"\r", b"") and at not in taken:
                return at
            pos = at + 1
    return -1


def _mend(
    data: bytes,
    invalid: list[tuple[int, int, str]],
    delimiter: str,
    width: int,
    ragged: Ragged,
    rejoin: Rejoin | None = None,
) -> bytes | None:
    """`data` with every ragged row rewritten to `width` cells (module docstring); None when a row
    cannot be placed. Arrow reports rows in file order block by block, so each search starts where the
    last one ended."""
    sep = delimiter.encode()
    edits: list[tuple[int, int, bytes]] = []
    taken: set[int] = set()
    pos = 0
    for expected, actual, text in invalid:
        raw = text.encode("utf-8")
        at = _find_row(data, raw, pos, taken)
        if at < 0 or expected != width:
            return None
        taken.add(at)
        pos = at + len(raw)
        if actual < width:
            ragged.padded += 1
            edits.append((at, pos, raw + sep * (width - actual)))
            continue
        try:
            cells = next(_csv_rows(text, delimiter))
        except (csv.Error, StopIteration):
            return None
        cells = _long_row(cells, width, ragged, rejoin)
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="").writerow(cells[:width] + [""] * (width - len(cells)))
        edits.append((at, pos, out.getvalue().encode("utf-8")))
    edits.sort()
    pieces, last = [], 0
    for at, end, replacement in edits:
        if at < last:
            return None
        pieces += [data[last:at], replacement]
        last = end
    pieces.append(data[last:])
    return b"".join(pieces)


def _long_row(cells: list[str], width: int, ragged: Ragged, rejoin: Rejoin | None) -> list[str]:
    """A row longer than the header: a text cell rejoined (Rejoin), else its known cells as they are,
    its non-blank extra cells counted (blank trailing cells, e.g. a trailing delimiter, are no news)."""
    joined = rejoin(cells) if rejoin is not None else None
    if joined is not None:
        ragged.rejoined += 1
        return joined
    extra = sum(1 for cell in cells[width:] if cell.strip())
    if extra:
        ragged.overlong += 1
        ragged.extra_cells += extra
    return cells


def _python_read(
    data: bytes,
    columns: list[str],
    wanted: dict[str, pa.DataType],
    delimiter: str,
    ragged: Ragged | None = None,
    rejoin: Rejoin | None = None,
) -> tuple[pa.Table, int]:
    """The slow, tolerant reader: every row is read. Short rows are padded with nulls; long rows
    keep their first `len(columns)` cells, and non-blank cells beyond them are counted in `ragged`
    (blank trailing cells, e.g. a trailing delimiter, are not worth a word)."""
    ragged = ragged if ragged is not None else Ragged()
    text = data.decode("utf-8", errors="replace")
    width = len(columns)
    index = {column: i for i, column in enumerate(columns)}
    picks = [(column, index[column]) for column in wanted] if wanted else [(columns[0], 0)]
    values: list[list[str | None]] = [[] for _ in picks]
    reader = _csv_rows(text, delimiter)
    try:
        next(reader)
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            size = len(row)
            if size > width:
                row = _long_row(row, width, ragged, rejoin)
            elif size < width:
                ragged.padded += 1
            for slot, (_, i) in zip(values, picks):
                cell = row[i] if i < size else ""
                slot.append(cell if cell != "" else None)
    except csv.Error:
        raise UnreadableCatalog("not a readable CSV: the quoting is broken") from None
    skipped = 0
    arrays = []
    for (name, _), slot in zip(picks, values):
        arr = pa.array(slot, type=pa.string())
        typ = wanted.get(name, pa.string())
        arrays.append(arr.cast(typ) if typ != pa.string() else arr)
    return pa.Table.from_arrays(arrays, names=[column for column, _ in picks]), skipped


def _unify(table: pa.Table) -> pa.Table:
    """One chunk per dictionary column, one dictionary for it: unified once here rather than by
    every later step (Arrow gives each parsed block its own dictionary). Columns side by side."""
    from agent.catalog.parallel import run_parallel

    todo = {
        i: (lambda col=table.column(i): col.combine_chunks())
        for i, field in enumerate(table.schema)
        if pa.types.is_dictionary(field.type) and table.column(i).num_chunks > 1
    }
    for i, combined in run_parallel(todo, table.num_rows).items():
        field = table.schema.field(i)
        table = table.set_column(i, field, pa.chunked_array([combined], type=field.type))
    return table


def _drop_blank_rows(table: pa.Table) -> tuple[pa.Table, int]:
    """Rows with nothing in any column we read (`,,,,` lines) are not data: dropped and counted as
    skipped. (Truly empty lines are not rows at all, as for Python's csv.DictReader.)"""
    if table.num_columns == 0 or table.num_rows == 0:
        return table, 0
    import pyarrow.compute as pc

    any_valid: Any = None
    for col in table.columns:
        if col.null_count == 0:
            return table, 0
        v = pc.is_valid(col)
        any_valid = v if any_valid is None else pc.or_(any_valid, v)
    kept = pc.sum(any_valid.cast(pa.int64())).as_py() or 0
    if kept == table.num_rows:
        return table, 0
    return table.filter(any_valid), table.num_rows - kept
