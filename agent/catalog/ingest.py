"""One file's bytes -> (canonical table, evidence): format detection, reading, normalisation.

CSV/TSV go through `csvread` (Arrow first, tolerant fallbacks) and the header profiles of
`headers`; Parquet files (by magic bytes or name) are read with `pyarrow.parquet`, their columns go
through the same profiles, and their key-value metadata may state the snapshot date.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from concurrent.futures import Future

import pyarrow as pa

from agent.catalog import canonical, headers, heap
from agent.catalog.csvread import KIND_NUMBER, KIND_PRICE, KIND_SALE, KIND_TEXT, KIND_URL, RawCsv, read_csv
from agent.catalog.dates import snapshot_from
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.evidence import CHECKED_FIELDS, SourceEvidence
from agent.catalog.readers import bigcommerce, generic, gmc, magento, shopify, woocommerce
from agent.catalog.readers.common import (
    MAPPING_INPUTS,
    Draft,
    cleaned_as_categorical,
    finish,
    same_column,
    start_mapping,
)
from agent.catalog.values import STR_DICT, chunked, combine_for_cleaning

log = logging.getLogger(__name__)

READERS = {
    None: generic,
    "shopify": shopify,
    "gmc": gmc,
    "woocommerce": woocommerce,
    "magento": magento,
    "bigcommerce": bigcommerce,
}

# Roles read dictionary-encoded: few distinct values, parsed once per value.
DICT_ROLES = frozenset(
    {
        "brand",
        "category_path",
        "product_type",
        "color",
        "material",
        "size",
        "currency",
        "status",
        "availability",
        "inventory_policy",
        "published",
        "inventory_tracker",
        "wc_type",
        "mg_type",
        "item_type",
        "in_stock",
        "backorders",
        "visible",
        "online",
        "visibility",
        "store_view",
        "track_inventory",
        "google_category",
        "option1_name",
        "option2_name",
        "option3_name",
        "option1_value",
        "option2_value",
        "option3_value",
        "pause",
        # product identities: the dictionary indices become the integer product keys
        "product_id",
        "handle",
    }
)
# Shopify writes plain numbers: read as numbers when the sample agrees (csvread checks), sparing a
# million-row text column and its cast per field.
SHOPIFY_NUMBERS = {"price": pa.float64(), "compare_at_price": pa.float64(), "inventory_qty": pa.int64()}
# Per-product text, canonical as dictionaries. Parquet writers usually store such columns
# dictionary-encoded, and reading them as dictionaries is then cheaper than as strings; in CSV the
# Shopify fill-down builds the dictionary itself, so there they are read as plain text.
# The image link too (canonical as a dictionary since issue 16's round 12): on the 1M bench table, one
# link per product, the parsed table is 331 MB instead of 361 MB (a string column made a per-row
# dictionary) and the load no slower.
PARQUET_DICT_ROLES = DICT_ROLES | {"title", "description", "image_url"}


def _column_types(det: headers.Detection, columns: list[str]) -> dict[str, pa.DataType]:
    reader = READERS[det.profile.key if det.profile else None]
    types: dict[str, pa.DataType] = {}
    numbers = SHOPIFY_NUMBERS if det.profile is not None and det.profile.key == "shopify" else {}
    for role, col in det.roles.items():
        types[col] = STR_DICT if role in DICT_ROLES else numbers.get(role, pa.string())
    for col in getattr(reader, "extra_columns", lambda c: [])(columns):
        types.setdefault(col, STR_DICT)
    for col in headers.snapshot_columns(columns):
        types.setdefault(col, STR_DICT)
    return types


# What the typed roles hold, for csvread's check of a header that lost a column (csvread._realign): a
# price reads a number (a sale price one below it), a name or category text that is not a bare number, an image a URL.
ROLE_KINDS = {
    "price": KIND_PRICE,
    "sale_price": KIND_SALE,
    **dict.fromkeys(("compare_at_price", "inventory_qty"), KIND_NUMBER),
    **dict.fromkeys(("title", "category_path", "brand", "description"), KIND_TEXT),
    **dict.fromkeys(("image_url", "link"), KIND_URL),
}


def _column_kinds(det: headers.Detection) -> dict[str, str]:
    return {col: ROLE_KINDS[role] for role, col in det.roles.items() if role in ROLE_KINDS}


def read_table_bytes(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    """CSV/TSV or Parquet bytes -> canonical table + evidence; UnreadableCatalog when unusable."""
    if data[:4] == b"PAR1" or name.lower().endswith(".parquet"):
        return _read_parquet(data, name, kind)
    found: dict[str, headers.Detection] = {}

    def choose(columns: list[str]) -> dict[str, pa.DataType]:
        det = headers.detect(columns)
        if not det.roles:
            raise UnreadableCatalog("no product columns recognised (such as title, SKU or price)")
        found["det"] = det
        return _column_types(det, columns)

    raw: RawCsv = read_csv(data, choose, lambda _columns: _column_kinds(found["det"]))
    heap.after_read(len(data), raw.table.num_rows, csv=True)
    det = found["det"]
    table, evidence = normalise(raw.table, raw.columns, det, name, kind)
    evidence.rows_read = raw.rows_read
    evidence.rows_skipped += raw.rows_skipped
    for reason, k in raw.skipped_reasons.items():
        evidence.skipped_reasons[reason] = evidence.skipped_reasons.get(reason, 0) + k
    evidence.delimiter = raw.delimiter
    evidence.encoding = raw.encoding
    evidence.rows_padded, evidence.rows_overlong, evidence.extra_cells = (
        raw.rows_padded,
        raw.rows_overlong,
        raw.extra_cells,
    )
    evidence.rows_rejoined = raw.rows_rejoined
    return table, evidence


def normalise(
    table: pa.Table,
    columns: list[str],
    det: headers.Detection,
    name: str,
    kind: str,
    meta_snapshot: dt.date | None = None,
    unified: frozenset[str] = frozenset(),
    early_mapping: Future | None = None,
) -> tuple[pa.Table, SourceEvidence]:
    """A detected table (its header roles in `det`) -> the canonical table and its evidence: the one
    normalisation every source uses — files, attachments, Cloud Storage and BigQuery reads alike."""
    reader = READERS[det.profile.key if det.profile else None]
    draft: Draft = reader.build(table, det.roles)
    pid_col = det.roles.get("product_id")
    if pid_col in unified and same_column(draft.cols.get("product_id"), table[pid_col]):
        draft.unique_product_ids = True  # (`unified`: a one-chunk dictionary, each value once)
    draft.early_mapping = early_mapping  # (taken only if the draft's mapping columns are the ones it read)
    snap = snapshot_from(
        table,
        headers.snapshot_columns(columns),
        month_first_default=det.profile is not None and det.profile.key == "magento",
    )
    snap_rows, newest, origin = snap.rows, snap.newest, snap.origin
    if meta_snapshot is not None and (newest is None or meta_snapshot > newest):
        newest, origin = meta_snapshot, "Parquet metadata snapshot_date"
    from agent.catalog.values import header_currency  # "Price (EUR)": the header names the currency

    draft.header_currency = header_currency(det.roles.get("price"))
    draft.month_first_dates = det.profile is not None and det.profile.key == "magento"  # (sale dates too)
    canonical_table = finish(draft, name, snap_rows)
    used = set(draft.used) | (
        {origin[len("column ") :].split(", ")[0]} if origin and origin.startswith("column ") else set()
    )
    evidence = SourceEvidence(
        name=name,
        kind=kind,
        format=det.name,
        rows_read=table.num_rows,
        rows_skipped=draft.skipped,
        format_score=det.score,
        snapshot_date=newest,
        snapshot_origin=origin,
        columns=list(columns),
        unmapped_columns=[column for column in columns if column not in used],
        date_columns=headers.date_like_columns(columns),
        snapshot_note=None if newest else snap.note,
        format_missing=list(det.missing),
        skipped_reasons={draft.skip_reason: draft.skipped} if draft.skipped else {},
        absent_fields=_absent_fields(draft, canonical_table),
    )
    return canonical_table, evidence


def _absent_fields(draft: Draft, table: pa.Table) -> list[str]:
    """The CHECKED_FIELDS the reader found no column for and nothing filled in (a column present but
    blank is not absent: its rows really lack the value)."""
    return [
        name
        for name in CHECKED_FIELDS
        if draft.cols.get(name) is None and table.num_rows and table[name].null_count == table.num_rows
    ]


def _read_parquet(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    import pyarrow.parquet as pq

    try:
        parquet_file = pq.ParquetFile(pa.BufferReader(data))
        schema = parquet_file.schema_arrow
        meta = schema.metadata or {}
        columns = list(schema.names)
    except Exception as exc:  # noqa: BLE001 - any decoding failure means "not usable"
        log.info("parquet read failed for %s: %s", name, exc)
        raise UnreadableCatalog("not a readable Parquet file") from None
    meta_snapshot = _meta_date(meta.get(b"snapshot_date"))
    if set(canonical.COLUMNS) - set(canonical.ADDED_LATER) <= set(columns):
        found = _read_canonical(data, name, kind, columns, meta_snapshot)
        if found is not None:
            return found
    det = headers.detect(columns)
    if not det.roles:
        raise UnreadableCatalog("no product columns recognised (such as title, SKU or price)")
    wanted_types = _column_types(det, columns)
    for role, col in det.roles.items():
        if role in PARQUET_DICT_ROLES:
            wanted_types[col] = STR_DICT
    wanted = [column for column in columns if column in wanted_types]
    as_dict = [
        column
        for column in wanted
        if wanted_types[column] == STR_DICT
        and (pa.types.is_string(schema.field(column).type) or pa.types.is_large_string(schema.field(column).type))
    ]
    try:
        table, unified, early = _read_overlapped(data, wanted, as_dict, det)
    except Exception as exc:  # noqa: BLE001
        log.info("parquet read failed for %s: %s", name, exc)
        raise UnreadableCatalog("not a readable Parquet file") from None
    heap.after_read(len(data), table.num_rows)
    canonical_table, evidence = normalise(table, columns, det, name, kind, meta_snapshot, unified, early)
    evidence.format = "Parquet" if det.profile is None else f"{det.name} (Parquet)"
    return canonical_table, evidence


def _read_overlapped(
    data: bytes, wanted: list[str], as_dict: list[str], det: headers.Detection
) -> tuple[pa.Table, frozenset[str], Future | None]:
    """`wanted` columns of a Parquet file, read in two groups so that the serial part of the
    normalisation overlaps the read instead of following it.

    Arrow gives each row group's dictionary column its own dictionary. The normalisation's first
    step for the product ids is one hash pass unifying them (their dictionary indices become the
    integer product keys); titles and descriptions get their dictionaries concatenated; and the
    taxonomy mapping reads titles, brands, types and categories. Each is one thread's work: after
    the whole read it leaves a vCPU idle. So, for a large table of the generic profile (columns as
    named, passed to the cleaning as read), those columns are read first; the ids are unified, the
    long text combined and then the mapping run (`start_mapping`) on the ingest pool while Arrow
    reads the rest. Every other dictionary column is combined on the pool as soon as its group is
    read, so that its row groups' pieces are freed then, not held by the read table beside the
    canonical column's copy until the ingest ends (issue 16 item 2's peak memory). Each combination
    is the one `clean_text` makes (`values.combine_for_cleaning`)
    and the mapping is `finish`'s own, so the canonical table is the same. (Three groups — ids,
    then titles, then the rest — measured slower: each group's read ends with a vCPU idle.)
    Returns the table, the columns whose one dictionary came from unification (each value once)
    and the early mapping (None when the table is read in one piece)."""
    import pyarrow.parquet as pq

    from agent.catalog.parallel import PARALLEL_MIN_ROWS, submit

    parquet_file = pq.ParquetFile(pa.BufferReader(data), read_dictionary=as_dict)
    rows = parquet_file.metadata.num_rows
    by_col = {col: role for role, col in det.roles.items()}
    ids = [column for column in as_dict if by_col.get(column) == "product_id"]
    combined = ids + [column for column in as_dict if by_col.get(column) in ("title", "description")]
    first = combined + [column for column in wanted if by_col.get(column) in MAPPING_ROLES and column not in combined]
    rest = [column for column in wanted if column not in first]
    if det.profile is not None or rows < PARALLEL_MIN_ROWS or parquet_file.metadata.num_row_groups < 2 or not rest:
        return parquet_file.read(columns=wanted), frozenset(), None
    read: dict[str, pa.ChunkedArray] = {}
    pending: list[Future] = []
    early: Future | None = None
    for group in (first, rest):
        # pq.read_table (the dataset reader) decodes row groups side by side as well as columns;
        # ParquetFile.read only spreads columns over threads. Its columns come one chunk per row
        # group; text stays so (the copy is saved, and the later steps take chunked text), numbers
        # are made one chunk as before (`_one_chunk_if_fixed_width`).
        part = pq.read_table(
            pa.BufferReader(data), columns=group, read_dictionary=[column for column in as_dict if column in group]
        )
        for col in group:
            column = _one_chunk_if_fixed_width(part.column(col))
            if col in combined:  # combined on the pool while Arrow reads the next group
                pending.append(submit(functools.partial(_combine_into, read, col, column, col in ids), rows))
            elif pa.types.is_dictionary(column.type) and column.num_chunks > 1:
                # every other dictionary column too (brands, types, statuses…): combined as its cleaning
                # will combine it, so the canonical column reuses the one chunk instead of copying the
                # row groups' pieces, which the read table would hold beside the copy
                categorical = cleaned_as_categorical(by_col.get(col))
                pending.append(submit(functools.partial(_combine_into, read, col, column, categorical), rows))
            else:
                read[col] = column
        del part, column  # the pool job holds the row groups' pieces only until it has combined them
        if group is first and any(by_col.get(column) in MAPPING_ROLES for column in first):
            # queued after the combinations it reads (the pool takes jobs in order: no deadlock)
            early = start_mapping(functools.partial(_mapping_columns, read, list(pending), by_col), rows)
    for future in pending:
        future.result()
    return pa.table({column: read[column] for column in wanted}), frozenset(ids), early


def _combine_into(read: dict[str, pa.ChunkedArray], name: str, column: pa.ChunkedArray, categorical: bool) -> None:
    """`read[name]` = `column` combined for cleaning. Done on the pool, and stored by the job itself,
    so that the per-row-group pieces (every title's and description's text, a second time) are
    freed as soon as the one chunk exists, while Arrow is still reading the next group — not kept
    until the whole read is over, where they raised the ingest's peak memory."""
    read[name] = chunked(combine_for_cleaning(column, categorical))


# header roles whose columns the taxonomy mapping reads (canonical names: `common.MAPPING_INPUTS`)
MAPPING_ROLES = frozenset({"google_category", "category_path", "product_type", "title", "brand"})


def _mapping_columns(
    read: dict[str, pa.ChunkedArray], ready: list[Future], by_col: dict[str, str]
) -> dict[str, pa.ChunkedArray]:
    """The mapping's columns by canonical name once `ready` (their combinations) are done, as the
    generic reader will take them into its draft (`generic.build`: each role's column as read)."""
    for future in ready:
        future.result()
    return {by_col[col]: value for col, value in list(read.items()) if by_col.get(col) in MAPPING_INPUTS}


def _one_chunk_if_fixed_width(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A number (or other fixed-width) column as one chunk, as `ParquetFile.read` gives it: the
    analysis reads prices and stock as numpy arrays every turn, and a chunked column makes each
    such read a concatenation (the warm 1M gaps turn measured 3.5 -> 4.4 ms with eight chunks).
    The copy is a few MB per column; text columns (tens of MB, read rarely) keep their chunks."""
    if column.num_chunks < 2 or not pa.types.is_primitive(column.type):
        return column
    return pa.chunked_array([column.combine_chunks()], type=column.type)


def _read_canonical(
    data: bytes, name: str, kind: str, columns: list[str], meta_snapshot: dt.date | None
) -> tuple[pa.Table, SourceEvidence] | None:
    """A Parquet file already in the canonical schema (ours, e.g. a saved attachment): no re-normalising."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        present = [column for column in canonical.COLUMNS if column in columns]
        read = pq.read_table(pa.BufferReader(data), columns=present)
        table = canonical.from_columns({column: read[column] for column in present}).cast(canonical.SCHEMA)
    except Exception as exc:  # noqa: BLE001 - not quite canonical after all: take the general path
        log.info("canonical parquet fast path declined for %s: %s", name, exc)
        return None
    newest, origin = meta_snapshot, "Parquet metadata snapshot_date" if meta_snapshot else None
    column_newest = pc.max(table["snapshot_date"]).as_py() if table.num_rows else None
    if column_newest is not None and (newest is None or column_newest > newest):
        newest, origin = column_newest, "column snapshot_date"
    evidence = SourceEvidence(
        name=name,
        kind=kind,
        format="canonical table (Parquet)",
        rows_read=table.num_rows,
        format_score=1.0,
        snapshot_date=newest,
        snapshot_origin=origin,
        columns=columns,
        unmapped_columns=[column for column in columns if column not in canonical.COLUMNS],
        date_columns=["snapshot_date"],
    )
    return table, evidence


def _meta_date(value: bytes | None) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value.decode("utf-8").strip()[:10])
    except (UnicodeDecodeError, ValueError):
        return None
