"""Merchant Center transfer tables for the BigQuery emulator, generated from the demo catalog.

`products_schema()` is the `Products_<merchant_id>` schema of the Merchant Center data transfer
(the columns the transfer documents, nested records included); `demo_products_rows()` turns
data/demo/catalog.csv into rows of that schema the way Merchant Center would hold the same offers:
`offer_id` = variant, `item_group_id` = product, price as {value, currency}, availability in feed
words ("in stock"), the merchant's own category as `product_type`, one Shopping destination, and an
item issue on offers without a GTIN.
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


def demo_rows() -> list[dict[str, str]]:
    with DEMO.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def demo_products_rows(merchant_id: int = 123456, day: str | None = None) -> list[dict]:
    """The demo catalog's offers (active ones: a feed holds what is for sale) as transfer rows."""
    out = []
    for r in demo_rows():
        if r["status"] != "active":
            continue
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
            "destinations": [
                {
                    "name": "Shopping",
                    "status": "approved",
                    "approved_countries": ["US"],
                    "pending_countries": [],
                    "disapproved_countries": [],
                }
            ],
            "issues": []
            if r["gtin"]
            else [
                {
                    "code": "missing_gtin",
                    "servability": "demoted",
                    "attribute_name": "gtin",
                    "destination": "Shopping",
                    "applicable_countries": ["US"],
                }
            ],
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


def create_products_table(
    client,
    project: str,
    *,
    rows: list[dict],
    field: str | None = None,
    merchant_id: int = 123456,
    dataset: str | None = None,
) -> str:
    """A fresh dataset holding `Products_<merchant_id>` (day-partitioned, on `field` when given, else by
    ingestion time as the transfer writes it) with `rows`; returns "project.dataset"."""
    from google.cloud import bigquery

    dataset = dataset or f"mc_{next(_counter)}"
    client.create_dataset(f"{project}.{dataset}", exists_ok=True)
    table = bigquery.Table(f"{project}.{dataset}.Products_{merchant_id}", schema=products_schema())
    table.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY, field=field)
    client.create_table(table)
    for start in range(0, len(rows), 500):
        errors = client.insert_rows_json(table, rows[start : start + 500])
        assert not errors, errors[:3]
    return f"{project}.{dataset}"


def create_copies_table(
    client, project: str, base: str, copies: int, *, merchant_id: int = 123456, to_merchant_id: int | None = None
) -> str:
    """A fresh dataset whose Products table holds `copies` copies of `base`'s Products_<merchant_id> (offer
    and item group ids suffixed -1…-copies), made in BigQuery by one INSERT … SELECT; returns its name."""
    target = to_merchant_id if to_merchant_id is not None else merchant_id
    dataset = create_products_table(client, project, rows=[], merchant_id=target)
    names = [f.name for f in products_schema()]
    select = ", ".join(
        f"CONCAT(p.{n}, '-', CAST(k AS STRING))" if n in ("offer_id", "item_group_id") else f"p.{n}" for n in names
    )
    client.query(
        f"INSERT INTO `{dataset}.Products_{target}` ({', '.join(names)}) SELECT {select} "
        f"FROM `{base}.Products_{merchant_id}` AS p CROSS JOIN UNNEST(GENERATE_ARRAY(1, {copies})) AS k"
    ).result()
    return dataset
