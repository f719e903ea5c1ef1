"""WooCommerce product export (WooCommerce's own CSV exporter).

* `Type` says simple / variable / variation / grouped / external (possibly with ", downloadable,
  virtual"). A variation names its parent in `Parent` (the parent SKU or "id:44"); it becomes a
  variant of the parent's product and inherits the parent's product fields (name, description,
  categories, images, brand) where it has none. A variable product with variations in the file is
  a container: its row counts in rows_read but yields no variant row (its variations do). A variable
  product without variations in the file stays as one row; a row with no Type (a file whose `Type`
  header is blank) that variations name as their parent is that container too. Grouped products
  only bundle other products and yield no row.
* `Published`: 1 published (active), 0 private, -1 draft (both counted as draft). Import files may name
  the columns by the importer's field keys instead (`status` with publish/draft/private, `regular_price`,
  `stock_quantity`, `stock_status`, `parent_id`: headers.WOO_KEYS).
* `In stock?` 1/0 (or "backorder"), `Stock` the quantity, `Backorders allowed?` 1/0/notify.
* `Regular price` is the price, `Sale price` the sale price.
* `Categories` may list several paths ("Clothing > Tshirts, Music"); the first is the category
  (`category_path`), all of them are the product's own categories (`own_categories`).
* `Attribute N name` / `Attribute N value(s)` pairs become option pairs and, where the name says
  so, color / size / material.
* Units in headers ("Weight (lbs)") are ignored: they are not canonical fields.
* WooCommerce's exporter guards cells that start with `=`, `+`, `-` or `@` against spreadsheet
  formulas by writing an apostrophe first (`'-1` for a draft's Published, `'-3` for oversold stock):
  the apostrophe is taken off again before the values are read.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import headers
from agent.catalog.readers import own_categories
from agent.catalog.readers.common import (
    Draft,
    attributes_from_options,
    coalesce,
    dict_where,
    entry_mask,
    inherited,
    is_brand_attribute,
    take_rows,
)
from agent.catalog.values import map_distinct, to_strings

# Attribute name/value columns in each export language (normalised headers; headers.WOO_LABELS)
_ATTR = tuple(
    (re.compile(pattern), part)
    for pattern, part in (
        (r"attribute (\d+) name", "name"),
        (r"attribute (\d+) value s", "value"),
        (r"attribut (\d+) name", "name"),
        (r"attribut (\d+) wert e", "value"),
        (r"название атрибута (\d+)", "name"),
        (r"значения атрибутов (\d+)", "value"),
        (r"nombre del atributo (\d+)", "name"),
        (r"valor es del atributo (\d+)", "value"),
        (r"nom de l attribut (\d+)", "name"),
        (r"valeur s de l attribut (\d+)", "value"),
    )
)
_INHERIT = ("title", "description", "category_path", "image_url", "brand", "link", "own_categories")


def _attribute_columns(columns: list[str]) -> dict[int, dict[str, str]]:
    found: dict[int, dict[str, str]] = {}
    for column in columns:
        normalised = headers.norm(column)
        for pattern, part in _ATTR:
            if match := pattern.fullmatch(normalised):
                found.setdefault(int(match.group(1)), {}).setdefault(part, column)
                break
    return {k: v for k, v in sorted(found.items()) if len(v) == 2}


def extra_columns(columns: list[str]) -> list[str]:
    """Every attribute's name and value columns: the first three are the options, any may be the brand."""
    return [column for pair in _attribute_columns(columns).values() for column in pair.values()]


_ESCAPED = frozenset({"published", "inventory_qty", "price", "sale_price", "in_stock", "backorders"})
_FORMULA_GUARD = re.compile(r"^'(?=[=+\-@\t\r])")


def _unescape(v: str | None) -> str | None:
    """`'-1` → `-1`: the exporter's formula guard off (see the module docstring)."""
    return _FORMULA_GUARD.sub("", v) if v else v


def _first_category(v: str | None) -> str | None:
    if not v:
        return None
    first = re.split(r"(?<!\\),", v)[0].replace("\\,", ",").strip()
    return first or None


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    """WooCommerce rows as a Draft: each variation linked to its parent, a variable parent with variations
    and a grouped row dropped (containers), then the columns with what variations inherit."""
    row_count = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    for role in _ESCAPED & raw.keys():
        raw[role] = map_distinct(to_strings(raw[role]), _unescape, pa.string())
    used = set(roles.values())
    kind = (
        map_distinct(to_strings(raw["wc_type"]), lambda v: (v or "").lower(), pa.string())
        if "wc_type" in raw
        else pa.array([""] * row_count, pa.string())
    )
    is_variable = np.asarray(pc.match_substring(kind, "variable").to_numpy(zero_copy_only=False), dtype=bool)
    is_grouped = np.asarray(pc.match_substring(kind, "grouped").to_numpy(zero_copy_only=False), dtype=bool)
    parent_row = _parent_rows(raw, row_count)
    has_children = np.zeros(row_count, dtype=bool)
    has_children[parent_row[parent_row >= 0]] = True
    # a row other rows name as their Parent is a variable product even where no Type says so (a file
    # whose Type header is blank or missing): only a variable product has variations
    untyped = np.asarray(pc.equal(kind, "").to_numpy(zero_copy_only=False), dtype=bool)
    keep = ~(((is_variable | untyped) & has_children) | is_grouped)
    _brand_from_attributes(table, raw, used)  # before _columns: a variation inherits its parent's
    cols = _columns(raw, parent_row)
    # attributes -> options (at most three) -> color/size/material
    for i, pair in enumerate(list(_attribute_columns(table.column_names).values())[:3], start=1):
        cols[f"option{i}_name"] = table[pair["name"]]
        cols[f"option{i}_value"] = table[pair["value"]]
        used.update(pair.values())
    attributes_from_options(cols)
    return Draft(row_count=row_count, cols=cols, keep=keep, used=used, default_status="unknown")


def _brand_from_attributes(table: pa.Table, raw: dict, used: set[str]) -> None:
    """The brand from an attribute named for it ("Marca", "Brand", "برند", a wine shop's "Vinarija"),
    in any attribute pair, where the export has no brand of its own.

    WooCommerce has no brand column before its Brands feature; shops keep the brand as an attribute.
    Three of the twelve WooCommerce exports in tests/corpus do, on every product, and each answered
    "0 brands across 69 products"."""
    for pair in _attribute_columns(table.column_names).values():
        mask = entry_mask(table[pair["name"]], is_brand_attribute)
        if not pc.any(mask).as_py():
            continue
        raw["brand"] = coalesce(raw.get("brand"), dict_where(mask, table[pair["value"]]))
        used.update(pair.values())


def _parent_rows(raw: dict[str, pa.ChunkedArray], row_count: int) -> np.ndarray:
    """The parent row of each variation (-1 for none): "id:44" against ID, anything else against SKU."""
    parent_row = np.full(row_count, -1, dtype=np.int64)
    if "parent" not in raw:
        return parent_row
    # a blank Parent names no parent: it must not match the first row with a blank SKU
    parent = pc.utf8_trim_whitespace(to_strings(raw["parent"]).cast(pa.string()))
    parent = pc.if_else(pc.equal(parent, ""), pa.scalar(None, pa.string()), parent)
    if "product_id" in raw:
        ids = pc.binary_join_element_wise(
            "id:", pc.utf8_trim_whitespace(to_strings(raw["product_id"]).cast(pa.string())), ""
        )
        parent_row = np.where(parent_row < 0, _row_in(parent, ids), parent_row)
    if "sku" in raw:
        skus = pc.utf8_trim_whitespace(to_strings(raw["sku"]).cast(pa.string()))
        parent_row = np.where(parent_row < 0, _row_in(parent, skus), parent_row)
    # a row naming itself as its parent (a variable whose Parent repeats its own SKU) has no parent:
    # it must not become a container of itself and vanish
    parent_row[parent_row == np.arange(row_count)] = -1
    return parent_row


def _row_in(parent: pa.ChunkedArray | pa.Array, names: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Per row, the first row whose `names` value its `parent` is (-1 for none or a null parent)."""
    value_set = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
    return pc.fill_null(pc.index_in(parent, value_set=value_set, skip_nulls=True), -1).to_numpy(zero_copy_only=False)


def _columns(raw: dict[str, pa.ChunkedArray], parent_row: np.ndarray) -> dict:
    """The canonical columns but the options: first category and first image, ids (a variation's product is
    its parent), what variations inherit, status and stock."""
    cols: dict = {name: raw[name] for name in _PASSED if name in raw}
    if "category_path" in raw:
        raw["own_categories"] = own_categories.column(raw["category_path"], own_categories.woocommerce)
        raw["category_path"] = map_distinct(
            to_strings(raw["category_path"]), _first_category, pa.string(), keep_dict=True
        )
    if "image_url" in raw:
        raw["image_url"] = pc.replace_substring_regex(to_strings(raw["image_url"]).cast(pa.string()), r"\s*,\s+.*$", "")
    # a row's identity: its ID, else its SKU (import files and some exports leave ID blank)
    ids = to_strings(raw["product_id"]).cast(pa.string()) if "product_id" in raw else None
    sku_ids = to_strings(raw["sku"]).cast(pa.string()) if "sku" in raw else None
    own_ids = coalesce(ids, sku_ids)
    if own_ids is None:
        own_ids = pa.nulls(len(parent_row), pa.string())
    product_row = np.where(parent_row >= 0, parent_row, np.arange(len(parent_row)))
    cols["product_id"] = take_rows(own_ids, product_row)
    cols["variant_id"] = own_ids
    cols.update(inherited(raw, _INHERIT, parent_row))
    # status: own Published, but a variation of an unpublished parent is not on sale either
    if "published" in cols:
        pub = to_strings(cols.pop("published")).cast(pa.string())
        parent_pub = take_rows(pub, parent_row)
        parent_off = pc.fill_null(pc.is_in(pc.utf8_lower(parent_pub), value_set=_OFF), False)
        cols["status"] = pc.if_else(parent_off, parent_pub, pub)
    if "in_stock" in raw:
        cols["availability"] = _availability(raw)
    if "backorders" in raw:
        cols["inventory_policy"] = raw["backorders"]
    return cols


def _availability(raw: dict[str, pa.ChunkedArray]) -> pa.ChunkedArray | pa.Array:
    """ "In stock?" as stated; out of stock with backorders allowed is "backorder"."""
    stated = to_strings(raw["in_stock"]).cast(pa.string())
    if "backorders" in raw:
        allowed = pc.is_in(to_strings(raw["backorders"]).cast(pa.string()), value_set=pa.array(["1", "notify", "yes"]))
        stated = pc.if_else(
            pc.and_(pc.fill_null(pc.equal(stated, "0"), False), pc.fill_null(allowed, False)), "backorder", stated
        )
    return stated


# a parent's Published that takes its variations off sale: the exporter's 0 (private) and -1 (draft), and
# the post statuses an import file's `status` column writes (WordPress: draft, pending, private, trash)
_OFF = pa.array(["0", "-1", "draft", "pending", "private", "trash"])

# columns taken as they are (the readers' shared normalisation reads them)
_PASSED = ("sku", "gtin", "inventory_qty", "price", "sale_price", "sale_start", "sale_end", "currency", "published")
