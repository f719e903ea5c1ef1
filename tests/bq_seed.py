"""Merchant Center transfer tables for the BigQuery emulator, generated from the demo catalog.

`products_schema()` is the `Products_<merchant_id>` schema of the Merchant Center data transfer
(the columns the transfer documents, nested records included); `demo_products_rows()` turns
data/demo/catalog.csv into rows of that schema the way Merchant Center would hold the same offers:
`offer_id` = variant, `item_group_id` = product, price as {value, currency}, availability in feed
words ("in stock"), the merchant's own category as `product_type`, two destinations and item issues
(`destinations()`, `issues()`: some offers disapproved or pending).
"""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "catalog.csv"
_counter = itertools.count(1)


def products_schema():
    from google.cloud.bigquery import SchemaField as F

    money = [F("value", "NUMERIC"), F("currency", "STRING")]
    return [
        F("product_id", "STRING"),
        F("merchant_id", "INTEGER"),
        F("aggregator_id", "INTEGER"),
        F("offer_id", "STRING"),
        F("title", "STRING"),
        F("description", "STRING"),
        F("link", "STRING"),
        F("mobile_link", "STRING"),
        F("image_link", "STRING"),
        F("additional_image_links", "STRING", mode="REPEATED"),
        F("content_language", "STRING"),
        F("target_country", "STRING"),
        F("channel", "STRING"),
        F("expiration_date", "TIMESTAMP"),
        F("google_expiration_date", "TIMESTAMP"),
        F("adult", "BOOLEAN"),
        F("age_group", "STRING"),
        F("availability", "STRING"),
        F("availability_date", "TIMESTAMP"),
        F("brand", "STRING"),
        F("color", "STRING"),
        F("condition", "STRING"),
        F("custom_labels", "RECORD", fields=[F(f"label_{i}", "STRING") for i in range(5)]),
        F("gender", "STRING"),
        F("gtin", "STRING"),
        F("item_group_id", "STRING"),
        F("material", "STRING"),
        F("mpn", "STRING"),
        F("pattern", "STRING"),
        F("price", "RECORD", fields=money),
        F("sale_price", "RECORD", fields=money),
        F("sale_price_effective_start_date", "TIMESTAMP"),
        F("sale_price_effective_end_date", "TIMESTAMP"),
        F("google_product_category", "INTEGER"),
        F("google_product_category_path", "STRING"),
        F("product_type", "STRING"),
        F("additional_product_types", "STRING", mode="REPEATED"),
        F(
            "destinations",
            "RECORD",
            mode="REPEATED",
            fields=[
                F("name", "STRING"),
                F("status", "STRING"),
                F("approved_countries", "STRING", mode="REPEATED"),
                F("pending_countries", "STRING", mode="REPEATED"),
                F("disapproved_countries", "STRING", mode="REPEATED"),
            ],
        ),
        F(
            "issues",
            "RECORD",
            mode="REPEATED",
            fields=[
                F("code", "STRING"),
                F("servability", "STRING"),
                F("resolution", "STRING"),
                F("attribute_name", "STRING"),
                F("destination", "STRING"),
                F("short_description", "STRING"),
                F("detailed_description", "STRING"),
                F("documentation", "STRING"),
                F("applicable_countries", "STRING", mode="REPEATED"),
            ],
        ),
        F("size", "STRING"),
        F("product_data_timestamp", "TIMESTAMP"),
    ]


# The columns a narrow transfer table keeps (bench/bench_bigquery.py --narrow): what the pushdown reads,
# the title, sale price and its schedule, and category path the in-memory reader maps (the skills that
# read them: availability's examples, price_ladder's discounts, content_quality), and `destinations`
# (which marks the schema).
NARROW = (
    "offer_id",
    "item_group_id",
    "title",
    "brand",
    "gtin",
    "availability",
    "google_product_category",
    "google_product_category_path",
    "price",
    "sale_price",
    "sale_price_effective_start_date",
    "sale_price_effective_end_date",
    "destinations",
)


def narrow_schema():
    """products_schema() cut to NARROW: the same field definitions, a fraction of the bytes a row holds."""
    return [f for f in products_schema() if f.name in NARROW]


# Merchant Center's verdicts on the demo offers, by position (deterministic): most are approved for
# Shopping ads and free listings; every 11th is disapproved for Shopping in the US over its image,
# every 23rd in both destinations over its price, every 17th pending for free listings. Item issues as
# the transfer writes them: demoted for a missing GTIN, disapproved with the destination's disapproval.
DESTINATIONS = ("Shopping", "SurfacesAcrossGoogle")


def _destination(name: str, state: str) -> dict:
    return {
        "name": name,
        "status": state,
        "approved_countries": ["US"] if state == "approved" else [],
        "pending_countries": ["US"] if state == "pending" else [],
        "disapproved_countries": ["US"] if state == "disapproved" else [],
    }


def destinations(i: int) -> list[dict]:
    shopping = "disapproved" if i % 11 == 3 or i % 23 == 7 else "approved"
    free = "disapproved" if i % 23 == 7 else "pending" if i % 17 == 5 else "approved"
    return [_destination(DESTINATIONS[0], shopping), _destination(DESTINATIONS[1], free)]


def _issue(code: str, servability: str, attribute: str, destination: str) -> dict:
    return {
        "code": code,
        "servability": servability,
        "resolution": "merchant_action",
        "attribute_name": attribute,
        "destination": destination,
        "short_description": code.replace("_", " ").capitalize(),
        "applicable_countries": ["US"],
    }


def issues(i: int, has_gtin: bool) -> list[dict]:
    out = [] if has_gtin else [_issue("missing_gtin", "demoted", "gtin", "Shopping")]
    if i % 11 == 3:
        out.append(_issue("image_link_broken", "disapproved", "image_link", "Shopping"))
    if i % 23 == 7:
        out += [_issue("price_mismatch", "disapproved", "price", d) for d in DESTINATIONS]
    return out


def demo_rows() -> list[dict[str, str]]:
    with DEMO.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def demo_products_rows(merchant_id: int = 123456, day: str | None = None) -> list[dict]:
    """The demo catalog's offers (active ones: a feed holds what is for sale) as transfer rows."""
    out = []
    for i, r in enumerate(r for r in demo_rows() if r["status"] == "active"):
        row = {
            "product_id": f"online:en:US:{r['variant_id']}",
            "merchant_id": merchant_id,
            "offer_id": r["variant_id"],
            "title": r["title"],
            "description": r["description"] or None,
            "link": r["link"] or None,
            "image_link": r["image_url"] or None,
            "additional_image_links": [],
            "content_language": "en",
            "target_country": "US",
            "channel": "online",
            "availability": r["availability"].replace("_", " "),
            "brand": r["brand"] or None,
            "color": r["color"] or None,
            "condition": "new",
            "gtin": r["gtin"] or None,
            "item_group_id": r["product_id"],
            "material": r["material"] or None,
            "mpn": r["mpn"] or None,
            "price": {"value": r["price"], "currency": r["currency"] or "USD"} if r["price"] else None,
            "product_type": r["category"] or None,
            "size": r["size"] or None,
            "google_product_category_path": r["google_product_category"] or None,
            "destinations": destinations(i),
            "issues": issues(i, has_gtin=bool(r["gtin"])),
        }
        if day:
            row["product_data_timestamp"] = f"{day}T06:00:00Z"
        out.append(row)
    return out


def demo_products_rows_with_google_ids(merchant_id: int = 123456) -> list[dict]:
    """The demo offers that the agent places in a Google category, each carrying that category's id and
    path in `google_product_category` / `_path` as Merchant Center fills them (offers it cannot place
    are left out): the table on which the in-memory and pushdown paths place every offer alike."""
    from agent.catalog import taxonomy
    from agent.catalog.sources import load_demo

    demo, _ = load_demo()
    tax = taxonomy.load()
    ids = dict(zip(demo["variant_id"].cast("string").to_pylist(), demo["google_category_id"].to_pylist()))
    out = []
    for row in demo_products_rows(merchant_id):
        gid = ids.get(row["offer_id"])
        if gid is not None:
            out.append(
                dict(row, google_product_category=int(gid), google_product_category_path=tax.node(int(gid)).path)
            )
    return out


# (start, end) of a sale's schedule in days from the seeding day: none, running, ended, not begun, open end
SALE_SCHEDULES = ((None, None), (-5, 5), (-30, -10), (10, 30), (-3, None))


def with_sales(rows: list[dict], today=None) -> list[dict]:
    """Transfer rows with the demo's "was" prices as Merchant Center holds them: where the demo has a
    compare-at price above the price, `price` is that and `sale_price` the demo price, and the sale's
    schedule cycles through SALE_SCHEDULES around `today` (the partition day; default the UTC date)
    as the two TIMESTAMP columns of the transfer."""
    import datetime as dt

    today = today or dt.datetime.now(dt.timezone.utc).date()
    was = {r["variant_id"]: r["compare_at_price"] for r in demo_rows()}
    out, n = [], 0
    for row in rows:
        cap = was.get(row["offer_id"])
        if not (row.get("price") and cap and float(cap) > float(row["price"]["value"])):
            out.append(row)
            continue
        start, end = SALE_SCHEDULES[n % len(SALE_SCHEDULES)]
        n += 1
        stamp = {
            key: f"{today + dt.timedelta(days=days)}T08:00:00Z" if days is not None else None
            for key, days in (("sale_price_effective_start_date", start), ("sale_price_effective_end_date", end))
        }
        out.append(dict(row, price=dict(row["price"], value=cap), sale_price=dict(row["price"]), **stamp))
    return out


def create_products_table(
    client,
    project: str,
    *,
    rows: list[dict],
    field: str | None = None,
    merchant_id: int = 123456,
    dataset: str | None = None,
    schema=None,
) -> str:
    """A fresh dataset holding `Products_<merchant_id>` (day-partitioned, on `field` when given, else by
    ingestion time as the transfer writes it) with `rows`; returns "project.dataset". `schema`
    (default products_schema()) may be narrower; rows then keep only its columns."""
    from google.cloud import bigquery

    schema = schema or products_schema()
    names = {f.name for f in schema}
    rows = [{k: v for k, v in r.items() if k in names} for r in rows] if len(names) < len(products_schema()) else rows
    dataset = dataset or f"mc_{next(_counter)}"
    client.create_dataset(f"{project}.{dataset}", exists_ok=True)
    table = bigquery.Table(f"{project}.{dataset}.Products_{merchant_id}", schema=schema)
    table.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY, field=field)
    client.create_table(table)
    for start in range(0, len(rows), 500):
        errors = client.insert_rows_json(table, rows[start : start + 500])
        assert not errors, errors[:3]
    return f"{project}.{dataset}"


def create_copies_table(
    client,
    project: str,
    base: str,
    copies: int,
    *,
    merchant_id: int = 123456,
    to_merchant_id: int | None = None,
    schema=None,
) -> str:
    """A fresh dataset whose Products table holds `copies` copies of `base`'s Products_<merchant_id> (offer
    and item group ids suffixed -1…-copies), made in BigQuery by one INSERT … SELECT; returns its name.
    `schema` (default products_schema()) must be the base table's."""
    schema = schema or products_schema()
    target = to_merchant_id if to_merchant_id is not None else merchant_id
    dataset = create_products_table(client, project, rows=[], merchant_id=target, schema=schema)
    names = [f.name for f in schema]
    select = ", ".join(
        f"CONCAT(p.{n}, '-', CAST(k AS STRING))" if n in ("offer_id", "item_group_id") else f"p.{n}" for n in names
    )
    client.query(
        f"INSERT INTO `{dataset}.Products_{target}` ({', '.join(names)}) SELECT {select} "
        f"FROM `{base}.Products_{merchant_id}` AS p CROSS JOIN UNNEST(GENERATE_ARRAY(1, {copies})) AS k"
    ).result()
    return dataset


# ------------------------------------------------------------------ Best sellers transfer tables

BESTSELLERS = ROOT / "tests" / "bestsellers"
OLDER_WEEK = "2026-11-16"  # a partition before the reports' own week: never read (only the newest is)


def _money_micros(text: str, i: int) -> int:
    return int(round(float(text.split(" ")[2 * i]) * 1e6))


def bestsellers_schema(kind: str):
    """`BestSellersProductClusterWeekly_<id>` ("products") or `BestSellersBrandWeekly_<id>` ("brands"), the
    columns the transfer documents that the reader uses, nested records as the transfer nests them."""
    from google.cloud.bigquery import SchemaField as F

    demand = [F("bucket", "STRING"), F("min", "INTEGER"), F("max", "INTEGER")]
    common = [
        F("rank_timestamp", "TIMESTAMP"),
        F("rank_id", "STRING"),
        F("rank", "INTEGER"),
        F("previous_rank", "INTEGER"),
        F("country_code", "STRING"),
        F("report_category_id", "INTEGER"),
        F("brand", "STRING"),
        F("relative_demand", "RECORD", fields=demand),
        F("previous_relative_demand", "RECORD", fields=demand),
        F("brand_inventory_status", "STRING"),
    ]
    if kind == "brands":
        return common
    return common + [
        F("title", "STRING"),
        *(F(f"category_l{i}", "STRING") for i in range(1, 6)),
        F("variant_gtins", "STRING", mode="REPEATED"),
        F("product_inventory_status", "STRING"),
        F("entity_id", "STRING"),
        F(
            "price_range",
            "RECORD",
            fields=[F("min_amount_micros", "INTEGER"), F("max_amount_micros", "INTEGER"), F("currency_code", "STRING")],
        ),
    ]


def bestsellers_rows(kind: str) -> list[dict]:
    """tests/bestsellers/{products,brands}.csv as rows of the transfer table (its week's partition)."""
    path = BESTSELLERS / ("products.csv" if kind == "products" else "brands.csv")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for i, r in enumerate(rows):
        if kind == "products":
            levels = r["Category"].split(" > ")
            row = {
                "rank_timestamp": f"{r['Report date']}T00:00:00Z",
                "rank": int(r["Rank"]),
                "previous_rank": int(r["Previous rank"]) if r["Previous rank"] else None,
                "country_code": r["Country"],
                "report_category_id": int(r["Report category ID"]),
                "title": r["Product title"],
                "brand": r["Brand"],
                **{f"category_l{k}": levels[k - 1] if len(levels) >= k else None for k in range(1, 6)},
                "variant_gtins": [g.strip() for g in r["GTINs"].split(",") if g.strip()],
                "product_inventory_status": r["Product inventory status"] or None,
                "brand_inventory_status": r["Brand inventory status"],
                "relative_demand": {"bucket": r["Relative demand"].upper().replace(" ", "_")},
                "previous_relative_demand": {
                    "bucket": r["Previous relative demand"].upper().replace(" ", "_")
                    if r["Previous relative demand"]
                    else None
                },
                "price_range": {
                    "min_amount_micros": _money_micros(r["Price range"], 0),
                    "max_amount_micros": _money_micros(r["Price range"], 1),
                    "currency_code": "USD",
                },
            }
        else:
            row = {
                "rank_timestamp": f"{r['_PARTITIONDATE']}T00:00:00Z",
                "rank": int(r["rank"]),
                "previous_rank": int(r["previous_rank"]) if r["previous_rank"] else None,
                "country_code": r["country_code"],
                "report_category_id": int(r["report_category_id"]),
                "brand": r["brand"],
                "relative_demand": {
                    "bucket": r["relative_demand.bucket"],
                    "min": int(r["relative_demand.min"]),
                    "max": int(r["relative_demand.max"]),
                },
                "previous_relative_demand": {"bucket": r["previous_relative_demand.bucket"] or None},
                "brand_inventory_status": r["brand_inventory_status"],
            }
        row["rank_id"] = f"{row['rank_timestamp'][:10]}:{i}"
        out.append(row)
    return out


def create_bestsellers_tables(client, project: str, dataset: str, merchant_id: int = 123456) -> dict[str, str]:
    """`BestSellersProductClusterWeekly_<id>` and `BestSellersBrandWeekly_<id>` in `dataset` (created if
    needed), partitioned by day on `rank_timestamp`, each with its report's week and an older week of
    the same rows ranked in reverse; returns {"products": table id, "brands": table id}."""
    from google.cloud import bigquery

    client.create_dataset(f"{project}.{dataset}", exists_ok=True)
    out = {}
    for kind, name in (("products", "BestSellersProductClusterWeekly"), ("brands", "BestSellersBrandWeekly")):
        table = bigquery.Table(f"{project}.{dataset}.{name}_{merchant_id}", schema=bestsellers_schema(kind))
        table.time_partitioning = bigquery.TimePartitioning(
            type_=bigquery.TimePartitioningType.DAY, field="rank_timestamp"
        )
        client.create_table(table)
        rows = bestsellers_rows(kind)
        older = [
            dict(r, rank_timestamp=f"{OLDER_WEEK}T00:00:00Z", rank=len(rows) - r["rank"], rank_id=f"old:{i}")
            for i, r in enumerate(rows)
        ]
        for start in range(0, len(rows) * 2, 500):
            errors = client.insert_rows_json(table, (rows + older)[start : start + 500])
            assert not errors, errors[:3]
        out[kind] = table.table_id and f"{project}.{dataset}.{name}_{merchant_id}"
    return out


def corpus_products_rows(path: Path, merchant_id: int = 123456) -> list[dict]:
    """A corpus export (tests/corpus/*/…) as transfer rows, as Merchant Center would hold its offers: read
    by the file readers, then each variant an offer (`offer_id` its variant id, else its row), its product
    the item group, price as {value, currency}, availability in feed words, its own category as
    `product_type`, and `google_product_category` only where the merchant set one (the transfer's column is
    the merchant's, "NULL if not provided"): a category we inferred stays out, as it would in the transfer.
    No destinations or issues (a file has none)."""
    from agent.analysis.scoping import MERCHANT_SET
    from agent.catalog.ingest import read_table_bytes

    table, _ = read_table_bytes(path.read_bytes(), path.name, "attachment")
    out = []
    for i, r in enumerate(table.to_pylist()):
        if r["status"] not in (None, "active"):
            continue
        offer = str(r["variant_id"] or r["sku"] or f"row-{i}")
        filed = r["category_mapping"] in MERCHANT_SET and r["google_category_id"] is not None
        price = r["price"]
        out.append(
            {
                "product_id": f"online:en:US:{offer}",
                "merchant_id": merchant_id,
                "offer_id": offer,
                "item_group_id": str(r["product_id"]) if r["product_id"] is not None else None,
                "title": r["title"],
                "description": r["description"],
                "link": r["link"],
                "image_link": r["image_url"],
                "availability": (r["availability"] or "").replace("_", " ") or None,
                "brand": r["brand"],
                "gtin": r["gtin"],
                "mpn": r["mpn"],
                "color": r["color"],
                "material": r["material"],
                "size": r["size"],
                "price": {"value": f"{price:.2f}", "currency": r["currency"] or "USD"} if price is not None else None,
                "product_type": r["product_type"] or r["category_path"],
                "google_product_category": int(r["google_category_id"]) if filed else None,
                "google_product_category_path": r["google_category_path"] if filed else None,
            }
        )
    return out
