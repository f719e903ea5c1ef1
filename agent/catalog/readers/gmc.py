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
from agent.catalog.readers.common import Draft, coalesce
from agent.catalog.values import to_strings


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    cols = {role: table[col] for role, col in roles.items() if col in table.column_names}
    cols["product_id"] = coalesce(cols.get("product_id"), cols.get("variant_id"))
    pause = cols.pop("pause", None)
    if pause is not None:
        paused = pc.is_valid(to_strings(pause))
        cols["status"] = pc.if_else(paused, "draft", "active")
    if "category_path" in cols:  # product_type may list several paths: the first is the main one
        cols["own_categories"] = own_categories.column(cols["category_path"], own_categories.gmc)
        cols["category_path"] = _first_path(cols["category_path"])
    return Draft(n=table.num_rows, cols=cols, used=set(roles.values()), default_status="active")


def _first_path(arr):
    from agent.catalog.values import map_distinct

    return map_distinct(
        to_strings(arr),
        lambda v: (own_categories.gmc(v) or "").split(own_categories.SEPARATOR)[0] or None,
        pa.string(),
        keep_dict=True,
    )
