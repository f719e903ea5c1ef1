"""Merchant Center Best sellers (product clusters and brands) -> one normalised demand table.

Two ways in, one reader:

- `from_transfer(table)`: an Arrow table with the column names of the Merchant Center BigQuery
  transfer (`BestSellersProductClusterWeekly_/Monthly_<id>`, `BestSellersBrandWeekly_/Monthly_<id>`):
  `rank`, `previous_rank`, `country_code`, `report_category_id`, `title`, `brand`, `category_l1`…
  `category_l5`, `variant_gtins` (a list), `product_inventory_status` / `brand_inventory_status`
  (`IN_STOCK`, `OUT_OF_STOCK`, `NOT_IN_INVENTORY`), `entity_id`, `relative_demand` and
  `previous_relative_demand` (structs of `bucket`, `min`, `max`), `price_range` (a struct of
  `min_amount_micros`, `max_amount_micros`, `currency_code`), and the partition (`_PARTITIONDATE`,
  `_PARTITIONTIME`) or `rank_timestamp`. Nested fields may also come flattened (`relative_demand.bucket`,
  `relative_demand_bucket`), as a CSV export of such a table writes them. A BigQuery reader hands its
  Arrow result straight to this function.
- `read_csv_bytes(data, name, kind)`: the same from CSV, either with those column names or with the
  headers of the report downloaded from Merchant Center ("Rank", "Previous rank", "Product title",
  "Brand", "Category", "Country", "Relative demand", "Price range", "Inventory status",
  "Brand inventory status", "GTINs", "Report date"); the headers are mapped to the transfer names first.

Recognition (`sniff`): a header is a Best sellers report when it has a rank, a relative demand and a
title or brand column. A product-cluster report has titles; a brand report has brands only.

The normalised table (`SCHEMA`) has one row per report row. `category_id` is the cluster's own Google
category (its `category_l1…l5` path, or a "Category" path, resolved in the bundled taxonomy), else the
row's `report_category_id`. The report date comes from the data only (the partition, `rank_timestamp`
or a report date column), never from a file name or the clock.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import TYPE_CHECKING, Any

from agent.catalog.errors import UnreadableCatalog
from agent.catalog.evidence import SourceEvidence

if TYPE_CHECKING:
    import pyarrow as pa

FORMAT_PRODUCTS = "Best sellers report (product clusters)"
FORMAT_BRANDS = "Best sellers report (brands)"
ROLE = "demand"
# Relative demand buckets, weakest first: the score is the position + 1 (VERY_LOW 1 … VERY_HIGH 5).
BUCKETS = ("VERY_LOW", "LOW", "MEDIUM", "HIGH", "VERY_HIGH")
INVENTORY = ("IN_STOCK", "OUT_OF_STOCK", "NOT_IN_INVENTORY")

# Merchant Center download headers (and BigQuery CSV-export spellings) -> transfer column names.
_ALIASES = {
    "rank": "rank",
    "previous rank": "previous_rank",
    "prev rank": "previous_rank",
    "title": "title",
    "product title": "title",
    "product": "title",
    "product cluster": "title",
    "brand": "brand",
    "category": "category",
    "ranking category": "category",
    "category path": "category",
    "report category id": "report_category_id",
    "ranking category id": "report_category_id",
    "category id": "report_category_id",
    "google product category id": "report_category_id",
    "country": "country_code",
    "country code": "country_code",
    "ranking country": "country_code",
    "relative demand": "relative_demand_bucket",
    "relative demand bucket": "relative_demand_bucket",
    "relative demand min": "relative_demand_min",
    "relative demand max": "relative_demand_max",
    "previous relative demand": "previous_relative_demand_bucket",
    "previous relative demand bucket": "previous_relative_demand_bucket",
    "inventory status": "inventory_status",
    "product inventory status": "product_inventory_status",
    "brand inventory status": "brand_inventory_status",
    "gtins": "variant_gtins",
    "variant gtins": "variant_gtins",
    "gtin": "variant_gtins",
    "price range": "price_range",
    "price range min amount micros": "price_range_min_amount_micros",
    "price range max amount micros": "price_range_max_amount_micros",
    "price range currency code": "price_range_currency_code",
    "price range currency": "price_range_currency_code",
    "entity id": "entity_id",
    "rank id": "rank_id",
    "report date": "report_date",
    "date": "report_date",
    "rank timestamp": "rank_timestamp",
    "partitiondate": "_PARTITIONDATE",
    "partitiontime": "_PARTITIONTIME",
    "category l1": "category_l1",
    "category l2": "category_l2",
    "category l3": "category_l3",
    "category l4": "category_l4",
    "category l5": "category_l5",
}
# The Merchant Center transfer's Best sellers tables, by name (a bq:// location naming one is demand data).
TRANSFER_TABLE = re.compile(r"^BestSellers(ProductCluster|Brand)(Weekly|Monthly)_[A-Za-z0-9_]+$")
# The dataset form (`bq://project.dataset` + merchant id) reads these two: the weekly reports.
TRANSFER_TABLES = ("BestSellersProductClusterWeekly_", "BestSellersBrandWeekly_")
_DATE_COLUMNS = ("_PARTITIONDATE", "_PARTITIONTIME", "rank_timestamp", "report_date")


def _key(header: str) -> str:
    return re.sub(r"[\s._]+", " ", header.strip().lower()).strip()


def transfer_names(columns: list[str]) -> dict[str, str]:
    """Header -> transfer column name, for the headers this reader knows (first spelling wins)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for col in columns:
        name = _ALIASES.get(_key(col))
        if name and name not in taken:
            out[col] = name
            taken.add(name)
    return out


def sniff(columns: list[str]) -> str | None:
    """ "products", "brands" or None: whether a header is a Best sellers report, and which."""
    names = set(transfer_names(columns).values())
    if "rank" not in names or not names & {"relative_demand_bucket", "relative_demand_min", "relative_demand_max"}:
        return None
    if "title" in names:
        return "products"
    return "brands" if "brand" in names else None


def sniff_bytes(data: bytes) -> str | None:
    """sniff() on the first line of CSV/TSV bytes (BOM and either delimiter allowed)."""
    head = data[:4096].decode("utf-8-sig", errors="replace").splitlines()
    if not head:
        return None
    import csv

    line = head[0]
    delim = "\t" if line.count("\t") > line.count(",") else ","
    return sniff(next(csv.reader([line], delimiter=delim), []))


# ------------------------------------------------------------------ the normalised table


def _schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            pa.field("entity", pa.string()),  # "product" (a product cluster) or "brand"
            pa.field("rank", pa.int64()),  # rank within (country, report category)
            pa.field("previous_rank", pa.int64()),
            pa.field("country_code", pa.string()),
            pa.field("report_category_id", pa.int64()),
            pa.field("category_id", pa.int64()),  # the cluster's own Google category, else the report category
            pa.field("title", pa.string()),
            pa.field("brand", pa.string()),
            pa.field("demand_bucket", pa.string()),  # BUCKETS
            pa.field("demand_min", pa.int64()),
            pa.field("demand_max", pa.int64()),
            pa.field("previous_demand_bucket", pa.string()),
            pa.field("inventory_status", pa.string()),  # INVENTORY: the product's, or the brand's for a brand row
            pa.field("brand_inventory_status", pa.string()),
            pa.field("variant_gtins", pa.list_(pa.string())),
            pa.field("price_min", pa.float64()),
            pa.field("price_max", pa.float64()),
            pa.field("currency", pa.string()),
            pa.field("entity_id", pa.string()),
            pa.field("report_date", pa.date32()),
        ]
    )


def _text(v: Any) -> str | None:
    if v is None:
        return None
    text = str(v).strip()
    return text or None


def _int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return int(v)
    text = str(v).strip().replace(",", "")
    try:
        return int(float(text)) if text else None
    except ValueError:
        return None


def _bucket(v: Any) -> str | None:
    text = _text(v)
    if text is None:
        return None
    text = re.sub(r"[\s-]+", "_", text.upper())
    return text if text in BUCKETS else None


def _inventory(v: Any) -> str | None:
    text = _text(v)
    if text is None:
        return None
    text = re.sub(r"[\s-]+", "_", text.upper())
    return text if text in INVENTORY else None


def _gtins(v: Any) -> list[str]:
    if v is None:
        return []
    items = v if isinstance(v, (list, tuple)) else re.split(r"[,;\s|]+", str(v))
    return [gtin for gtin in (re.sub(r"\D", "", str(x)) for x in items) if gtin]


def _date(v: Any) -> dt.date | None:
    if isinstance(v, dt.datetime):
        return v.date()
    if isinstance(v, dt.date):
        return v
    text = _text(v)
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


_MONEY = re.compile(r"(\d[\d,]*(?:\.\d+)?)")
_CURRENCY = re.compile(r"\b([A-Z]{3})\b")


def _price_text(price: str | None) -> tuple[float | None, float | None, str | None]:
    """ "120.00 – 180.00 USD" / "USD 120-180" -> (120.0, 180.0, "USD")."""
    if not price:
        return None, None, None
    nums = [float(x.replace(",", "")) for x in _MONEY.findall(price)]
    cur = _CURRENCY.search(price.upper())
    if not nums:
        return None, None, cur.group(1) if cur else None
    return min(nums), max(nums), cur.group(1) if cur else None


def _category(row: dict[str, Any], taxonomy) -> tuple[int | None, int | None]:
    """(report category id, the cluster's own category id)."""
    report = _int(row.get("report_category_id"))
    path_text = _text(row.get("category"))
    if report is None and path_text and path_text.isdigit():
        report = int(path_text)
        path_text = None
    levels = [x for x in (_text(row.get(f"category_l{i}")) for i in range(1, 6)) if x]
    own = None
    if levels:
        own = taxonomy.longest_prefix(" > ".join(levels))
    elif path_text:
        own = taxonomy.longest_prefix(path_text)
        if report is None:
            report = own
    return report, own if own is not None else report


def _field(row: dict[str, Any], struct: str, part: str) -> Any:
    value = row.get(struct)
    if isinstance(value, dict):
        return value.get(part)
    return row.get(f"{struct}_{part}")


def normalise_rows(rows: list[dict[str, Any]], kind: str, taxonomy) -> pa.Table:
    """Rows keyed by transfer column names (structs as dicts or flattened `a_b`) -> the SCHEMA table."""
    import pyarrow as pa

    cols: dict[str, list] = {field.name: [] for field in _schema()}
    for row in rows:
        report, own = _category(row, taxonomy)
        bucket = _bucket(_field(row, "relative_demand", "bucket"))
        demand_low, demand_high = (
            _int(_field(row, "relative_demand", "min")),
            _int(_field(row, "relative_demand", "max")),
        )
        p_lo = _int(_field(row, "price_range", "min_amount_micros"))
        p_hi = _int(_field(row, "price_range", "max_amount_micros"))
        cur = _text(_field(row, "price_range", "currency_code"))
        price_min = p_lo / 1e6 if p_lo is not None else None
        price_max = p_hi / 1e6 if p_hi is not None else None
        if price_min is None and isinstance(row.get("price_range"), str):
            price_min, price_max, cur2 = _price_text(row["price_range"])
            cur = cur or cur2
        product_status = _inventory(row.get("product_inventory_status"))
        brand_status = _inventory(row.get("brand_inventory_status"))
        generic = _inventory(row.get("inventory_status"))
        own_status = (product_status or generic) if kind == "products" else (brand_status or generic)
        date = next(
            (candidate for candidate in (_date(row.get(column)) for column in _DATE_COLUMNS) if candidate), None
        )
        rank = _int(row.get("rank"))
        if rank is None:
            continue  # a row without a rank is no ranking (a footer line, a blank)
        cols["entity"].append("product" if kind == "products" else "brand")
        cols["rank"].append(rank)
        cols["previous_rank"].append(_int(row.get("previous_rank")))
        cols["country_code"].append(_text(row.get("country_code")))
        cols["report_category_id"].append(report)
        cols["category_id"].append(own)
        cols["title"].append(_text(row.get("title")) if kind == "products" else None)
        cols["brand"].append(_text(row.get("brand")))
        cols["demand_bucket"].append(bucket)
        cols["demand_min"].append(demand_low)
        cols["demand_max"].append(demand_high)
        cols["previous_demand_bucket"].append(_bucket(_field(row, "previous_relative_demand", "bucket")))
        cols["inventory_status"].append(own_status)
        cols["brand_inventory_status"].append(brand_status)
        cols["variant_gtins"].append(_gtins(row.get("variant_gtins")))
        cols["price_min"].append(price_min)
        cols["price_max"].append(price_max)
        cols["currency"].append(cur)
        cols["entity_id"].append(_text(row.get("entity_id")))
        cols["report_date"].append(date)
    return pa.table(cols, schema=_schema())


def _flatten_names(columns: list[str]) -> dict[str, str]:
    """Transfer names, with dotted nested names (`relative_demand.bucket`) as `relative_demand_bucket`."""
    out = {}
    for col in columns:
        flat = col.replace(".", "_")
        out[col] = flat if flat in _TRANSFER_FLAT else transfer_names([col]).get(col, flat)
    return out


_TRANSFER_FLAT = {
    "rank",
    "previous_rank",
    "country_code",
    "report_category_id",
    "title",
    "brand",
    "category_l1",
    "category_l2",
    "category_l3",
    "category_l4",
    "category_l5",
    "variant_gtins",
    "product_inventory_status",
    "brand_inventory_status",
    "entity_id",
    "rank_id",
    "relative_demand",
    "previous_relative_demand",
    "relative_demand_bucket",
    "relative_demand_min",
    "relative_demand_max",
    "previous_relative_demand_bucket",
    "price_range",
    "price_range_min_amount_micros",
    "price_range_max_amount_micros",
    "price_range_currency_code",
    "_PARTITIONDATE",
    "_PARTITIONTIME",
    "rank_timestamp",
    "report_date",
    "inventory_status",
    "category",
}


def transfer_columns() -> list[str]:
    """The top-level transfer columns the reader uses (a BigQuery read selects these, nothing else)."""
    return sorted(column for column in _TRANSFER_FLAT if "_" != column[0] and column not in _FLATTENED)


# Flattened spellings of nested fields (a CSV export's), not columns of the transfer table itself.
_FLATTENED = {
    "relative_demand_bucket",
    "relative_demand_min",
    "relative_demand_max",
    "previous_relative_demand_bucket",
    "price_range_min_amount_micros",
    "price_range_max_amount_micros",
    "price_range_currency_code",
    "report_date",
    "inventory_status",
    "category",
}


def from_transfer(table: pa.Table, name: str, kind: str, taxonomy=None) -> tuple[pa.Table, SourceEvidence]:
    """An Arrow table with the transfer's columns (as BigQuery returns them) -> (demand table, evidence)."""
    from agent.catalog import taxonomy as taxonomy_mod

    taxonomy = taxonomy or taxonomy_mod.load()
    renamed = _flatten_names(table.column_names)
    which = sniff(list(renamed.values())) or sniff(table.column_names)
    if which is None:
        raise UnreadableCatalog("not a Best sellers report: no rank and relative demand columns")
    rows = [{renamed[k]: v for k, v in record.items()} for record in table.to_pylist()]
    demand = normalise_rows(rows, which, taxonomy)
    dates = [day for day in demand["report_date"].to_pylist() if day]
    origin = next((column for column in _DATE_COLUMNS if column in renamed.values()), None)
    evidence = SourceEvidence(
        name=name,
        kind=kind,
        format=FORMAT_PRODUCTS if which == "products" else FORMAT_BRANDS,
        rows_read=table.num_rows,
        rows_skipped=table.num_rows - demand.num_rows,
        snapshot_date=max(dates) if dates else None,
        snapshot_origin=f"report date, column {origin}" if dates and origin else None,
        role=ROLE,
        columns=list(table.column_names),
        skipped_reasons={"without a rank": table.num_rows - demand.num_rows}
        if table.num_rows > demand.num_rows
        else {},
    )
    return demand, evidence


def read_csv_bytes(data: bytes, name: str, kind: str, taxonomy=None) -> tuple[pa.Table, SourceEvidence]:
    """A Best sellers CSV (transfer names or the Merchant Center download's headers) -> (demand table, evidence)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    text = data.decode("utf-8-sig", errors="replace")
    first = text.split("\n", 1)[0]
    delim = "\t" if first.count("\t") > first.count(",") else ","
    try:
        header = next(iter(__import__("csv").reader([first], delimiter=delim)))
        table = pacsv.read_csv(
            io.BytesIO(text.encode("utf-8")),
            parse_options=pacsv.ParseOptions(delimiter=delim, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(column_types={column: pa.string() for column in header}),
        )
    except (pa.ArrowInvalid, StopIteration) as exc:
        raise UnreadableCatalog("not a readable CSV: the Best sellers report could not be parsed") from exc
    return from_transfer(table, name, kind, taxonomy)


def bucket_score(bucket: str | None) -> int:
    """VERY_HIGH 5 … VERY_LOW 1; 0 when the report does not say."""
    return BUCKETS.index(bucket) + 1 if bucket in BUCKETS else 0


def bucket_label(bucket: str | None) -> str | None:
    return bucket.replace("_", " ").capitalize() if bucket else None
