"""Shopify product export (legacy `Handle … Variant Price` and 2025 `URL handle … Compare-at price`).

A product spans several rows sharing a handle: the first row carries the product fields (title,
vendor, category, status…), the following variant rows carry only variant fields, and image rows
carry only an image. So:

* product fields are filled down per handle (first value of the handle, vectorised);
* a row becomes a variant row when it has a title or any variant field (option value, SKU, price,
  compare-at price, barcode, stock); image-only rows count in `rows_read` (they are rows of the file)
  but produce no variant row; rows without a handle are skipped and counted;
* `Status` (active/draft/archived) is authoritative. `Published` (legacy) / `Published on online
  store` (2025) only says whether the product is on the *online store* sales channel: an active
  product that is not published there is still on sale (point of sale, other channels), so it stays
  active and is marked `online_store = false` (the overview counts it as "not on the online
  store"), never called a draft. Legacy exports without a Status column (before 2021): `Published`
  is the only status there is, so unpublished = draft and published = active; a blank Status is
  decided the same way. `Unlisted` (Shopify's 2025 status: on sale and reachable by its link, left out
  of search, collections and recommendations) is an active product, whatever `Published` says;
* an inventory tracker column that is blank for a variant means Shopify does not track its stock:
  it is sellable (in stock) whatever the quantity column says;
* metafield columns such as `Color (product.metafields.shopify.color-pattern)` feed color, size or
  material when their label or key names one; option axes named Color/Size/Material take precedence.
  Shopify's category metafields are *lists* of metaobject handles, exported joined by "; "
  ("beige; floral; white", "s; m; l; xl", "fabric__cotton; fabric__polyester") and product-level, so
  one value per variant is read from them (`list_attribute`; the decision is written there);
* "Default Title" options (products without variants) are not real options and are dropped.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import headers
from agent.catalog.parallel import submit_all
from agent.catalog.readers.common import (
    Draft,
    FillDown,
    attribute_for,
    attributes_from_options,
    blank_where,
    coalesce,
    codes_of,
    encode_keys,
    entry_mask,
    fill_down,
    first_row_per_key,
    from_codes,
)
from agent.catalog.values import as_dictionary, entry_numbers, flag_value, status_value, to_strings

PRODUCT_FIELDS = (
    "title",
    "description",
    "brand",
    "category_path",
    "product_type",
    "published",
    "status",
    "google_category",
    "image_src",
    "mpn",
    "option1_name",
    "option2_name",
    "option3_name",
)
VARIANT_EVIDENCE = (
    "option1_value",
    "option2_value",
    "option3_value",
    "sku",
    "price",
    "compare_at_price",
    "gtin",
    "inventory_qty",
)


def extra_columns(columns: list[str]) -> list[str]:
    """Metafield columns that name an attribute we keep."""
    return [
        column
        for column in columns
        if (metafield_parts := headers.metafield(column)) and _metafield_attr(*metafield_parts)
    ]


def _metafield_attr(label: str, key: str) -> str | None:
    return attribute_for(label) or attribute_for(key.rsplit(".", 1)[-1].replace("-pattern", ""))


# Shopify's metaobject handles: a `<attribute>__` prefix some exports write, and the "-1", "-2" Shopify
# appends when a handle is taken ("orange-1", "rosa-2") — never part of a colour's or material's name
_HANDLE_PREFIX = re.compile(r"^[a-z0-9-]+__")
_HANDLE_SUFFIX = re.compile(r"-\d+$")
# Merchant Center's form for one item of several colours or materials: up to three, primary first,
# joined by "/" ("red/pink/blue", "cotton/polyester/elastane") — the form colour options already take
COMBINED = "/"
COMBINED_MAX = 3


def list_entries(value: str, attr: str) -> list[str]:
    """The entries of one metafield list cell, as names: "orange-1; navy-blazer" -> ["orange", "navy blazer"]
    for colours and materials (hyphens are the handle's spaces); sizes keep theirs ("6-12-meses", "2-a-3")."""
    entries = []
    for raw in value.split(";"):
        entry = _HANDLE_PREFIX.sub("", raw.strip())
        if attr != "size":
            entry = _HANDLE_SUFFIX.sub("", entry).replace("-", " ").strip()
        if entry and entry not in entries:
            entries.append(entry)
    return entries


def _matchable(value: str) -> str:
    return re.sub(r"[\s_-]+", "", value).casefold()


def list_attribute(listed: pa.Array, attr: str, options: list) -> pa.DictionaryArray:
    """One colour, material or size per variant from a product-level metafield list.

    Decision (the list is the product's, the canonical column is the variant's):

    * a variant whose own option value (on any axis, whatever its name: "Style", "Estilo", "Hook
      color") is one of the list's entries has that value — a paver listed in "black; granite; rock"
      with a Style option is black on its Black variant;
    * otherwise a single entry is every variant's value;
    * otherwise several colours (or materials) describe one item of several — a "pink; floral" suit,
      a beige-and-brown rattan sofa, the same on each of its sizes — and are kept as Merchant
      Center's `color`/`material` attribute writes such an item: the first three, joined by "/"
      ("pink/floral"), as a colour option "Black/White" already is; patterns ("floral") stay, since
      Shopify's own attribute is colour-or-pattern (`color-pattern`) and no word list tells them apart
      in every shop language;
    * several sizes without a variant naming one are the product's size range, not any variant's
      size: no value (an invented size would be counted as a size the shop carries in that form).
    """
    column = as_dictionary(to_strings(listed))
    names = column.dictionary.to_pylist()
    entries = [list_entries(v, attr) if v else [] for v in names]
    several = np.array([len(e) > 1 for e in entries], dtype=bool)
    alone = [e[0] if len(e) == 1 else _combined(e, attr) for e in entries]
    if not several.any() or not any(o is not None for o in options):
        return pa.DictionaryArray.from_arrays(column.indices, pa.array(alone, pa.string()), safe=False)
    # rows whose list has several entries: does one of the variant's option values name an entry?
    idx = column.indices.to_numpy(zero_copy_only=False)
    valid = np.asarray(pc.is_valid(column.indices).to_numpy(zero_copy_only=False), dtype=bool)
    idx = np.where(valid, idx, 0).astype(np.int64)
    rows = np.flatnonzero(valid & several[idx])
    out = list(alone)
    codes = idx.copy()
    lookup = [{_matchable(e): e for e in entry} for entry in entries]
    # decided once per distinct (list, option values) combination: a million variant rows repeat a few
    # thousand of them
    dictionaries, numbers = [], [idx[rows]]
    for option in options:
        if option is None:
            continue
        encoded = as_dictionary(to_strings(option))
        dictionaries.append(encoded.dictionary.to_pylist())
        numbers.append(entry_numbers(encoded)[rows])
    combos, inverse = np.unique(np.stack(numbers, axis=1), axis=0, return_inverse=True)
    chosen = np.empty(len(combos), dtype=np.int64)
    picked: dict[tuple[int, str], int] = {}
    for k, combo in enumerate(combos.tolist()):
        entry, chosen[k] = combo[0], combo[0]
        for names_of, code in zip(dictionaries, combo[1:]):
            value = names_of[code] if code >= 0 else None
            if value and _matchable(value) in lookup[entry]:
                chosen[k] = picked.setdefault((entry, value), len(out))
                if chosen[k] == len(out):
                    out.append(value)
                break
    codes[rows] = chosen[inverse.reshape(-1)]
    indices = pa.array(codes.astype(np.int32), mask=~valid)
    return pa.DictionaryArray.from_arrays(indices, pa.array(out, pa.string()), safe=False)


def _combined(entries: list[str], attr: str) -> str | None:
    if not entries or attr == "size":
        return None
    return COMBINED.join(entries[:COMBINED_MAX])


def _shopify_status(value: object) -> str:
    """Shopify's own Status words: `unlisted` is sold (module docstring), the rest as everywhere."""
    return "active" if str(value).strip().lower() == "unlisted" else status_value(value)


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    """Shopify rows as a Draft: a handle's rows are one product (its fields from the handle's first row,
    filled down on the pool meanwhile); variant rows kept, image-only rows and rows without a handle not."""
    row_count = table.num_rows
    raw = {role: table[col] for role, col in roles.items() if col in table.column_names}
    used = set(roles.values())
    handle = raw.get("handle")
    if handle is None:  # a Shopify-like file without handles: every row is a product
        keys, nkeys = np.arange(row_count, dtype=np.int64), row_count
        handle = pa.nulls(row_count, pa.string())
    else:
        keys, nkeys = encode_keys(handle)
    first = FillDown.plan(keys, nkeys, first_row_per_key(keys, nkeys))  # product fields: a handle's first row
    filled = [name for name in PRODUCT_FIELDS if name in raw and name not in ("status", "published")]
    # the fills run on the pool while this thread works out the rows, status and stock below
    fills = submit_all({name: functools.partial(first.apply, raw[name]) for name in filled}, row_count)
    cols: dict = {name: raw[name] for name in _PASSED if name in raw}
    cols["product_id"] = handle
    has_handle = keys >= 0
    keep = _variant_rows(raw, has_handle)
    cols.update(_status(raw, first))
    # stock: untracked variants are always sellable
    if "inventory_tracker" in raw:
        untracked = np.asarray(pc.is_null(raw["inventory_tracker"]).to_numpy(zero_copy_only=False), dtype=bool)
        cols["availability"] = from_codes(np.where(untracked, 0, -1).astype(np.int8), ("in_stock",))
    cols.update({name: fill.result() for name, fill in fills.items()})
    _drop_default_title(cols)
    attributes_from_options(cols)
    for col in extra_columns(table.column_names):
        label_key = headers.metafield(col)
        assert label_key is not None  # extra_columns() lists metafield headers only
        attr = _metafield_attr(*label_key)
        assert attr is not None  # and only those that name an attribute
        listed = fill_down(table[col], keys, nkeys, first)
        options = [cols.get(f"option{i}_value") for i in (1, 2, 3)]
        cols[attr] = coalesce(cols.get(attr), list_attribute(listed, attr, options))
        used.add(col)
    cols["image_url"] = coalesce(raw.get("variant_image"), cols.pop("image_src", None))
    # the handle column as the CSV/Parquet reader (and csvread's unification) built it
    unique = isinstance(handle, pa.ChunkedArray) and handle.num_chunks == 1 and pa.types.is_dictionary(handle.type)
    return Draft(
        row_count=row_count,
        cols=cols,
        keep=keep,
        used=used,
        skipped=int((~has_handle).sum()),
        default_status="unknown",
        unique_product_ids=unique,
        skip_reason="without a handle",
    )


# variant columns taken as they are (the readers' shared normalisation reads them)
_PASSED = (
    "sku",
    "price",
    "compare_at_price",
    "currency",
    "gtin",
    "inventory_qty",
    "inventory_policy",
    "option1_value",
    "option2_value",
    "option3_value",
)


def _variant_rows(raw: dict[str, pa.ChunkedArray], has_handle: np.ndarray) -> np.ndarray:
    """Variant rows, not image-only rows (a row with a title or any variant field) nor rows without a handle."""
    present = [raw[name] for name in ("title",) + VARIANT_EVIDENCE if name in raw]
    if any(col.null_count == 0 for col in present):  # e.g. a SKU on every row: every row is a variant
        return has_handle
    evidence = np.zeros(len(has_handle), dtype=bool)
    for col in present:
        if col.null_count < len(col):
            evidence |= np.asarray(pc.is_valid(col).to_numpy(zero_copy_only=False), dtype=bool)
    return evidence & has_handle


def _status(raw: dict[str, pa.ChunkedArray], first: FillDown) -> dict[str, pa.Array]:
    """`status` (and `online_store`): the Status column, overridden to draft when explicitly unpublished —
    decided once per product on integer codes (from the handle's first row), then spread to its rows."""
    cols: dict[str, pa.Array] = {}
    labels = ("active", "draft", "archived", "unknown")
    status = codes_of(first.per_key(raw["status"]), _shopify_status, labels) if "status" in raw else None
    if "published" in raw:
        published = codes_of(first.per_key(raw["published"]), flag_value, (True, False))  # 0 yes, 1 no, -1 unknown
        from_published = np.where(published == 0, 0, np.where(published == 1, 1, 3)).astype(np.int8)
        if status is None:
            status = from_published
        else:
            status = np.where((status == 3) | (status < 0), from_published, status).astype(np.int8)
        on_store = first.spread(published.astype(np.int8))
        cols["online_store"] = pa.array(on_store == 0, mask=on_store < 0)
    if status is not None:
        cols["status"] = from_codes(first.spread(status), labels)
    return cols


def _drop_default_title(cols: dict) -> None:
    """Options: "Default Title" (a product without variants) is no option; blanked in place."""
    for i in (1, 2, 3):
        name_column, val = f"option{i}_name", f"option{i}_value"
        if name_column in cols and val in cols:
            default = entry_mask(cols[val], lambda v: v == "Default Title")
            if pc.any(default).as_py():
                cols[val] = blank_where(cols[val], default)
                cols[name_column] = blank_where(cols[name_column], default)
