"""What every format reader shares: fill-down helpers and the final step to the canonical table.

A reader turns the raw columns of its format into a `Draft`: columns named after canonical fields
(strings as read, or values it already derived), a mask of the rows that become variant rows, and
the header columns it used. `finish` then cleans text, parses money/stock/status/availability,
maps categories to the taxonomy, assigns integer product keys and builds the canonical table — all
vectorised, the same for every format.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import canonical
from agent.catalog.categorise import map_rows
from agent.catalog.values import (
    STR_DICT, availability_value, chunked, clean_text, map_distinct, parse_dates, parse_int,
    parse_money, policy_value, status_value, strip_excel_text_marker, to_strings,
)

TEXT_FIELDS = ("product_id", "variant_id", "sku", "title", "description", "gtin", "mpn",
               "option1_value", "option2_value", "option3_value", "image_url", "link")
LONG_TEXT = ("description", "image_url", "link")  # not trimmed: costly on long text, and harmless
IDENTIFIERS = ("product_id", "variant_id", "sku", "gtin", "mpn")
DICT_FIELDS = ("brand", "category_path", "product_type", "color", "material", "size", "currency",
               "option1_name", "option2_name", "option3_name")
MONEY_FIELDS = ("price", "compare_at_price", "sale_price")
ATTRIBUTE_WORDS = {
    "color": ("color", "colour", "colors", "colours", "color pattern", "farbe", "couleur"),
    "size": ("size", "sizes", "größe", "taille"),
    "material": ("material", "materials", "fabric"),
}


@dataclass
class Draft:
    """A format reader's output, before the shared normalisation."""

    n: int  # parsed rows
    cols: dict[str, pa.ChunkedArray | pa.Array]  # canonical field name (or "google_category") -> values
    keep: np.ndarray | None = None  # rows that become canonical rows (None = all)
    used: set[str] = field(default_factory=set)  # header columns the reader consumed
    skipped: int = 0  # rows the reader could not use (e.g. a Shopify row without a handle)
    default_status: str = "unknown"  # status when the data has no status at all
    currency_column: bool = False  # `currency` came from its own column (not from price text)


def take_rows(values: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array:
    """values[rows], with -1 meaning null."""
    mask = rows < 0
    idx = pa.array(np.where(mask, 0, rows), mask=mask) if mask.any() else pa.array(rows)
    if len(values) == 0:
        return pa.nulls(len(rows), type=values.type)
    return pc.take(values, idx)


def first_valid_row(values: pa.ChunkedArray | pa.Array, keys: np.ndarray, nkeys: int) -> np.ndarray:
    """For each row, the index of the first row of the same key holding a value (or -1)."""
    valid = np.asarray(pc.is_valid(values).to_numpy(zero_copy_only=False), dtype=bool) & (keys >= 0)
    pos = np.flatnonzero(valid)
    first = np.full(nkeys + 1, -1, dtype=np.int64)
    first[keys[pos][::-1]] = pos[::-1]  # earliest write wins
    return first[np.where(keys >= 0, keys, nkeys)]


def fill_down(values: pa.ChunkedArray | pa.Array, keys: np.ndarray, nkeys: int) -> pa.Array:
    """Every row gets the first value of its key: product fields onto variant and image rows."""
    return take_rows(values, first_valid_row(values, keys, nkeys))


def coalesce(*arrays: pa.ChunkedArray | pa.Array | None) -> pa.ChunkedArray | pa.Array | None:
    present = [a for a in arrays if a is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    typ = present[0].type
    if pa.types.is_dictionary(typ):
        present = [a.cast(pa.string()) if pa.types.is_dictionary(a.type) else a for a in present]
    else:
        present = [a.cast(typ) if a.type != typ else a for a in present]
    return pc.coalesce(*present)


def encode_keys(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int]:
    """Integer key per row (dictionary indices); null -> -1."""
    if pa.types.is_dictionary(values.type):
        enc = chunked(values).combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    else:
        enc = pc.dictionary_encode(chunked(values).combine_chunks() if isinstance(values, pa.ChunkedArray) else values)
    idx = enc.indices.to_numpy(zero_copy_only=False)
    if enc.null_count:
        idx = np.where(np.asarray(enc.is_valid().to_numpy(zero_copy_only=False), dtype=bool), idx, -1)
    return idx.astype(np.int64), len(enc.dictionary)


def attribute_for(name: str | None) -> str | None:
    """Which canonical attribute an option/attribute/metafield name stands for ("Colour" -> color)."""
    if not name:
        return None
    n = name.strip().lower().replace("-", " ").replace("_", " ")
    for attr, words in ATTRIBUTE_WORDS.items():
        if n in words or any(n.endswith(" " + w) or n.startswith(w + " ") for w in words):
            return attr
    return None


def attributes_from_options(cols: dict) -> None:
    """Fill color/size/material from option name/value pairs where the data names the axis."""
    for i in (1, 2, 3):
        names, values = cols.get(f"option{i}_name"), cols.get(f"option{i}_value")
        if names is None or values is None:
            continue
        attr_of = map_distinct(to_strings(names), attribute_for, pa.string())
        for attr in ATTRIBUTE_WORDS:
            mask = pc.fill_null(pc.equal(attr_of, attr), False)
            if not pc.any(mask).as_py():
                continue
            picked = pc.if_else(mask, to_strings(values).cast(pa.string()), pa.scalar(None, pa.string()))
            cols[attr] = coalesce(picked, cols.get(attr))


def _mask(keep: np.ndarray | None, arr):
    return arr if keep is None else pc.filter(arr, pa.array(keep))


def finish(draft: Draft, source: str, snapshot_rows: pa.ChunkedArray | None = None) -> pa.Table:
    """Draft -> canonical table (all statuses; the analysis chooses its population)."""
    cols = dict(draft.cols)
    row_number = pa.array(np.arange(1, draft.n + 1, dtype=np.int64))
    keep = draft.keep
    if keep is not None and keep.all():
        keep = None
    cols = {k: _mask(keep, v) for k, v in cols.items() if v is not None}
    row_number = _mask(keep, row_number)
    if snapshot_rows is not None:
        snapshot_rows = _mask(keep, snapshot_rows)
    n = len(row_number)
    out: dict[str, pa.Array | pa.ChunkedArray] = {"row_number": row_number}

    for name in TEXT_FIELDS:
        if name in cols:
            v = clean_text(cols[name], trim=name not in LONG_TEXT)
            out[name] = strip_excel_text_marker(v) if name in IDENTIFIERS else v
    for name in DICT_FIELDS:
        if name in cols:
            out[name] = clean_text(as_dict(cols[name]))
    if "product_id" not in out or out["product_id"].null_count:
        out["product_id"] = coalesce(out.get("product_id"), out.get("variant_id"), out.get("sku"))

    currency = None
    for name in MONEY_FIELDS:
        if name in cols:
            amount, cur = parse_money(cols[name])
            out[name] = amount
            if cur is not None:
                currency = cur if currency is None else coalesce(currency, cur)
    if "currency" in out:  # a currency column; where it is blank, the price text may still say
        stated = map_distinct(out["currency"], lambda v: v.upper() if v else None, pa.string(), keep_dict=True)
        out["currency"] = stated if currency is None or stated.null_count == 0 else coalesce(stated, currency)
    elif currency is not None:
        out["currency"] = currency

    if "inventory_qty" in cols:
        out["inventory_qty"] = parse_int(cols["inventory_qty"])
    if "inventory_policy" in cols:
        out["inventory_policy"] = map_distinct(to_strings(cols["inventory_policy"]), policy_value, pa.string(), keep_dict=True)
    if "status" in cols:
        status = map_distinct(to_strings(cols["status"]), status_value, pa.string(), keep_dict=True)
        out["status"] = status if status.null_count == 0 else pc.fill_null(status.cast(pa.string()), "unknown")
    else:
        out["status"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([draft.default_status]))
    out["availability"] = _availability(cols.get("availability"), out.get("inventory_qty"), out.get("inventory_policy"), n)

    gid, gpath, method = map_rows(n, cols.get("google_category"), out.get("category_path"),
                                  out.get("product_type"), out.get("title"))
    out["google_category_id"], out["google_category_path"], out["category_mapping"] = gid, gpath, method

    keys, _ = encode_keys(out["product_id"]) if out.get("product_id") is not None else (np.full(n, -1), 0)
    if (keys < 0).any():  # rows with no identity at all are products of their own
        missing = keys < 0
        keys[missing] = keys.max(initial=-1) + 1 + np.arange(int(missing.sum()))
    out["product_key"] = pa.array(keys.astype(np.int64))
    out["source"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([source]))
    if snapshot_rows is not None:
        out["snapshot_date"] = snapshot_rows
    return canonical.from_columns({k: v for k, v in out.items() if k in canonical.COLUMNS and v is not None})


def as_dict(arr):
    arr = chunked(arr)
    if pa.types.is_dictionary(arr.type):
        return arr
    return to_strings(arr)


def _availability(raw, qty, policy, n: int) -> pa.Array:
    """Stated availability wins; else stock > 0 is in stock, 0 with "continue" is backorder, 0 is out."""
    stated = map_distinct(to_strings(raw), availability_value, pa.string(), keep_dict=True) if raw is not None else None
    if stated is not None and stated.null_count == 0:
        return stated
    derived = None
    if qty is not None:
        cont = pc.fill_null(pc.equal(policy.cast(pa.string()), "continue"), False) if policy is not None else pa.scalar(False)
        derived = pc.if_else(pc.greater(qty, 0), "in_stock", pc.if_else(cont, "backorder", "out_of_stock"))
    result = coalesce(stated, derived)
    if result is None:
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array(["unknown"]))
    result = pc.fill_null(result, "unknown")
    return result.cast(pa.string()).dictionary_encode() if isinstance(result, pa.Array) else pc.dictionary_encode(result)


def snapshot_from(table: pa.Table, candidates: list[str]) -> tuple[pa.ChunkedArray | None, dt.date | None, str | None]:
    """The first candidate column with parseable dates: (per-row dates, newest date, origin)."""
    for name in candidates:
        if name not in table.column_names:
            continue
        dates = parse_dates(table[name])
        newest = pc.max(dates).as_py()
        if newest is not None:
            return dates, newest, f"column {name}"
    return None, None, None
