"""Any other table, through the header alias map: one row per variant, columns taken as named.

Without a product id column every row is its own product (we do not guess groupings from titles).
Without a status column the status is "unknown" — the data did not say.
A category cell may list several paths ("All collections;Rauðvín;Varvaglione", a Wix export's
`collection`): all of them are the product's own categories, split by the one generic rule of
readers/own_categories.py (`;`, or commas between paths), and `category_path` is the first of them —
Wix's catch-all "All collections" is a placeholder there, so it is never the one shown.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.readers import own_categories
from agent.catalog.readers.common import Draft, attributes_from_options

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


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    cols = {role: table[col] for role, col in roles.items() if col in table.column_names}
    if "image_url" in cols:
        cols["image_url"] = first_url(cols["image_url"])
    if "category_path" in cols:  # a cell may list several paths: all are own categories, the first is shown
        cols["own_categories"] = own_categories.column(cols["category_path"], own_categories.generic)
        cols["category_path"] = own_categories.primary(cols["category_path"], own_categories.generic)
    attributes_from_options(cols)
    return Draft(row_count=table.num_rows, cols=cols, used=set(roles.values()), currency_column="currency" in cols)
