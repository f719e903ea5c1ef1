"""BigCommerce product export (Bulk Edit / "Export products" CSV with `Item Type`).

* `Item Type` is "Product" for a product, "SKU" for one of its variants (legacy files pad it as
  "  SKU"), "Rule" for price/option rules. SKU and Rule rows belong to the Product row above them.
* A product with SKU rows is a container: its variants are the SKU rows, which inherit the
  product's fields (name, brand, category, visibility, description, image, URL) and, where blank,
  its price. A product without SKU rows is one variant row. Rule rows count in rows_read and yield
  no row; SKU/Rule rows before any Product row are skipped and counted.
* SKU rows name their options in `Product Name` ("[S]Size=Large,[RB]Color=Red"): these become
  option pairs and color/size/material.
* `Product Visible?` Y/N is the status; `Track Inventory` "none" means stock is not tracked (unknown).
* `Category` may list several paths separated by ";" with levels separated by "/": the first path is
  the category; all paths are the own categories.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.readers import own_categories
from agent.catalog.readers.common import Draft, attributes_from_options, coalesce, take_rows
from agent.catalog.values import map_distinct, to_strings

_OPTION = re.compile(r"\[[A-Z]+\]\s*([^=,\[]+)=([^,\[]*)")
_PRODUCT_FIELDS = (
    "own_categories",
    "title",
    "brand",
    "description",
    "category_path",
    "image_url",
    "link",
    "google_category",
    "status",
    "product_id",
    "mpn",
)


def _category(v: str | None) -> str | None:
    if not v:
        return None
    first = v.split(";")[0].strip()
    levels = [part.strip() for part in first.split("/") if part.strip()]
    return " > ".join(levels) or None


def _option(v: str | None, i: int, part: int) -> str | None:
    if not v:
        return None
    found = _OPTION.findall(v)
    return found[i][part].strip() if len(found) > i else None


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    """BigCommerce rows as a Draft: each row's Product row block (`_owners`), product fields spread from it,
    prices blank on a SKU row taken from the product, options read from the SKU rows' names."""
    row_count = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    kind = (
        map_distinct(to_strings(raw["item_type"]), lambda v: (v or "").strip().lower(), pa.string())
        if "item_type" in raw
        else pa.array(["product"] * row_count, pa.string())
    )
    kind_np = np.asarray(kind.to_numpy(zero_copy_only=False), dtype=object)
    is_product, is_sku = kind_np == "product", kind_np == "sku"
    owner, keep, skipped = _owners(is_product, is_sku)
    if "category_path" in raw:
        raw["own_categories"] = own_categories.column(raw["category_path"], own_categories.bigcommerce)
        raw["category_path"] = map_distinct(to_strings(raw["category_path"]), _category, pa.string(), keep_dict=True)
    if "visible" in raw:
        raw["status"] = raw["visible"]
    if "product_id" not in raw and (fallback := coalesce(raw.get("sku"), raw.get("title"))) is not None:
        raw["product_id"] = fallback
    cols = _columns(raw, owner)
    if "title" in raw:
        names = to_strings(raw["title"]).cast(pa.string())
        sku_names = pc.if_else(pa.array(is_sku), names, pa.scalar(None, pa.string()))
        for i in range(3):
            cols[f"option{i + 1}_name"] = map_distinct(sku_names, functools.partial(_option, i=i, part=0), pa.string())
            cols[f"option{i + 1}_value"] = map_distinct(sku_names, functools.partial(_option, i=i, part=1), pa.string())
        attributes_from_options(cols)
    return Draft(
        row_count=row_count,
        cols=cols,
        keep=keep,
        used=set(roles.values()),
        skipped=skipped,
        default_status="unknown",
        skip_reason="before any Product row",
    )


def _owners(is_product: np.ndarray, is_sku: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(each row's Product row, -1 before any; rows kept: SKU rows, and Product rows without SKU rows;
    rows skipped: those before any Product row)."""
    row_count = len(is_product)
    group = np.cumsum(is_product) - 1  # index of the Product row block each row belongs to
    product_rows = np.flatnonzero(is_product)
    owner = np.where(
        group >= 0, product_rows[np.clip(group, 0, max(len(product_rows) - 1, 0))] if len(product_rows) else -1, -1
    )
    orphan = group < 0
    skus_per_group = (
        np.bincount(group[is_sku & ~orphan], minlength=len(product_rows)) if len(product_rows) else np.zeros(0, int)
    )
    product_has_skus = np.zeros(row_count, dtype=bool)
    if len(product_rows):
        product_has_skus[product_rows] = skus_per_group > 0
    keep = ~orphan & ((is_product & ~product_has_skus) | is_sku)
    return owner, keep, int((orphan & ~is_product).sum())


def _columns(raw: dict[str, pa.ChunkedArray], owner: np.ndarray) -> dict:
    """Product fields from the owning Product row, variant fields as they are, prices (0 meaning none
    but for the price itself) falling back to the product's, untracked inventory as no quantity."""
    cols: dict = {}
    for name in _PRODUCT_FIELDS:
        if name in raw:
            values = raw[name].cast(pa.string()) if pa.types.is_dictionary(raw[name].type) else raw[name]
            cols[name] = take_rows(values, owner)
    for name in ("sku", "gtin", "inventory_qty", "currency"):
        if name in raw:
            cols[name] = raw[name]
    for name in ("price", "compare_at_price", "sale_price"):
        if name in raw:  # blank on a SKU row: the product's price applies
            values = to_strings(raw[name]).cast(pa.string())
            if name != "price":  # BigCommerce writes 0 for "no retail/sale price"
                values = pc.if_else(
                    pc.fill_null(
                        pc.is_in(pc.utf8_trim_whitespace(values), value_set=pa.array(["0", "0.00", "0.0"])), False
                    ),
                    pa.scalar(None, pa.string()),
                    values,
                )
            cols[name] = coalesce(values, take_rows(values, owner))
    if "track_inventory" in raw and "inventory_qty" in cols:
        track = take_rows(to_strings(raw["track_inventory"]).cast(pa.string()), owner)
        untracked = pc.fill_null(pc.equal(pc.utf8_lower(track), "none"), False)
        cols["inventory_qty"] = pc.if_else(
            untracked, pa.scalar(None, pa.string()), to_strings(cols["inventory_qty"]).cast(pa.string())
        )
    return cols
