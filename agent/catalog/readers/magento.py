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
* **"Not Visible Individually" with no parent in the file** (an orphan: no configurable, group or
  `parent_sku` in the file names it) is a product of its own, its status from `product_online` like any
  row's. Decided, not overlooked: visibility hides a page, not the product. Such a SKU is enabled,
  priced and stocked, and is sold through a parent the export does not hold (a filtered or partial
  export: tests/corpus/magento/swiss-microscopes-store-views.csv has 156 of its 183 SKUs so, no parent
  among them) or by SKU (admin orders, quick order, the API); dropping it would hide most of such a
  catalog and its stock, and guessing its parent from the name would invent a product. Only a parent in
  the file makes a row a variant. (`bundle_values` is not read: a bundle's members stay products.)
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
from agent.catalog.readers.common import (
    Draft,
    attribute_for,
    coalesce,
    encode_keys,
    first_row_per_key,
    inherited,
    take_rows,
)
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
    """Magento rows as a Draft: which rows are products (store views, repeated SKUs), which parent each
    child belongs to, then the columns with what children inherit (module docstring)."""
    row_count = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    kind = _kinds(raw, row_count)
    skus = (
        pc.utf8_trim_whitespace(to_strings(raw["sku"]).cast(pa.string()))
        if "sku" in raw
        else pa.chunked_array([pa.nulls(row_count, pa.string())])
    )
    keys, nkeys = encode_keys(skus)
    product = _product_rows(raw.get("store_view"), keys, nkeys, row_count)
    repeat = _repeated_skus(product, keys, nkeys)
    product &= ~repeat
    parent_row, has_children = _link_children(raw, skus, product, row_count)
    keep = product & ~has_children & (kind != "grouped")
    return Draft(
        row_count=row_count,
        cols=_columns(raw, skus, parent_row),
        keep=keep,
        used=set(roles.values()),
        default_status="unknown",
        skipped=int(repeat.sum()),
        skip_reason="repeating a SKU already read",
    )


def _kinds(raw: dict[str, pa.ChunkedArray], row_count: int) -> np.ndarray:
    """Each row's `product_type` ("simple", "configurable", "grouped" …), lower case; "" without the column."""
    kind = (
        map_distinct(to_strings(raw["mg_type"]), lambda v: (v or "").strip().lower(), pa.string())
        if "mg_type" in raw
        else pa.array([""] * row_count, pa.string())
    )
    return np.asarray(kind.to_numpy(zero_copy_only=False), dtype=object)


def _repeated_skus(product: np.ndarray, keys: np.ndarray, nkeys: int) -> np.ndarray:
    """Product rows whose SKU an earlier product row already has: a SKU is one product, and a later row
    with it (converted or concatenated exports) is skipped, with its reason."""
    row_count = len(product)
    first_product = np.full(nkeys + 1, -1, dtype=np.int64)
    rows_p = np.flatnonzero(product & (keys >= 0))
    first_product[keys[rows_p][::-1]] = rows_p[::-1]
    return product & (keys >= 0) & (np.take(first_product, np.where(keys >= 0, keys, nkeys)) != np.arange(row_count))


def _hidden(raw: dict[str, pa.ChunkedArray], row_count: int) -> np.ndarray:
    """Rows "Not Visible Individually": a group member so marked is one of the group's variants."""
    if "visibility" not in raw:
        return np.zeros(row_count, dtype=bool)
    hidden = pc.fill_null(map_distinct(to_strings(raw["visibility"]), _not_visible, pa.bool_()), False)
    return np.asarray(hidden.to_numpy(zero_copy_only=False), dtype=bool)


def _link_children(
    raw: dict[str, pa.ChunkedArray], skus: pa.ChunkedArray, product: np.ndarray, row_count: int
) -> tuple[np.ndarray, np.ndarray]:
    """(parent row of each row or -1, whether a row has linked children): configurable first, so its claim
    on a child wins, then groups' hidden members, then a `parent_sku` column. Python over parent rows only
    (a few per thousand)."""
    parent_row = np.full(row_count, -1, dtype=np.int64)
    has_children = np.zeros(row_count, dtype=bool)
    links: list[tuple[str, Callable[[str | None], list[str]] | None]] = [
        (role, parse)
        for role, parse in (("configurable_variations", _children), ("associated_skus", _members))
        if role in raw
    ]
    if "parent_sku" in raw:  # the child names its parent (a column some export tools add)
        links.append(("parent_sku", None))
    hidden = _hidden(raw, row_count)
    if not links:
        return parent_row, has_children
    row_of_sku: dict[str, int] = {}
    for i, code in enumerate(skus.to_pylist()):
        if code and product[i]:
            row_of_sku.setdefault(code, i)
    for role, parse in links:
        if parse is None:
            _link_named_parents(raw[role], row_of_sku, product, parent_row, has_children)
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
    return parent_row, has_children


def _link_named_parents(
    parent_sku: pa.ChunkedArray,
    row_of_sku: dict[str, int],
    product: np.ndarray,
    parent_row: np.ndarray,
    has_children: np.ndarray,
) -> None:
    """A `parent_sku` column: each child row names its parent, unless it is linked already or a parent
    itself (updates `parent_row` and `has_children` in place)."""
    for j, v in enumerate(to_strings(parent_sku).cast(pa.string()).to_pylist()):
        parent = row_of_sku.get(v.strip()) if v and product[j] else None
        if parent is not None and parent != j and parent_row[j] < 0 and not has_children[j]:
            parent_row[j] = parent
            has_children[parent] = True


def _columns(raw: dict[str, pa.ChunkedArray], skus: pa.ChunkedArray, parent_row: np.ndarray) -> dict:
    """The canonical columns: categories and `additional_attributes` read, what children inherit from their
    parent filled in, ids (a child's product is its parent), status (a disabled parent's children are
    drafts), availability and the backorder policy."""
    cols: dict = {}
    for name in ("price", "sale_price", "inventory_qty", "color", "size"):
        if name in raw:
            cols[name] = raw[name]
    cols["sku"] = skus
    if "category_path" in raw:
        raw["own_categories"] = own_categories.column(raw["category_path"], own_categories.magento)
        raw["category_path"] = map_distinct(to_strings(raw["category_path"]), _category, pa.string(), keep_dict=True)
    if "additional_attributes" in raw:
        _read_additional_attributes(raw, cols)
    cols.update(inherited(raw, _INHERIT, parent_row))
    if "material" in cols:  # a product-level attribute on configurables
        cols["material"] = coalesce(cols["material"], take_rows(cols["material"], parent_row))
    for name in ("sale_start", "sale_end", "currency"):  # the special price's schedule; a currency column
        if name in raw:
            cols[name] = raw[name]
    product_row = np.where(parent_row >= 0, parent_row, np.arange(len(parent_row)))
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
    return cols


def _read_additional_attributes(raw: dict[str, pa.ChunkedArray], cols: dict) -> None:
    """`additional_attributes` cells ("color=Red,size=M,manufacturer=Acme"): color, size and material where
    their own columns are empty, the brand into `raw` (children inherit it)."""
    extra = raw["additional_attributes"]
    for attr in ("color", "size", "material", "brand"):
        got = map_distinct(to_strings(extra), functools.partial(_attr_value, attr), pa.string())
        if attr == "brand":
            raw["brand"] = coalesce(raw.get("brand"), got)
        else:
            cols[attr] = coalesce(cols.get(attr), got)
