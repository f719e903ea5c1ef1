"""Adobe Commerce (Magento 2) product export (System > Export, entity "Products").

* **Store views.** A product's global row has an empty `store_view_code` (`admin` is read the same
  way); rows with a code are per-store-view overrides (translations, prices) of it: they count in
  rows_read but yield no variant row. When a SKU has *no* global row — an export filtered to one
  store view, where every row says `default` — its first store-view row is the product (the others
  are still overrides). Such an export is not "0 products".
* **Parents and children.** A `configurable` product lists its children in `configurable_variations`
  ("sku=MH01-XS-Black,size=XS,color=Black|sku=…"); a `grouped` product lists its members in
  `associated_skus` ("24-WG085=1.0000,24-WG086" or "24-WG085,24-WG086"). A configurable's children
  are its variants (options on its page). A group's members are products of their own when they are
  visible in the store (`visibility` "Catalog, Search" …: the group is one more page showing them),
  and the group's variants only when they are "Not Visible Individually" (sold only through it).
  Linked children inherit the parent's name, description, category, brand and image where they have
  none; the parent row itself is a container (no variant row) when any child is linked. A
  configurable's claim wins over a group's; a child in two groups joins the first. A grouped row
  yields no row of its own (it has no price and sells nothing itself).
* A SKU is one product: a later global row with the same SKU (a converted or concatenated export) is
  skipped and counted as "repeating a SKU already read". A `parent_sku` column (added by some export
  tools) links a child to its configurable like `configurable_variations` does.
* `product_online` 1 is enabled (active), 2 disabled (draft); a disabled parent's children are drafts.
* `qty` is the stock, `is_in_stock` 1/0 the stated availability (it wins over the quantity),
  `allow_backorders` 1/2 (allow, allow and notify) the "continue selling" policy, 0 deny.
* `categories` holds comma-separated paths ("Default Category/Gear/Bags,…"); the first path, without
  its root category, joined with " > ", is the category; all paths are the own categories.
* `additional_attributes` ("color=Red,size=M,material=Cotton,manufacturer=Acme") feeds color, size,
  material and brand.
* Dates (`updated_at`) are in the admin locale's format (`2/20/25, 7:27 PM`): see agent.catalog.dates
  for how their day/month order is decided.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.readers import own_categories
from agent.catalog.readers.common import Draft, attribute_for, coalesce, encode_keys, first_row_per_key, take_rows
from agent.catalog.values import map_distinct, policy_value, to_strings

_INHERIT = ("title", "description", "category_path", "image_url", "brand", "own_categories")


def _category(v: str | None) -> str | None:
    if not v:
        return None
    first = v.split(",")[0].strip()
    levels = [part.strip() for part in first.split("/") if part.strip()]
    if len(levels) > 1:
        levels = levels[1:]  # the root category ("Default Category") is not a merchant level
    return " > ".join(levels) or None


def _attr_value(attr: str, v: str | None) -> str | None:
    """One attribute of an `additional_attributes` cell (map_distinct calls it once per distinct cell)."""
    return _attrs(v).get(attr)


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
    """`configurable_variations`: the `sku=` of each `|`-separated child."""
    out = []
    for item in (v or "").split("|"):
        for pair in item.split(","):
            key, sep, value = pair.partition("=")
            if sep and key.strip().lower() == "sku" and value.strip():
                out.append(value.strip())
    return out


def _members(v: str | None) -> list[str]:
    """`associated_skus`: comma-separated SKUs, each perhaps with its default quantity (`sku=1.0000`)."""
    out = []
    for item in (v or "").split(","):
        sku = item.rpartition("=")[0] if re.fullmatch(r".+=\s*[\d.]*\s*", item) else item
        if sku.strip():
            out.append(sku.strip())
    return out


def _not_visible(v: str | None) -> bool:
    return (v or "").strip().lower().replace("_", " ") in ("not visible individually", "1")


def _policy(v: str | None) -> str | None:
    code = (v or "").strip().lower()
    return {"0": "deny", "1": "continue", "2": "continue"}.get(code, policy_value(v))


def _product_rows(store_view: pa.ChunkedArray | None, keys: np.ndarray, nkeys: int, row_count: int) -> np.ndarray:
    """Rows that are products rather than store-view overrides (module docstring)."""
    if store_view is None:
        return np.ones(row_count, dtype=bool)
    code = map_distinct(to_strings(store_view), lambda v: (v or "").strip().lower() not in ("", "admin"), pa.bool_())
    override = np.asarray(pc.fill_null(code, False).to_numpy(zero_copy_only=False), dtype=bool)
    glob = ~override
    slot = np.where(keys >= 0, keys, nkeys)
    has_global = np.zeros(nkeys + 1, dtype=bool)
    has_global[slot[glob]] = True
    has_global[nkeys] = False
    first = first_row_per_key(keys, nkeys)
    first_of_key = np.take(first, slot) == np.arange(row_count)
    return glob | (keys < 0) | (override & ~np.take(has_global, slot) & first_of_key)


def _online_status(v: str | None) -> str | None:
    code = (v or "").strip().lower()
    return {"1": "active", "2": "draft", "0": "draft", "enabled": "active", "disabled": "draft"}.get(code)


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    row_count = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    used = set(roles.values())
    kind = (
        map_distinct(to_strings(raw["mg_type"]), lambda v: (v or "").strip().lower(), pa.string())
        if "mg_type" in raw
        else pa.array([""] * row_count, pa.string())
    )
    kind_np = np.asarray(kind.to_numpy(zero_copy_only=False), dtype=object)
    skus = (
        pc.utf8_trim_whitespace(to_strings(raw["sku"]).cast(pa.string()))
        if "sku" in raw
        else pa.chunked_array([pa.nulls(row_count, pa.string())])
    )
    keys, nkeys = encode_keys(skus)
    product = _product_rows(raw.get("store_view"), keys, nkeys, row_count)
    # a SKU is one product: a later product row with the same SKU repeats it (converted or
    # concatenated exports) and is skipped, with its reason
    first_product = np.full(nkeys + 1, -1, dtype=np.int64)
    rows_p = np.flatnonzero(product & (keys >= 0))
    first_product[keys[rows_p][::-1]] = rows_p[::-1]
    repeat = product & (keys >= 0) & (np.take(first_product, np.where(keys >= 0, keys, nkeys)) != np.arange(row_count))
    product &= ~repeat

    # child sku -> parent row (Python over parent rows only: a few per thousand)
    parent_row = np.full(row_count, -1, dtype=np.int64)
    has_children = np.zeros(row_count, dtype=bool)
    links: list[tuple[str, Callable[[str | None], list[str]] | None]] = [
        (role, parse)
        for role, parse in (("configurable_variations", _children), ("associated_skus", _members))
        if role in raw
    ]
    if "parent_sku" in raw:  # the child names its parent (a column some export tools add)
        links.append(("parent_sku", None))
    hidden = (
        np.asarray(
            pc.fill_null(map_distinct(to_strings(raw["visibility"]), _not_visible, pa.bool_()), False).to_numpy(
                zero_copy_only=False
            ),
            dtype=bool,
        )
        if "visibility" in raw
        else np.zeros(row_count, dtype=bool)
    )
    if links:
        sku_list = skus.to_pylist()
        row_of_sku: dict[str, int] = {}
        for i, code in enumerate(sku_list):
            if code and product[i]:
                row_of_sku.setdefault(code, i)
        for role, parse in links:  # configurable first: its claim on a child wins
            if parse is None:
                for j, v in enumerate(to_strings(raw[role]).cast(pa.string()).to_pylist()):
                    parent = row_of_sku.get(v.strip()) if v and product[j] else None
                    if parent is not None and parent != j and parent_row[j] < 0 and not has_children[j]:
                        parent_row[j] = parent
                        has_children[parent] = True
                continue
            for i, v in enumerate(raw[role].to_pylist()):
                if not v or not product[i]:
                    continue
                for child in parse(v):
                    row = row_of_sku.get(child)
                    if row is None or row == i or parent_row[row] >= 0 or has_children[row]:
                        continue
                    if role == "associated_skus" and not hidden[row]:
                        continue  # a visible group member is a product of its own
                    parent_row[row] = i
                    has_children[i] = True
    keep = product & ~has_children & (kind_np != "grouped")

    cols: dict = {}
    for name in ("price", "sale_price", "inventory_qty", "color", "size"):
        if name in raw:
            cols[name] = raw[name]
    cols["sku"] = skus
    if "category_path" in raw:
        raw["own_categories"] = own_categories.column(raw["category_path"], own_categories.magento)
        raw["category_path"] = map_distinct(to_strings(raw["category_path"]), _category, pa.string(), keep_dict=True)
    if "additional_attributes" in raw:
        extra = raw["additional_attributes"]
        for attr in ("color", "size", "material", "brand"):
            got = map_distinct(to_strings(extra), functools.partial(_attr_value, attr), pa.string())
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
    product_row = np.where(parent_row >= 0, parent_row, np.arange(row_count))
    cols["product_id"] = take_rows(skus, product_row)
    cols["variant_id"] = skus
    if "online" in raw:
        own = map_distinct(to_strings(raw["online"]), _online_status, pa.string())
        parent_status = take_rows(own, parent_row)
        cols["status"] = pc.if_else(pc.fill_null(pc.equal(parent_status, "draft"), False), "draft", own)
    if "in_stock" in raw:
        cols["availability"] = raw["in_stock"]
    if "backorders" in raw:
        cols["inventory_policy"] = map_distinct(to_strings(raw["backorders"]), _policy, pa.string(), keep_dict=True)
    return Draft(
        row_count=row_count,
        cols=cols,
        keep=keep,
        used=used,
        default_status="unknown",
        skipped=int(repeat.sum()),
        skip_reason="repeating a SKU already read",
    )
