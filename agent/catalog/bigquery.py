"""A `bq://` table -> (canonical table, evidence): the newest partition only, read where it lies.

The Merchant Center data transfer writes `Products_<merchant_id>`, partitioned by day (ingestion
time: `_PARTITIONDATE`). The snapshot is the newest partition; nothing older is read. A table
partitioned on a column (`time_partitioning.field`) uses that column's newest day instead, and an
unpartitioned table is read whole with its date, if any, from the data like any file.

Cost and memory, in order, before any row is read:
1. the newest partition is found with `SELECT MAX(<partition>)` (pseudo-columns cost no bytes);
2. the read is dry-run as the equivalent query, projected to the columns the skills use: its
   `totalBytesProcessed` is the estimate. A query whose estimate exceeds `maximum_bytes_billed` is
   not run (`BytesCapExceeded`: the answer states the cap and the estimate); every query that does
   run also carries `maximum_bytes_billed`, so BigQuery itself refuses a bigger scan;
3. under the size line (`in_memory_bytes`) the partition is read with the Storage Read API straight
   into Arrow (selected fields + row restriction: projection and the partition filter happen in
   BigQuery), flattened to a Merchant Center feed's columns and normalised by the same readers as a
   CSV. Above the line nothing is downloaded: a `Products_` table comes back as an empty table whose
   evidence carries a `Pushdown`, through which a skill that has a SQL form of its aggregation
   (agent.analysis.registry.IN_BIGQUERY; the shared offer columns are agent.analysis.sql_run) runs it in BigQuery and gets only aggregated rows; a
   table of another schema raises `OverSizeLine` and the answer says the partition is over the line.

An engine that reports no estimate (the local emulator reports 0 bytes for every dry run) gets a
lower bound instead: the partition's rows times BigQuery's minimum logical width of each projected
column (8 bytes a number, 2 a string, …). It is stated as an estimate, never as billed bytes.

The google-cloud-bigquery clients are imported here only, when a bq:// source is read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from agent.bqref import BqRef
from agent.catalog import headers, mc_status
from agent.catalog.errors import CatalogError, UnreadableCatalog

log = logging.getLogger(__name__)

KIND_BIGQUERY = "BigQuery"
PARTITION_PSEUDO = "_PARTITIONDATE"

# Merchant Center `Products_` transfer columns the skills use -> the feed column they become.
# Nested records are flattened: price.value + price.currency -> "15.00 USD" as in a feed file.
# No `identifier_exists` here, though the feed readers read it (content_quality's missing-GTIN check
# spares a row that states identifier_exists = no/false): the transfer's table has no such column.
# Google's schema page, "Google Merchant Center products table schema"
# (<https://cloud.google.com/bigquery/docs/merchant-center-products-schema>, read 2026-12-07), lists
# `gtin`, `mpn`, `brand`, `condition`, … and no identifier_exists (nor the Content API's
# `identifierExists`), so on this path every offer without a GTIN is counted missing, as in its SQL
# form (agent.analysis.content_quality_sql). A feed of the same offers that states "no" is counted less.
PRODUCTS_FLAT = {
    "offer_id": "id",
    "item_group_id": "item_group_id",
    "title": "title",
    "description": "description",
    "link": "link",
    "image_link": "image_link",
    "brand": "brand",
    "gtin": "gtin",
    "mpn": "mpn",
    "availability": "availability",
    "google_product_category_path": "google_product_category",
    "product_type": "product_type",
    "color": "color",
    "material": "material",
    "size": "size",
}
PRODUCTS_RECORDS = ("price", "sale_price")
# The sale's schedule: two TIMESTAMP columns in the transfer (the feed's one `sale_price_effective_date`
# interval, split). Flattened back into that interval, "start/end" (UTC), for the gmc reader.
SALE_WINDOW = ("sale_price_effective_start_date", "sale_price_effective_end_date")
PRODUCTS_DISTINCTIVE = {"offer_id", "price", "destinations"}  # enough to call a table a transfer table
# Destination statuses and item issues, read as they are and turned into the canonical columns
# `disapproved_destinations` / `issue_codes` (agent.catalog.mc_status), which content_quality reports.
# Read as whole records, descriptions included, though mc_status uses only `issues.code` and
# `destinations.{name, status, disapproved_countries}`: the Storage Read API documents selecting a
# STRUCT's children by dotted name, but the emulator the tests run (bqemulator 1.4.0) refuses any
# selected field that is not a plain column name (INVALID_ARGUMENT "Invalid column name: 'issues.code'"),
# so a narrower read could not be tested here and is not made.
PRODUCTS_STATUS = mc_status.RECORDS

# BigQuery's minimum logical bytes per value (its pricing page's data-size table).
_MIN_WIDTH = {
    "INTEGER": 8,
    "INT64": 8,
    "FLOAT": 8,
    "FLOAT64": 8,
    "NUMERIC": 16,
    "BIGNUMERIC": 32,
    "BOOLEAN": 1,
    "BOOL": 1,
    "DATE": 8,
    "DATETIME": 8,
    "TIME": 8,
    "TIMESTAMP": 8,
    "STRING": 2,
    "BYTES": 2,
}


class BytesCapExceeded(CatalogError):
    """The question's query would scan more than maximum_bytes_billed: not run."""

    def __init__(self, estimate: int, cap: int) -> None:
        super().__init__(f"estimated {estimate} bytes > cap {cap}")
        self.estimate, self.cap = estimate, cap


class OverSizeLine(CatalogError):
    """The partition is above the in-memory size line: aggregate in BigQuery instead."""

    def __init__(self, plan: "ReadPlan") -> None:
        super().__init__(f"{plan.estimate_bytes} bytes over the in-memory line")
        self.plan = plan


class BigQueryUnavailable(CatalogError):
    """The table could not be reached or read; the message is for the log only."""


@dataclass
class ReadPlan:
    """What will be read: the table, its snapshot partition, the projected columns, the estimate."""

    ref: BqRef
    columns: list[str]  # top-level columns selected
    products_schema: bool  # Merchant Center transfer schema (else generic header aliases)
    partition_expr: str | None  # SQL for the partition day ("_PARTITIONDATE", "DATE(`col`)")
    partition: dt.date | None  # the newest partition, None for an unpartitioned table
    rows: int | None  # rows in that partition, when known
    estimate_bytes: int  # dry-run totalBytesProcessed, or the lower bound (module docstring)
    estimate_exact: bool  # True when the engine estimated it
    partition_field_type: str | None = None  # DATE / TIMESTAMP / DATETIME of a partitioning column
    modified: Any = None  # the table's last modification time (metadata): part of the read's cache key

    @property
    def where(self) -> str:
        """The snapshot filter, in forms the Storage Read API's row restriction takes: the pseudo-column
        or a DATE column compared with a date, a TIMESTAMP/DATETIME column as a half-open day range."""
        if self.partition_expr is None or self.partition is None:
            return ""
        day = self.partition.isoformat()
        if self.partition_field_type in ("TIMESTAMP", "DATETIME"):
            col = self.partition_expr[len("DATE(") : -1]
            nxt = (self.partition + dt.timedelta(days=1)).isoformat()
            kind = self.partition_field_type
            return f"{col} >= {kind} '{day}' AND {col} < {kind} '{nxt}'"
        return f"{self.partition_expr} = DATE '{day}'"


# ------------------------------------------------------------------ clients


def clients(settings: Any, ref: BqRef) -> tuple[Any, Any]:
    """(bigquery.Client, BigQueryReadClient) for the settings: the emulator when configured."""
    from google.cloud import bigquery

    project = settings.project or ref.project
    if settings.emulator_host:
        from google.api_core.client_options import ClientOptions
        from google.auth.credentials import AnonymousCredentials

        client = bigquery.Client(
            project=project,
            credentials=AnonymousCredentials(),
            client_options=ClientOptions(api_endpoint=settings.emulator_host),
        )
    else:
        client = bigquery.Client(project=project)
    return client, _read_client(settings)


def _read_client(settings: Any) -> Any:
    from google.cloud.bigquery_storage_v1 import BigQueryReadClient

    if settings.storage_emulator_host:
        import grpc
        from google.cloud.bigquery_storage_v1.services.big_query_read.transports import BigQueryReadGrpcTransport

        # no message size limit, as the client's own default transport sets (a read stream's
        # messages pass 4 MB, gRPC's default, on tables of a few tens of thousands of rows)
        unlimited = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        channel = grpc.insecure_channel(settings.storage_emulator_host, options=unlimited)
        return BigQueryReadClient(transport=BigQueryReadGrpcTransport(channel=channel))
    return BigQueryReadClient()


def run_query(client: Any, sql: str, settings: Any) -> tuple[list[Any], int]:
    """Dry-run, refuse over the cap, then run capped: (rows, bytes processed as BigQuery reported)."""
    from google.cloud import bigquery

    dry = client.query(sql, job_config=bigquery.QueryJobConfig(dry_run=True, use_query_cache=False))
    estimate = int(dry.total_bytes_processed or 0)
    if estimate > settings.maximum_bytes_billed:
        raise BytesCapExceeded(estimate, settings.maximum_bytes_billed)
    job = client.query(
        sql, job_config=bigquery.QueryJobConfig(maximum_bytes_billed=max(settings.maximum_bytes_billed, 1))
    )
    rows = list(job.result())
    return rows, int(job.total_bytes_processed or 0)


# ------------------------------------------------------------------ planning


def plan_read(client: Any, ref: BqRef, settings: Any, columns: list[str] | None = None) -> ReadPlan:
    """Find the snapshot partition, choose the columns, estimate the bytes; refuse over the cap.

    `columns` overrides the choice (a caller reading a table that is not a catalog, such as a Best
    sellers table, names the columns it needs; names the table lacks are dropped)."""
    table = client.get_table(ref.table_id)
    fields = {field.name: field for field in table.schema}
    products = columns is None and PRODUCTS_DISTINCTIVE <= set(fields)
    if columns is not None:
        wanted = [column for column in columns if column in fields]
        if not wanted:
            raise UnreadableCatalog("none of the needed columns is in the table")
    elif products:
        wanted = [
            column for column in (*PRODUCTS_FLAT, *PRODUCTS_RECORDS, *SALE_WINDOW, *PRODUCTS_STATUS) if column in fields
        ]
    else:
        scalar = [
            name
            for name, field in fields.items()
            if field.field_type not in ("RECORD", "STRUCT") and field.mode != "REPEATED"
        ]
        det = headers.detect(scalar)
        if not det.roles:
            raise UnreadableCatalog("no product columns recognised (such as title, SKU or price)")
        used = set(det.roles.values()) | set(headers.snapshot_columns(scalar))
        wanted = [column for column in scalar if column in used]
    partitioning = table.time_partitioning
    expr = None
    if partitioning is not None:
        expr = f"DATE(`{partitioning.field}`)" if partitioning.field else PARTITION_PSEUDO
    partition = None
    if expr is not None:
        rows, _ = run_query(client, f"SELECT MAX({expr}) AS d FROM {ref.sql_name}", settings)
        partition = rows[0][0] if rows else None
        if isinstance(partition, dt.datetime):
            partition = partition.date()
    field_type = (
        fields[partitioning.field].field_type if partitioning is not None and partitioning.field in fields else None
    )
    plan = ReadPlan(ref, wanted, products, expr, partition, None, 0, False, field_type, table.modified)
    count_rows, _ = run_query(
        client, f"SELECT COUNT(*) FROM {ref.sql_name}" + (f" WHERE {plan.where}" if plan.where else ""), settings
    )
    plan.rows = int(count_rows[0][0]) if count_rows else 0
    plan.estimate_bytes, plan.estimate_exact = _estimate(client, plan, fields)
    # a transfer table above the size line is not read whole: its Pushdown checks the cap against the
    # columns its aggregations read, fewer than this projection
    pushed = products and plan.estimate_bytes > settings.in_memory_bytes
    if plan.estimate_bytes > settings.maximum_bytes_billed and not pushed:
        raise BytesCapExceeded(plan.estimate_bytes, settings.maximum_bytes_billed)
    return plan


def _estimate(client: Any, plan: ReadPlan, fields: dict[str, Any]) -> tuple[int, bool]:
    from google.cloud import bigquery

    cols = ", ".join(f"`{column}`" for column in plan.columns)
    sql = f"SELECT {cols} FROM {plan.ref.sql_name}" + (f" WHERE {plan.where}" if plan.where else "")
    dry = client.query(sql, job_config=bigquery.QueryJobConfig(dry_run=True, use_query_cache=False))
    reported = int(dry.total_bytes_processed or 0)
    if reported or not plan.rows:
        return reported, True
    width = sum(_min_width(fields[column]) for column in plan.columns)
    return width * int(plan.rows), False


def _min_width(field: Any) -> int:
    if field.field_type in ("RECORD", "STRUCT"):
        inner = sum(_min_width(subfield) for subfield in field.fields)
    else:
        inner = _MIN_WIDTH.get(field.field_type, 2)
    return 0 if field.mode == "REPEATED" else inner  # an empty repeated field takes nothing


# ------------------------------------------------------------------ reading


def read_arrow(settings: Any, plan: ReadPlan) -> pa.Table:
    """The snapshot partition's projected columns, through the Storage Read API, as one Arrow table."""
    from google.cloud.bigquery_storage_v1 import types

    read = _read_client(settings)
    options = types.ReadSession.TableReadOptions(selected_fields=plan.columns, row_restriction=plan.where)
    session = read.create_read_session(
        parent=f"projects/{settings.project or plan.ref.project}",
        read_session=types.ReadSession(
            table=f"projects/{plan.ref.project}/datasets/{plan.ref.dataset}/tables/{plan.ref.table}",
            data_format=types.DataFormat.ARROW,
            read_options=options,
        ),
        max_stream_count=4,
    )
    parts = [read.read_rows(stream.name).to_arrow(session) for stream in session.streams]
    parts = [part for part in parts if part.num_rows]
    if not parts:
        return pa.table({column: pa.nulls(0, pa.string()) for column in plan.columns})
    return pa.concat_tables(parts, promote_options="default")


def flatten_products(table: pa.Table) -> pa.Table:
    """Transfer-schema rows -> a Merchant Center feed's flat columns (the gmc reader takes them)."""
    out: dict[str, pa.ChunkedArray] = {}
    for col, name in PRODUCTS_FLAT.items():
        if col in table.column_names:
            arr = table[col]
            out[name] = arr if pa.types.is_string(arr.type) else pc.cast(arr, pa.string())
    for record in PRODUCTS_RECORDS:
        if record in table.column_names:
            out[record] = _money(table[record])
    if any(column in table.column_names for column in SALE_WINDOW):
        out["sale_price_effective_date"] = _sale_window(table)
    if "google_product_category" not in out and "google_product_category" in table.column_names:
        out["google_product_category"] = pc.cast(table["google_product_category"], pa.string())
    return pa.table(out)


def canonical_rows(rows: Sequence[dict[str, Any]], name: str) -> pa.Table:
    """A few transfer-schema rows (dicts of its plain columns, as a query returns them) -> canonical rows,
    by the same flattening and readers as a Storage Read of the table (`_normalised`). For the SQL
    forms that must decide a row as the in-memory path would (agent.analysis.sql_run's title matches
    filed above the scope): they send the distinct rows that decision reads and get the same columns
    the in-memory table holds."""
    from agent.catalog.ingest import normalise

    if not rows:
        return pa.table({})
    flat = flatten_products(pa.Table.from_pylist(list(rows)))
    columns = list(flat.column_names)
    table, _ = normalise(flat, columns, headers.detect(columns), name, KIND_BIGQUERY)
    return table


def _date_columns(plan: ReadPlan) -> list[str]:
    """A transfer table's date columns the skills read (the sale schedule), as the evidence lists them."""
    return [column for column in plan.columns if column in SALE_WINDOW]


def _sale_window(table: pa.Table) -> pa.ChunkedArray:
    """The two schedule TIMESTAMPs -> the feed's "2026-11-20T08:00:00Z/2026-11-30T07:59:00Z" interval (a
    missing half left empty, an open bound; both missing: null). The reader takes each half's day as
    written, so a transfer's sale window is read in UTC days (decision: the transfer holds no zone)."""
    halves = []
    for column in SALE_WINDOW:
        if column in table.column_names and pa.types.is_timestamp(table[column].type):
            halves.append(pc.strftime(table[column], format="%Y-%m-%dT%H:%M:%SZ"))
        elif column in table.column_names:
            halves.append(pc.cast(table[column], pa.string()))
        else:
            halves.append(pa.nulls(table.num_rows, pa.string()))
    joined = pc.binary_join_element_wise(pc.fill_null(halves[0], ""), pc.fill_null(halves[1], ""), "/")
    stated = pc.or_(pc.is_valid(halves[0]), pc.is_valid(halves[1]))
    return pc.if_else(stated, joined, pa.scalar(None, pa.string()))


def _money(arr: pa.ChunkedArray) -> pa.ChunkedArray:
    """price {value, currency} -> "15.00 USD" (null when the value is null)."""
    value = pc.cast(pc.struct_field(arr, "value"), pa.string())
    currency = pc.fill_null(pc.cast(pc.struct_field(arr, "currency"), pa.string()), "")
    joined = pc.utf8_trim_whitespace(pc.binary_join_element_wise(value, currency, " "))
    return pc.if_else(pc.is_valid(value), joined, pa.scalar(None, pa.string()))


def load_table(ref: BqRef, settings: Any, name: str, kind: str = KIND_BIGQUERY):
    """bq:// table -> (canonical table, SourceEvidence). Raises BytesCapExceeded, OverSizeLine,
    BigQueryUnavailable or UnreadableCatalog; nothing else escapes."""
    from google.api_core import exceptions as gexc

    from agent.catalog.cache import TABLE_CACHE

    try:
        client, _ = clients(settings, ref)
        plan = plan_read(client, ref, settings)
        if plan.estimate_bytes > settings.in_memory_bytes:
            if plan.products_schema:  # aggregated where it lies (Pushdown); nothing is downloaded
                return pushdown_source(ref, settings, name, plan)
            raise OverSizeLine(plan)
        read: list[bool] = []

        def load():
            read.append(True)
            return _normalised(read_arrow(settings, plan), plan, name, kind)

        table, evidence = TABLE_CACHE.get_or_load(_cache_key("catalog", plan), load, lambda v: int(v[0].nbytes))
        if not read:  # kept from an earlier turn: this one's Storage Read scanned nothing
            return table, dataclasses.replace(evidence, bytes_scanned=0, bytes_exact=True)
    except (BytesCapExceeded, OverSizeLine, UnreadableCatalog):
        raise
    except gexc.GoogleAPIError as exc:
        raise BigQueryUnavailable(f"{ref.uri}: {type(exc).__name__}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - transport errors (grpc, auth) must not fail the turn
        raise BigQueryUnavailable(f"{ref.uri}: {type(exc).__name__}: {exc}") from None
    return table, dataclasses.replace(evidence)


def _nbytes(table: pa.Table) -> int:
    return int(table.nbytes)


def _cache_key(kind: str, plan: ReadPlan) -> tuple:
    """One read per snapshot partition per instance (the one parsed-table cache, TABLE_CACHE): the key
    names the table, the partition, the table's last modification and the partition's row count, so a
    partition that is rewritten (the transfer run again) or grows is read afresh."""
    return ("bigquery", kind, plan.ref.table_id, plan.partition, plan.modified, plan.rows, tuple(plan.columns))


def _normalised(raw: pa.Table, plan: ReadPlan, name: str, kind: str):
    """The Storage Read's Arrow -> (canonical table, evidence), by the same readers as a file."""
    from agent.catalog.ingest import normalise

    flat = flatten_products(raw) if plan.products_schema else raw
    columns = list(flat.column_names)
    det = headers.detect(columns)
    if not det.roles:
        raise UnreadableCatalog("no product columns recognised (such as title, SKU or price)")
    table, evidence = normalise(flat, columns, det, name, kind, meta_snapshot=plan.partition)
    if plan.products_schema:
        table = mc_status.attach(table, raw)
    if plan.partition is not None:
        evidence.snapshot_date = plan.partition
        evidence.snapshot_origin = f"newest partition, {plan.partition_expr}"
    evidence.format = (
        "Merchant Center Products transfer table" if plan.products_schema else f"{det.name} (BigQuery table)"
    )
    evidence.columns = list(plan.columns)
    if plan.products_schema:  # the table's own date columns, not the feed interval they are flattened to
        evidence.date_columns = _date_columns(plan)
    evidence.bytes_scanned = plan.estimate_bytes
    evidence.bytes_exact = plan.estimate_exact
    return table, evidence


def read_newest_partition(ref: BqRef, settings: Any, columns: list[str]) -> tuple[pa.Table, ReadPlan]:
    """Any table's newest partition, projected to `columns`, as raw Arrow (no normalising): for readers
    of tables that are not catalogs (the Merchant Center Best sellers tables). Same cap, estimate and
    size line as a catalog read, and the same cache; raises what load_table raises."""
    from google.api_core import exceptions as gexc

    from agent.catalog.cache import TABLE_CACHE

    try:
        client, _ = clients(settings, ref)
        plan = plan_read(client, ref, settings, columns)
        if plan.estimate_bytes > settings.in_memory_bytes:
            raise OverSizeLine(plan)
        return TABLE_CACHE.get_or_load(_cache_key("raw", plan), lambda: read_arrow(settings, plan), _nbytes), plan
    except (BytesCapExceeded, OverSizeLine, UnreadableCatalog):
        raise
    except (gexc.GoogleAPIError, Exception) as exc:  # noqa: BLE001 - transport errors must not fail the turn
        raise BigQueryUnavailable(f"{ref.uri}: {type(exc).__name__}: {exc}") from None


def load_bestsellers(ref: BqRef, settings: Any, name: str):
    """A Merchant Center Best sellers transfer table (`BestSellersProductClusterWeekly_<id>`, …) ->
    (demand table, evidence): its newest partition, projected to the columns the Best sellers reader
    uses, through the same cap, size line and cache as a catalog. The partition's day is the report
    date (the footer's snapshot date). Raises what load_table raises."""
    from google.api_core import exceptions as gexc

    from agent.catalog import bestsellers
    from agent.catalog.cache import TABLE_CACHE

    try:
        client, _ = clients(settings, ref)
        plan = plan_read(client, ref, settings, bestsellers.transfer_columns())
        if plan.estimate_bytes > settings.in_memory_bytes:
            raise OverSizeLine(plan)
        read: list[bool] = []

        def load():
            read.append(True)
            raw = read_arrow(settings, plan)
            if plan.partition is not None and PARTITION_PSEUDO not in raw.column_names:
                raw = raw.append_column(PARTITION_PSEUDO, pa.array([plan.partition] * raw.num_rows, pa.date32()))
            demand, evidence = bestsellers.from_transfer(raw, name, KIND_BIGQUERY)
            if plan.partition is not None:
                evidence.snapshot_date = plan.partition
                evidence.snapshot_origin = f"newest partition, {plan.partition_expr}"
            evidence.columns = list(plan.columns)
            evidence.bytes_scanned, evidence.bytes_exact = plan.estimate_bytes, plan.estimate_exact
            return demand, evidence

        demand, evidence = TABLE_CACHE.get_or_load(_cache_key("bestsellers", plan), load, lambda v: int(v[0].nbytes))
    except (BytesCapExceeded, OverSizeLine, UnreadableCatalog):
        raise
    except (gexc.GoogleAPIError, Exception) as exc:  # noqa: BLE001 - transport errors must not fail the turn
        raise BigQueryUnavailable(f"{ref.uri}: {type(exc).__name__}: {exc}") from None
    if not read:  # kept from an earlier turn: nothing scanned now
        return demand, dataclasses.replace(evidence, bytes_scanned=0, bytes_exact=True)
    return demand, dataclasses.replace(evidence)


# ------------------------------------------------------------------ pushdown (above the size line)

# The transfer columns the pushdown aggregations read (nothing else is scanned).
PUSHDOWN_COLUMNS = (
    "offer_id",
    "item_group_id",
    "google_product_category",
    "availability",
    "price",
    "sale_price",
    "brand",
    "title",
    "gtin",
    *SALE_WINDOW,  # price_ladder judges a sale price by its schedule
)


class Pushdown:
    """A bq:// table above the size line: not downloaded; skills send their aggregation here as SQL.

    `query(sql, params)` fills `{table}` and `{where}` (the table's backquoted name and the snapshot
    partition filter), dry-runs it, refuses it over `maximum_bytes_billed` (BytesCapExceeded), then runs
    it with the cap set, and adds what it scanned to the evidence the footer states. The engine's own
    figure is used when it gives one; otherwise (the emulator) the lower bound of the columns read, as
    for a Storage Read (module docstring), marked "at least".

    Only Merchant Center `Products_` tables are pushed down: their columns have one meaning
    (PUSHDOWN_COLUMNS); a table of another schema above the line is answered with the line, as before.
    """

    def __init__(self, client: Any, settings: Any, plan: ReadPlan, evidence: Any) -> None:
        self.client, self.settings, self.plan, self.evidence = client, settings, plan, evidence
        table = client.get_table(plan.ref.table_id)
        fields = {field.name: field for field in table.schema}
        self.columns = [column for column in PUSHDOWN_COLUMNS if column in fields]
        self.estimate, self.estimate_exact = _estimate(client, dataclasses.replace(plan, columns=self.columns), fields)
        if self.estimate > settings.maximum_bytes_billed:
            raise BytesCapExceeded(self.estimate, settings.maximum_bytes_billed)
        self.has = set(fields)
        self._fields = fields
        self._estimates: dict[tuple[str, ...], tuple[int, bool]] = {(): (self.estimate, self.estimate_exact)}
        # what a question's SQL forms work out once and share (agent.analysis.sql_run's filed-above keys
        # per scope): this object lives for one question's sources
        self.memo: dict[Any, Any] = {}

    def estimate_for(self, reads: Sequence[str]) -> int:
        """The estimate of a query that also reads the transfer columns `reads` (beyond PUSHDOWN_COLUMNS:
        content_quality reads titles and descriptions), once per set of columns: a skill that reads
        more is checked against the cap on what it reads, and one that reads less is not held to it."""
        extra = tuple(sorted({column for column in reads if column in self.has} - set(self.columns)))
        if extra not in self._estimates:
            plan = dataclasses.replace(self.plan, columns=[*self.columns, *extra])
            self._estimates[extra] = _estimate(self.client, plan, self._fields)
        return self._estimates[extra][0]

    def query(self, sql: str, params: Sequence[Any] = (), reads: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Rows of one aggregation query, as dicts; raises BytesCapExceeded or BigQueryUnavailable.
        `reads`: transfer columns the query reads beyond PUSHDOWN_COLUMNS (estimate_for)."""
        from google.api_core import exceptions as gexc
        from google.cloud import bigquery

        text = sql.format(table=self.plan.ref.sql_name, where=self.plan.where or "TRUE")
        cap = self.settings.maximum_bytes_billed
        estimate = self.estimate_for(reads) if reads else self.estimate
        try:
            dry = self.client.query(
                text,
                job_config=bigquery.QueryJobConfig(dry_run=True, use_query_cache=False, query_parameters=list(params)),
            )
            reported = int(dry.total_bytes_processed or 0)
            if max(reported, estimate) > cap:
                raise BytesCapExceeded(max(reported, estimate), cap)
            job = self.client.query(
                text,
                job_config=bigquery.QueryJobConfig(maximum_bytes_billed=max(cap, 1), query_parameters=list(params)),
            )
            rows = [dict(record.items()) for record in job.result()]
        except BytesCapExceeded:
            raise
        except (gexc.GoogleAPIError, Exception) as exc:  # noqa: BLE001 - transport errors must not fail the turn
            raise BigQueryUnavailable(f"{self.plan.ref.uri}: {type(exc).__name__}: {exc}") from None
        scanned = int(job.total_bytes_processed or 0)
        exact = bool(scanned) or not estimate
        self.evidence.bytes_scanned = (self.evidence.bytes_scanned or 0) + (scanned if scanned else estimate)
        self.evidence.bytes_exact = self.evidence.bytes_exact and exact
        return rows


def pushdown_source(ref: BqRef, settings: Any, name: str, plan: ReadPlan):
    """(empty canonical table, evidence carrying a Pushdown) for a transfer table above the size line."""
    from agent.catalog import canonical
    from agent.catalog.evidence import SourceEvidence

    client, _ = clients(settings, ref)
    evidence = SourceEvidence(
        name=name,
        kind=KIND_BIGQUERY,
        format="Merchant Center Products transfer table",  # the footer says it was aggregated in BigQuery
        rows_read=int(plan.rows or 0),
        snapshot_date=plan.partition,
        snapshot_origin=f"newest partition, {plan.partition_expr}" if plan.partition else None,
        bytes_scanned=0,
        bytes_exact=True,
    )
    evidence.pushdown = Pushdown(client, settings, plan, evidence)
    evidence.columns = list(plan.columns)  # the table's columns the skills use, as a read would list them
    evidence.date_columns = _date_columns(plan)
    return canonical.empty_table(), evidence
