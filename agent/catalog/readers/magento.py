"""Adobe Commerce (Magento 2) product export (System > Export, entity "Products").

* Rows with a `store_view_code` are per-store-view overrides (translations, prices) of a product
  already listed on its default row: they count in rows_read but yield no variant row.
* A `configurable` product lists its children in `configurable_variations`
  ("sku=MH01-XS-Black,size=XS,color=Black|sku=…"). Children become the variants of the configurable's
  product and inherit its name, description, category, brand and image where they have none; the
  configurable row itself is a container (no variant row) when any child is in the file. `grouped`
  rows only bundle other products and yield no row.
* `product_online` 1 is enabled (active), 2 disabled (draft).
* `categories` holds comma-separated paths ("Default Category/Gear/Bags,…"); the first path, without
  its root category, joined with " > ", is the category.
* `additional_attributes` ("color=Red,size=M,material=Cotton,manufacturer=Acme") feeds color, size,
  material and brand.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.readers.common import Draft, attribute_for, coalesce, take_rows
from agent.catalog.values import map_distinct, to_strings

_INHERIT = ("title", "description", "category_path", "image_url", "brand")


def _category(v: str | None) -> str | None:
    if not v:
        return None
    first = v.split(",")[0].strip()
    levels = [p.strip() for p in first.split("/") if p.strip()]
    if len(levels) > 1:
        levels = levels[1:]  # the root category ("Default Category") is not a merchant level
    return " > ".join(levels) or None


def _attrs(v: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in (v or "").split(","):
        key, sep, value = pair.partition("=")
        if not sep or not value.strip():
            continue
        key = key.strip().lower()
        attr = "brand" if key in ("manufacturer", "brand") else attribute_for(key)
        if attr and attr not in out:
            out[attr] = value.strip()
    return out


def _children(v: str | None) -> list[str]:
    out = []
    for item in (v or "").split("|"):
        for pair in item.split(","):
            key, sep, value = pair.partition("=")
            if sep and key.strip().lower() == "sku" and value.strip():
                out.append(value.strip())
    return out


def _online_status(v: str | None) -> str | None:
    s = (v or "").strip().lower()
    return {"1": "active", "2": "draft", "0": "draft", "enabled": "active", "disabled": "draft"}.get(s)


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    n = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    used = set(roles.values())
    kind = (map_distinct(to_strings(raw["mg_type"]), lambda v: (v or "").strip().lower(), pa.string())
            if "mg_type" in raw else pa.array([""] * n, pa.string()))
    kind_np = np.asarray(kind.to_numpy(zero_copy_only=False), dtype=object)
    default_row = (np.asarray(pc.is_null(raw["store_view"]).to_numpy(zero_copy_only=False), dtype=bool)
                   if "store_view" in raw else np.ones(n, dtype=bool))
    skus = to_strings(raw["sku"]).cast(pa.string()) if "sku" in raw else pa.nulls(n, pa.string())
    sku_list = skus.to_pylist()

    # child sku -> configurable row (Python over configurable rows only: a few per thousand)
    parent_row = np.full(n, -1, dtype=np.int64)
    has_children = np.zeros(n, dtype=bool)
    if "configurable_variations" in raw:
        variations = raw["configurable_variations"].to_pylist()
        row_of_sku: dict[str, int] = {}
        for i, s in enumerate(sku_list):
            if s is not None and default_row[i]:
                row_of_sku.setdefault(s.strip(), i)
        for i, v in enumerate(variations):
            if v and default_row[i]:
                for child in _children(v):
                    j = row_of_sku.get(child)
                    if j is not None and j != i:
                        parent_row[j] = i
                        has_children[i] = True
    keep = default_row & ~has_children & (kind_np != "grouped")

    cols: dict = {}
    for name in ("sku", "price", "sale_price", "inventory_qty", "color", "size"):
        if name in raw:
            cols[name] = raw[name]
    if "category_path" in raw:
        raw["category_path"] = map_distinct(to_strings(raw["category_path"]), _category, pa.string(), keep_dict=True)
    if "additional_attributes" in raw:
        extra = raw["additional_attributes"]
        for attr in ("color", "size", "material", "brand"):
            got = map_distinct(to_strings(extra), lambda v, a=attr: _attrs(v).get(a), pa.string())
            if attr == "brand":
                raw["brand"] = coalesce(raw.get("brand"), got)
            else:
                cols[attr] = coalesce(cols.get(attr), got)
    for name in _INHERIT:
        if name in raw:
            values = raw[name].cast(pa.string()) if pa.types.is_dictionary(raw[name].type) else raw[name]
            parent_val = take_rows(values, parent_row)
            cols[name] = coalesce(parent_val, values) if name == "title" else coalesce(values, parent_val)
    if "material" in cols:  # a product-level attribute on configurables
        cols["material"] = coalesce(cols["material"], take_rows(cols["material"], parent_row))
    for name in ("sale_start", "sale_end", "currency"):  # the special price's schedule; a currency column
        if name in raw:
            cols[name] = raw[name]
    product_row = np.where(parent_row >= 0, parent_row, np.arange(n))
    cols["product_id"] = take_rows(skus, product_row)
    cols["variant_id"] = skus
    if "online" in raw:
        own = map_distinct(to_strings(raw["online"]), _online_status, pa.string())
        parent_status = take_rows(own, parent_row)
        cols["status"] = pc.if_else(pc.fill_null(pc.equal(parent_status, "draft"), False), "draft", own)
    if "in_stock" in raw:
        cols["availability"] = raw["in_stock"]
    if "backorders" in raw:
        cols["inventory_policy"] = raw["backorders"]
    return Draft(n=n, cols=cols, keep=keep, used=used, default_status="unknown")
