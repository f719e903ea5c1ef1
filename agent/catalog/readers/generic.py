"""Any other table, through the header alias map: one row per variant, columns taken as named.

Without a product id column every row is its own product (we do not guess groupings from titles) —
except where the ids themselves say the product: a Google Ads custom feed made from a Shopify store
names each row `shopify_<country>_<product id>_<variant id>` (tests/corpus/generic/
babynatur-ads-feed-eur-hr.csv: 323 variants of 59 products). When every id of the file has that shape
and none repeats, the id is the variant and `shopify_<country>_<product id>` the product, exactly as
Merchant Center's `item_group_id` is (readers/gmc.py): the product id column, keyed by `finish`.
Without a status column the status is "unknown" — the data did not say.
A category cell may list several paths ("All collections;Rauðvín;Varvaglione", a Wix export's
`collection`): all of them are the product's own categories, split by the one generic rule of
readers/own_categories.py (`;`, or commas between paths), and `category_path` is the first of them —
Wix's catch-all "All collections" is a placeholder there, so it is never the one shown.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import headers
from agent.catalog.readers import own_categories
from agent.catalog.readers.common import Draft, attributes_from_options, identifier_exists
from agent.catalog.values import as_dictionary, flag_value, map_distinct, parse_int, to_strings

_MORE_URLS = r"[\s,;|]+https?://.*$"


def first_url(arr):
    """An image column may list several URLs ("a.jpg, b.jpg"): the first is the main image.
    The regex only runs when a sample of the column shows such lists."""
    if pa.types.is_dictionary(arr.type) or arr.null_count == len(arr):
        return arr
    sample = arr.slice(0, 2000)
    if not pc.any(pc.match_substring_regex(sample, r"[\s,;|]+https?://")).as_py():
        return arr
    return pc.replace_substring_regex(arr, _MORE_URLS, "")


_SHOPIFY_FEED_ID = re.compile(r"^(shopify_[A-Z]{2}_[0-9]+)_[0-9]+$")


def shopify_feed_products(ids: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | None:
    """Per row, `shopify_<country>_<product id>` of an id `shopify_<country>_<product id>_<variant id>`
    (Shopify's Google channel writes feed ids so), or None when the shape is not unambiguous across the
    file: a value of another shape, or an id given twice (then a row is no single variant; the ids
    are left as they are, each row its own product as before)."""
    text = to_strings(ids)
    present = text.drop_null() if isinstance(text, pa.ChunkedArray) else pa.chunked_array([text]).drop_null()
    if not len(present):
        return None
    products = map_distinct(
        text, lambda v: m.group(1) if v and (m := _SHOPIFY_FEED_ID.match(v.strip())) else None, pa.string()
    )
    if products.null_count != text.null_count or pc.count_distinct(present).as_py() != len(present):
        return None
    return products


def extra_columns(columns: list[str]) -> list[str]:
    """Columns read beside the roles: stock per location and whether it is tracked (`location_stock`),
    stock as labelled counts (`labelled_stock`)."""
    places = headers.location_stock_columns(columns)
    track = headers.track_inventory_column(columns) if places else None
    labelled = [column for column in columns if headers.norm(column) in _LABELLED_STOCK_COLUMNS]
    return places + ([track] if track else []) + labelled


def location_stock(table: pa.Table) -> tuple[pa.ChunkedArray, list[str]] | None:
    """Per row, the stock summed over the location columns (null where every location is blank, or
    where the row's stock is not tracked: its zeros are no count), and the columns read; None when
    the table has no location columns."""
    places = headers.location_stock_columns(table.column_names)
    if not places:
        return None
    counts = [parse_int(table[column]) for column in places]
    total = counts[0].fill_null(0)
    given = pc.is_valid(counts[0])
    for count in counts[1:]:
        total = pc.add(total, count.fill_null(0))
        given = pc.or_(given, pc.is_valid(count))
    used = list(places)
    track = headers.track_inventory_column(table.column_names)
    if track is not None:
        tracked = map_distinct(to_strings(table[track]), flag_value, pa.bool_())
        given = pc.and_(given, pc.fill_null(tracked, True))
        used.append(track)
    return pc.if_else(given, total, pa.scalar(None, pa.int64())), used


# What a store platform calls its kinds of product record (Magento's admin grid `Type`: "Simple Product",
# "Configurable Product"; WooCommerce's and Magento's own keys): how the record is built, never what the
# product is. A generic table whose `type` column holds only these has no product type (held-out
# hssnfarooq/luxeoverhemden-app magento_products.csv, an admin grid export of shirts, was read with the
# categories "Simple Product" and "Configurable Product").
_RECORD_KINDS = frozenset(
    kind + suffix
    for kind in ("simple", "configurable", "variable", "variation", "grouped", "bundle", "virtual", "downloadable")
    for suffix in ("", " product")
)


def record_kinds_only(values: pa.ChunkedArray) -> bool:
    """Whether every value of a column is a platform's kind of product record (`_RECORD_KINDS`).

    The values are the dictionary's entries that rows use: decoding a million-row dictionary column to
    strings first cost ~25 ms of a 1M-variant ingest."""
    column = as_dictionary(to_strings(values))
    distinct = column.dictionary.take(pc.unique(column.indices).drop_null()).to_pylist()
    kinds = {value.strip().lower() for value in distinct if value.strip()}
    return bool(kinds) and kinds <= _RECORD_KINDS


# Magento's admin product grid with its inventory sources writes a variant's stock as labelled counts in
# one cell: `Quantity per Source` "Default Source: 1, Supplier Stock: 0" (held-out hssnfarooq/
# luxeoverhemden-app magento_products.csv) and `Salable Quantity` "Default Stock: 1, Supplier Stock: 0".
# The stock is the sum of the counts, as over a POS export's locations; per source first, since a source
# is counted once while one source may feed several stocks (the salable counts can repeat it).
_LABELLED_STOCK_COLUMNS = ("quantity per source", "salable quantity")
_LABELLED_COUNT = re.compile(r"^\s*[^:,]+:\s*(-?\d+(?:\.\d+)?)\s*$")


def labelled_count(cell: object) -> int | None:
    """ "Default Stock: 1, Supplier Stock: 2" -> 3; a cell of any other form -> None (unknown)."""
    if not isinstance(cell, str):
        return None
    counts = [_LABELLED_COUNT.match(part) for part in cell.split(",")]
    if not counts or not all(counts):
        return None
    return int(sum(float(found.group(1)) for found in counts if found))


def labelled_stock(table: pa.Table) -> tuple[pa.ChunkedArray, str] | None:
    """Per row, the stock of a labelled-counts column (`_LABELLED_STOCK_COLUMNS`) and the column read."""
    by_norm = {headers.norm(column): column for column in table.column_names}
    column = next((by_norm[name] for name in _LABELLED_STOCK_COLUMNS if name in by_norm), None)
    if column is None:
        return None
    return map_distinct(to_strings(table[column]), labelled_count, pa.int64()), column


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    cols = {role: table[col] for role, col in roles.items() if col in table.column_names}
    used = set(roles.values())
    if "product_type" in cols and record_kinds_only(cols["product_type"]):
        del cols["product_type"]
        used.discard(roles["product_type"])
    if "inventory_qty" not in cols and (stock := location_stock(table)) is not None:
        cols["inventory_qty"], read = stock
        used.update(read)
    if "inventory_qty" not in cols and (labelled := labelled_stock(table)) is not None:
        cols["inventory_qty"], column = labelled
        used.add(column)
    if "product_id" not in cols and "variant_id" in cols:
        products = shopify_feed_products(cols["variant_id"])
        if products is not None:
            cols["product_id"] = products
    if "image_url" in cols:
        cols["image_url"] = first_url(cols["image_url"])
    if "identifier_exists" in cols:
        cols["identifier_exists"] = identifier_exists(cols["identifier_exists"])
    if "category_path" in cols:  # a cell may list several paths: all are own categories, the first is shown
        cols["own_categories"] = own_categories.column(cols["category_path"], own_categories.generic)
        cols["category_path"] = own_categories.primary(cols["category_path"], own_categories.generic)
    attributes_from_options(cols)
    return Draft(row_count=table.num_rows, cols=cols, used=used, currency_column="currency" in cols)
