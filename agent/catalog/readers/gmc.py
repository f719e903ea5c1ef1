"""Google Merchant Center product feed (CSV or TSV; headers with or without a `g:` prefix).

One row per offer: `id` is the variant, `item_group_id` the product (a row without a group is a
product of its own). `price` and `sale_price` carry the currency ("15.00 USD"). `product_type` is the
merchant's own category path; `google_product_category` an id or a taxonomy path. A feed lists what
the merchant submits for sale, so rows are "active" unless `pause` says the item is paused.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.readers import own_categories
from agent.catalog.readers.common import Draft, coalesce, identifier_exists
from agent.catalog.values import to_strings


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    cols = {role: table[col] for role, col in roles.items() if col in table.column_names}
    cols["product_id"] = coalesce(cols.get("product_id"), cols.get("variant_id"))
    pause = cols.pop("pause", None)
    if pause is not None:
        paused = pc.is_valid(to_strings(pause))
        cols["status"] = pc.if_else(paused, "draft", "active")
    if "identifier_exists" in cols:
        cols["identifier_exists"] = identifier_exists(cols["identifier_exists"])
    listing = vehicle_listings(table)
    used = set(roles.values())
    if listing is not None:
        cols["vehicle_listing"] = listing
        used.update(extra_columns(table.column_names))
    if "category_path" in cols:  # product_type may list several paths: the first is the main one
        cols["own_categories"] = own_categories.column(cols["category_path"], own_categories.gmc)
        cols["category_path"] = own_categories.primary(cols["category_path"], own_categories.gmc)
    return Draft(row_count=table.num_rows, cols=cols, used=used, default_status="active")


# Google's vehicle ads attributes that only a vehicle carries together: its odometer and model year.
VEHICLE_ATTRIBUTES = ("mileage", "year")


def extra_columns(columns: list[str]) -> list[str]:
    """Columns read beside the roles: the vehicle ads attributes, when the feed has all of them."""
    from agent.catalog.headers import norm

    found: dict[str, str] = {}
    for name in columns:
        key = norm(name)
        if key in VEHICLE_ATTRIBUTES and key not in found:
            found[key] = name
    return list(found.values()) if len(found) == len(VEHICLE_ATTRIBUTES) else []


def vehicle_listings(table: pa.Table) -> pa.ChunkedArray | None:
    """Per row, whether it is a vehicle listing in Google's vehicle ads form (`mileage` and `year`
    both given; `g:` prefixes and case as headers allow), or None when the feed lacks either column.
    Such a row is a vehicle whatever its title says ("2012 Bessacarr E520 White"): categorise step (v)."""
    names = extra_columns(table.column_names)
    if not names:
        return None
    given = None
    for name in names:
        raw = to_strings(table[name])
        text = pc.utf8_trim_whitespace(raw.cast(pa.string()) if pa.types.is_dictionary(raw.type) else raw)
        has = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
        given = has if given is None else pc.and_(given, has)
    return given
