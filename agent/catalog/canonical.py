"""The canonical catalog table: every input format is normalised to this one Arrow schema.

One row per variant (a product without variants is one row). Skills only ever see this schema, so a
new input format never touches an analysis. Nulls mean "not in the data": `inventory_qty` null is
"stock unknown", never zero; `currency` null means the data did not say.

`product_key` is an integer per product, unique within one table (not across tables), so that the
costly distinct-product counts run on integers rather than strings.

Per-product text (`product_id`, `title`, `description`) and option values are dictionary-encoded: a product's variants
share one value (and a few dozen colours and sizes recur across all), so a million variant rows of
250,000 products hold 250,000 strings plus integer indices. Ingest fills product fields down to the variants with an integer take instead of copying
every string, the table is smaller in memory, and skills do string work once per distinct value.
`image_url` is a dictionary too: a Shopify export names one image per product, filled down to its
variants, and decoding it to plain strings cost a fresh 1M-variant ingest ~18 ms (~250 ms and ~130 MB
of cache at 5M) for no reader's benefit. A source whose image links are plain per-row strings (a
Merchant Center feed) gets a dictionary of one entry per row, made without hashing
(`values.per_row_dictionary`): its values may repeat, as a free-text dictionary's may.
Readers of these columns decode with `.cast(pa.string())` where a plain string is needed.

The merchant's own categories are kept beside the Google mapping, never replaced by it:
`category_path` is the primary own path (levels joined by " > ") for display and the mapping, and
`own_categories` holds *all* of a product's own paths — every path of a multi-category field (a
WooCommerce product in "Clothing > Tshirts, Music") plus the product type (Shopify `Type`) — each
with " > " levels, joined by a newline (`readers.own_categories.SEPARATOR`; no level holds one).
It is dictionary-encoded: per distinct combination one string, so scope matching over a million
rows parses a few thousand values. A scope "in Pumps" holds every product that has "Pumps" at any
level of any of these paths.

Merchant Center's own verdicts on an offer (a BigQuery `Products_` source: agent.catalog.mc_status)
are two more columns, `disapproved_destinations` and `issue_codes`. Decision: a joined string, not a
list<string> — per row the sorted distinct destination names (or issue codes) joined by a newline,
dictionary-encoded like `own_categories`, since a few dozen combinations recur over a million offers
and every Arrow kernel (filters, takes, dictionary unification, Parquet) handles a dictionary column
already. "" means the data states none; null means the source has no such record (every file).
"""

from __future__ import annotations

import pyarrow as pa

STATUS_VALUES = ("active", "draft", "archived", "unknown")
AVAILABILITY_VALUES = ("in_stock", "out_of_stock", "preorder", "backorder", "unknown")
# How google_category_id was found, per row (SPEC §4, in order of trust).
# "shopify_category": a Shopify Standard Product Taxonomy path, through Shopify's published mapping;
# "name_match": the taxonomies' own names matched on product type, own category or title noun;
# "own_category": where most placed products of the row's own category or product type stand;
# "vehicle_listing": a Merchant Center vehicle listing (mileage and model year), filed as vehicle ads file it.
MAPPING_METHODS = (
    "google_category",
    "merchant_path",
    "name_match",
    "unmapped",
    "shopify_category",
    "own_category",
    "vehicle_listing",
)

_dict = pa.dictionary(pa.int32(), pa.string())

SCHEMA = pa.schema(
    [
        pa.field("source", _dict),  # display name of the source the row came from
        pa.field("row_number", pa.int64()),  # 1-based data row in its source (header not counted)
        pa.field("product_key", pa.int64()),  # integer product key, unique per product in this table
        pa.field("product_id", _dict),
        pa.field("variant_id", pa.string()),
        pa.field("sku", pa.string()),
        pa.field("title", _dict),
        pa.field("description", _dict),
        pa.field("brand", _dict),
        pa.field("status", _dict),  # STATUS_VALUES
        pa.field("category_path", _dict),  # merchant's own category, levels joined by " > "
        pa.field("product_type", _dict),
        pa.field("google_category_id", pa.int32()),
        pa.field("google_category_path", _dict),
        pa.field("category_mapping", _dict),  # MAPPING_METHODS
        pa.field("price", pa.float64()),
        pa.field("compare_at_price", pa.float64()),
        pa.field("sale_price", pa.float64()),
        pa.field("currency", _dict),  # ISO 4217 code, null unless the data states it
        pa.field("inventory_qty", pa.int64()),  # null = unknown
        pa.field("availability", _dict),  # AVAILABILITY_VALUES
        pa.field("inventory_policy", _dict),  # "deny" | "continue" | null
        pa.field("gtin", pa.string()),
        pa.field("mpn", pa.string()),
        pa.field("color", _dict),
        pa.field("material", _dict),
        pa.field("size", _dict),
        pa.field("option1_name", _dict),
        pa.field("option1_value", _dict),
        pa.field("option2_name", _dict),
        pa.field("option2_value", _dict),
        pa.field("option3_name", _dict),
        pa.field("option3_value", _dict),
        pa.field("image_url", _dict),  # one image per product, mostly: see the module docstring
        pa.field("link", pa.string()),
        pa.field("snapshot_date", pa.date32()),  # the row's own date if the data has one per row
        # Whether the product is on the online store (Shopify `Published`): false with an active
        # status is a product on sale elsewhere (POS, other channels), not a draft; null = not stated.
        pa.field("online_store", pa.bool_()),
        # Merchant Center's identifier_exists as the feed states it: false = the product has no GTIN from
        # its maker (handmade, own brand, vintage: Merchant Center takes it without one), true = it has
        # one; null = not stated (every format but a feed, or a feed without the column)
        pa.field("identifier_exists", pa.bool_()),
        pa.field("own_categories", _dict),  # all own category paths (and product type), "\n"-joined
        # the sale price's schedule as the data states it (first and last day, inclusive); null = open
        pa.field("sale_start", pa.date32()),
        pa.field("sale_end", pa.date32()),
        # Merchant Center's own verdicts (a `Products_` transfer table only; agent.catalog.mc_status):
        # the destinations that disapprove the offer and the codes of its item issues, each the sorted
        # distinct values joined by "\n"; "" = the data says none, null = the source has no such record
        pa.field("disapproved_destinations", _dict),
        pa.field("issue_codes", _dict),
    ]
)

COLUMNS = tuple(SCHEMA.names)
# Columns added after canonical tables were first kept as Parquet (a saved attachment): a kept table
# without them is still read as canonical, the missing ones null ("the source has no such record").
ADDED_LATER = ("disapproved_destinations", "issue_codes")


def empty_table() -> pa.Table:
    """A zero-row canonical table: what a source with no readable rows contributes."""
    return SCHEMA.empty_table()


def from_columns(columns: dict[str, list | pa.Array]) -> pa.Table:
    """Build a canonical table from whatever columns are known; the rest become nulls.

    Used by format readers and by tests that construct small catalogs by hand.
    """
    row_count = None
    for value in columns.values():
        row_count = len(value)
        break
    row_count = row_count or 0
    unknown = set(columns) - set(COLUMNS)
    if unknown:
        raise ValueError(f"not canonical columns: {sorted(unknown)}")
    arrays = []
    for field in SCHEMA:
        value = columns.get(field.name)
        if value is None:
            arrays.append(pa.nulls(row_count, type=field.type))
        elif isinstance(value, (pa.Array, pa.ChunkedArray)):
            arrays.append(value.cast(field.type) if value.type != field.type else value)
        else:
            arrays.append(pa.array(value, type=field.type))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)
