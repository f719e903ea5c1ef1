"""What every format reader shares: fill-down helpers and the final step to the canonical table.

A reader turns the raw columns of its format into a `Draft`: columns named after canonical fields
(strings as read, or values it already derived), a mask of the rows that become variant rows, and
the header columns it used. `finish` then cleans text, parses money/stock/status/availability,
maps categories to the taxonomy, assigns integer product keys and builds the canonical table — all
vectorised, the same for every format.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import canonical
from agent.catalog.categorise import map_rows
from agent.catalog.parallel import run_parallel, submit
from agent.catalog.values import (  # money parsers
    as_dictionary,
    availability_value,
    chunked,
    clean_text,
    currency_code,
    entry_codes,
    entry_numbers,
    map_distinct,
    parse_int,
    parse_money,
    parse_sale_window,
    per_row_dictionary,
    policy_value,
    resolve_currency,
    status_value,
    to_strings,
)

TEXT_FIELDS = (
    "product_id",
    "variant_id",
    "sku",
    "title",
    "description",
    "gtin",
    "mpn",
    "option1_value",
    "option2_value",
    "option3_value",
    "image_url",
    "link",
)
LONG_TEXT = ("description", "image_url", "link")  # not trimmed: costly on long text, and harmless
IDENTIFIERS = ("product_id", "variant_id", "sku", "gtin", "mpn")
DICT_FIELDS = (
    "brand",
    "category_path",
    "product_type",
    "color",
    "material",
    "size",
    "currency",
    "option1_name",
    "option2_name",
    "option3_name",
)
MONEY_FIELDS = ("price", "compare_at_price", "sale_price")
# A cell holding only a dash is a placeholder for "none": Magento's admin product grid export writes " -"
# in every empty cell (held-out hssnfarooq/luxeoverhemden-app magento_products.csv: the Thumbnail of each
# child variant, the EAN of each configurable product). Read as a value it was an image link "-" (an
# image, for Google Shopping readiness) and a GTIN "-" (an invalid GTIN, where the row states none).
DASH_BLANK_FIELDS = ("gtin", "mpn", "image_url", "link")
_DASHES = frozenset({"-", "--", "---", "\u2013", "\u2014"})
_DASH_MAX_BYTES = 8  # the longest placeholder with its spaces: a longer cell is never one (no text read)
_DASH_VALUES = pa.array(sorted(_DASHES))
PASSTHROUGH_FIELDS = ("online_store", "identifier_exists")  # readers produce these in their canonical form already
# Merchant Center's identifier_exists values (its spec: "yes"/"no"; feeds also write true/false)
_IDENTIFIER_STATED = {
    "no": False,
    "false": False,
    "n": False,
    "0": False,
    "yes": True,
    "true": True,
    "y": True,
    "1": True,
}


def identifier_exists(values: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray:
    """A feed's identifier_exists column as the canonical flag: false for "no"/"false", true for
    "yes"/"true", null for anything else (blank, or a value that says neither)."""
    return map_distinct(
        to_strings(values),
        lambda v: _IDENTIFIER_STATED.get(str(v).strip().lower()) if v is not None else None,
        pa.bool_(),
    )


ATTRIBUTE_WORDS = {
    "color": (
        "color",
        "colour",
        "colors",
        "colours",
        "color pattern",
        "farbe",
        "couleur",
        "colore",
        "kleur",
        "cor",
        "kolor",
        "цвет",
        "колір",
    ),
    "size": ("size", "sizes", "größe", "taille", "talla", "taglia", "maat", "tamanho", "rozmiar", "размер", "розмір"),
    "material": (
        "material",
        "materials",
        "fabric",
        "matériau",
        "materiale",
        "materiaal",
        "materiał",
        "материал",
        "матеріал",
    ),
}


@dataclass
class Draft:
    """A format reader's output, before the shared normalisation."""

    row_count: int  # parsed rows
    # canonical field name (or "google_category", or "vehicle_listing": bool, step (v) of categorise) -> values
    cols: dict[str, pa.ChunkedArray | pa.Array]
    keep: np.ndarray | None = None  # rows that become canonical rows (None = all)
    used: set[str] = field(default_factory=set)  # header columns the reader consumed
    skipped: int = 0  # rows the reader could not use (e.g. a Shopify row without a handle)
    default_status: str = "unknown"  # status when the data has no status at all
    currency_column: bool = False  # `currency` came from its own column (not from price text)
    header_currency: str | None = None  # an ISO code the price column's header names ("Price (EUR)")
    month_first_dates: bool = False  # the format's convention for unsettled d/m dates (Magento: en_US)
    # product_id is a one-chunk dictionary straight from the reader (each value once): cleaning
    # that changes nothing need not re-hash a quarter-million ids to prove they are distinct
    unique_product_ids: bool = False
    # the taxonomy mapping, started by the Parquet reader before the last columns were read
    # (`start_mapping`); used only if this draft's mapping inputs are the very columns it ran on
    early_mapping: Future | None = None
    skip_reason: str = "not placeable"  # what `skipped` rows lack, for the footer ("without a handle")


def take_rows(values: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array:
    """values[rows], with -1 meaning null."""
    mask = rows < 0
    idx = pa.array(np.where(mask, 0, rows), mask=mask) if mask.any() else pa.array(rows)
    if len(values) == 0:
        return pa.nulls(len(rows), type=values.type)
    return pc.take(values, idx)


def _first_per_key(values: pa.ChunkedArray | pa.Array, keys: np.ndarray, nkeys: int) -> np.ndarray:
    """For each key, the index of its first row holding a value (or -1); one extra slot for "no key"."""
    valid = np.asarray(pc.is_valid(values).to_numpy(zero_copy_only=False), dtype=bool) & (keys >= 0)
    pos = np.flatnonzero(valid)
    first = np.full(nkeys + 1, -1, dtype=np.int64)
    first[keys[pos][::-1]] = pos[::-1]  # earliest write wins
    return first


def first_row_per_key(keys: np.ndarray, nkeys: int) -> np.ndarray:
    """Index of each key's first row (-1 if none), plus the extra "no key" slot.

    Keys from a dictionary encoding are numbered in order of first appearance, so a key's first row
    is where the running maximum rises: one vectorised pass, verified, with the general scatter as
    the fallback for any other numbering."""
    first = np.full(nkeys + 1, -1, dtype=np.int64)
    if len(keys) and nkeys:
        runmax = np.maximum.accumulate(keys)
        rises = np.empty(len(keys), dtype=bool)
        rises[0] = keys[0] >= 0
        np.greater(runmax[1:], runmax[:-1], out=rises[1:])
        rows = np.flatnonzero(rises)
        if len(rows) == nkeys and np.array_equal(keys[rows], np.arange(nkeys)):
            first[:nkeys] = rows
            return first
    rows = np.flatnonzero(keys >= 0)
    first[keys[rows][::-1]] = rows[::-1]
    return first


@dataclass(frozen=True)
class FillDown:
    """Where each row's product fields come from, worked out once and shared by every column.

    `src_rows` lists, in key order, the row each key takes its values from (keys without such a row
    are left out); `slot` gives each row its key's position in `src_rows` (null: no source). Filling
    a column is then a take of a few hundred thousand source values plus, for text, nothing else:
    the per-row slots *are* the dictionary indices of the result.
    """

    src_rows: pa.Array  # int64
    slot: pa.Array  # int32 per row, null where the row's key has no source row
    slot_np: np.ndarray  # the same, -1 where null

    @classmethod
    def plan(cls, keys: np.ndarray, nkeys: int, first: np.ndarray) -> "FillDown":
        have = first >= 0
        position = np.full(nkeys + 1, -1, dtype=np.int32)
        position[np.flatnonzero(have)] = np.arange(int(have.sum()), dtype=np.int32)
        slot = np.take(position, keys if keys.min(initial=0) >= 0 else np.where(keys >= 0, keys, nkeys))
        missing = slot < 0 if not have[:-1].all() or keys.min(initial=0) < 0 else None
        if missing is not None and missing.any():
            return cls(pa.array(first[have].astype(np.int64)), pa.array(slot, mask=missing), slot)
        return cls(pa.array(first[have].astype(np.int64)), pa.array(slot), slot)

    def per_key(self, values: pa.ChunkedArray | pa.Array) -> pa.Array:
        """Each key's source value (in key order): decide per product, then `spread`."""
        return take_sorted(values, self.src_rows)

    def spread(self, per_key: np.ndarray, missing: int = -1) -> np.ndarray:
        """A per-key numpy result onto the rows; rows without a source get `missing`."""
        out = np.append(per_key, np.array([missing], dtype=per_key.dtype))
        return np.take(out, self.slot_np)

    def apply(self, values: pa.ChunkedArray | pa.Array) -> pa.Array:
        """Every row gets its source row's value; text comes back dictionary-encoded."""
        if len(values) == 0 or values.null_count == len(values):  # nothing to fill (an empty column)
            return pa.nulls(len(self.slot), type=values.type)
        typ = values.type
        if pa.types.is_dictionary(typ):
            combined = as_dictionary(values)
            per_key = combined.indices.take(self.src_rows)
            return pa.DictionaryArray.from_arrays(per_key.take(self.slot), combined.dictionary, safe=False)
        if not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
            return take_sorted(values, self.src_rows).take(self.slot)
        entries = take_sorted(values, self.src_rows).cast(pa.string())
        if entries.null_count == 0:
            return pa.DictionaryArray.from_arrays(self.slot, entries, safe=False)
        valid = np.asarray(entries.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        compact = (np.cumsum(valid) - 1).astype(np.int32)
        per_key = pa.array(compact, mask=~valid)
        return pa.DictionaryArray.from_arrays(per_key.take(self.slot), entries.filter(pa.array(valid)), safe=False)


def take_sorted(values: pa.ChunkedArray | pa.Array, rows: pa.Array) -> pa.Array:
    """values[rows] as one array. Ascending rows (a key's first rows are, keys being numbered in order
    of appearance) are taken chunk by chunk: a take on a many-chunk column would first concatenate
    the whole column."""
    if isinstance(values, pa.Array):
        return values.take(rows)
    if values.num_chunks == 1:
        return values.chunk(0).take(rows)
    row_numbers = rows.to_numpy(zero_copy_only=False)
    if rows.null_count or (len(row_numbers) > 1 and (np.diff(row_numbers) < 0).any()):
        return values.take(rows).combine_chunks()
    bounds = np.cumsum([0] + [len(chunk) for chunk in values.chunks])
    cut = np.searchsorted(row_numbers, bounds)
    parts = [
        chunk.take(pa.array(row_numbers[cut[i] : cut[i + 1]] - bounds[i]))
        for i, chunk in enumerate(values.chunks)
        if cut[i + 1] > cut[i]
    ]
    return pa.concat_arrays(parts) if parts else pa.array([], values.type)


def fill_down(
    values: pa.ChunkedArray | pa.Array, keys: np.ndarray, nkeys: int, source: np.ndarray | FillDown | None = None
) -> pa.Array:
    """Every row gets the first value of its key: product fields onto variant and image rows.

    `source` fixes the row the value comes from — Shopify keeps product fields on a handle's first
    row — either as `first_row_per_key` output or as a prepared `FillDown` shared by all columns;
    without it the first row holding a value is used (a plan per column). Text comes back
    dictionary-encoded with one entry per product, so the fill costs an integer take, and later
    cleaning works on one value per product.
    """
    if isinstance(source, FillDown):
        return source.apply(values)
    first = _first_per_key(values, keys, nkeys) if source is None else source
    return FillDown.plan(keys, nkeys, first).apply(values)


def inherited(
    raw: dict[str, pa.ChunkedArray], names: tuple[str, ...], parent_row: np.ndarray
) -> dict[str, pa.ChunkedArray | pa.Array | None]:
    """For formats whose child rows name a parent (Magento, WooCommerce): each field in `names` the row's
    own value, else its parent's (`parent_row`, -1 for none) — except the title, which is the parent's
    name first, as the product's title is the parent's."""
    out: dict[str, pa.ChunkedArray | pa.Array | None] = {}
    for name in names:
        if name in raw:
            values = raw[name].cast(pa.string()) if pa.types.is_dictionary(raw[name].type) else raw[name]
            parent_val = take_rows(values, parent_row)
            out[name] = coalesce(parent_val, values) if name == "title" else coalesce(values, parent_val)
    return out


def coalesce(*arrays: pa.ChunkedArray | pa.Array | None) -> pa.ChunkedArray | pa.Array | None:
    """First non-null per row. Dictionary inputs stay dictionary when all are; else text."""
    present = [
        column for column in arrays if column is not None and column.null_count < len(column)
    ]  # all-null columns add nothing
    if not present:
        return next((column for column in arrays if column is not None), None)
    if len(present) == 1:
        return present[0]
    if all(pa.types.is_dictionary(column.type) for column in present):
        return dict_coalesce(*present)
    typ = present[0].type
    if pa.types.is_dictionary(typ):
        typ = pa.string()
    present = [column.cast(typ) if column.type != typ else column for column in present]
    return pc.coalesce(*present)


def dict_coalesce(*arrays) -> pa.DictionaryArray:
    """Coalesce dictionary arrays on their indices: dictionaries are concatenated (duplicates are
    fine here; cleaning re-encodes), so no row-level string work happens."""
    parts = [as_dictionary(column) for column in arrays]
    offset = 0
    indices = []
    for part in parts:
        indices.append(
            pc.add(part.indices, pa.scalar(offset, part.indices.type)).cast(pa.int32())
            if offset
            else part.indices.cast(pa.int32())
        )
        offset += len(part.dictionary)
    dictionary = pa.concat_arrays([part.dictionary.cast(pa.string()) for part in parts])
    return pa.DictionaryArray.from_arrays(pc.coalesce(*indices), dictionary, safe=False)


def dict_where(mask, arr) -> pa.DictionaryArray:
    """arr (as dictionary) where mask is true, else null — on the integer indices only."""
    combined = as_dictionary(to_strings(arr))
    mask = mask.combine_chunks() if isinstance(mask, pa.ChunkedArray) else mask
    return pa.DictionaryArray.from_arrays(
        pc.if_else(mask, combined.indices, pa.scalar(None, combined.indices.type)), combined.dictionary, safe=False
    )


def entry_mask(arr, predicate) -> pa.Array:
    """Row mask from a predicate evaluated once per distinct value (nulls -> False)."""
    combined = as_dictionary(arr)
    flags = np.array([bool(predicate(v)) for v in combined.dictionary.to_pylist()], dtype=bool)
    if not flags.any():  # the usual answer: no row to look at
        return pa.repeat(False, len(combined))
    rows = flagged_rows(combined, flags)
    return pa.Array.from_buffers(pa.bool_(), len(rows), [None, pa.py_buffer(np.packbits(rows, bitorder="little"))])


def flagged_rows(column: pa.DictionaryArray, flags: np.ndarray) -> np.ndarray:
    """Per row, whether its dictionary entry is flagged (null rows: False)."""
    return entry_codes(column, flags, missing=False)


def blank_where(arr, mask) -> pa.DictionaryArray:
    """arr with nulls where mask is true, keeping dictionary encoding."""
    mask = mask.combine_chunks() if isinstance(mask, pa.ChunkedArray) else mask
    return dict_where(pc.invert(mask), arr)


def encode_keys(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int]:
    """Integer key per row (dictionary indices, int32 or wider); null -> -1. Without nulls the
    array is a read-only view of the indices (no copy)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    enc = values if pa.types.is_dictionary(values.type) else pc.dictionary_encode(values)
    if enc.null_count:  # (to_numpy would turn indices with nulls into floats)
        return entry_numbers(enc), len(enc.dictionary)
    idx = enc.indices.to_numpy(zero_copy_only=False)
    if idx.dtype.itemsize < 4:
        idx = idx.astype(np.int32)
    return idx, len(enc.dictionary)


def attribute_for(name: str | None) -> str | None:
    """Which canonical attribute an option/attribute/metafield name stands for ("Colour" -> color)."""
    if not name:
        return None
    normalised = name.strip().lower().replace("-", " ").replace("_", " ")
    for attr, words in ATTRIBUTE_WORDS.items():
        if normalised in words or any(
            normalised.endswith(" " + word) or normalised.startswith(word + " ") for word in words
        ):
            return attr
    return None


# Attribute names that hold the brand (WooCommerce shops keep it as an attribute), in the export
# languages the readers know, plus the trade's own words for it (a winery is a wine's brand)
BRAND_ATTRIBUTE_WORDS = frozenset(
    {
        "brand",
        "brands",
        "brand name",
        "manufacturer",
        "maker",
        "winery",
        "marca",
        "marcas",
        "marke",
        "marken",
        "hersteller",
        "marque",
        "fabricant",
        "fabricante",
        "merk",
        "marka",
        "produttore",
        "proizvođač",
        "proizvodjač",
        "vinarija",
        "бренд",
        "марка",
        "производитель",
        "برند",
        "العلامة التجارية",
        "الماركة",
        "מותג",
    }
)


# Brand values that say the product has none ("Sin marca", "Generic", "N/A"), in the export languages
# the readers know, compared lower case with spaces, hyphens and dots as one space. Decision: read as no
# brand (null), as a blank brand is — Merchant Center's own rule is to leave `brand` out (and set
# identifier_exists) for an unbranded product, and "Generic" is what marketplaces write there. A shop
# where 338 of 381 products say "Sin marca" has no brand on them, not one brand holding 88.7 %.
# "No Name" stays a brand (a supermarket chain's own label is called that).
NO_BRAND_VALUES = frozenset(
    {
        "no brand",
        "nobrand",
        "unbranded",
        "non branded",
        "without brand",
        "generic",
        "generics",
        "n a",
        "na",
        "none",
        "null",
        # a placeholder a store app writes where the vendor was never set ("vendor-unknown" on a held-out
        # jewellery export counted as one of its 7 brands); a real brand is never the bare word
        "unknown",
        "unknown brand",
        "unknown vendor",
        "brand unknown",
        "vendor unknown",
        "sin marca",
        "genérico",
        "genérica",
        "genéricos",
        "generico",
        "generica",
        "genericos",
        "sem marca",
        "ohne marke",
        "keine marke",
        "markenlos",
        "sans marque",
        "aucune marque",
        "générique",
        "generique",
        "senza marca",
        "nessuna marca",
        "geen merk",
        "merkloos",
        "bez marki",
        "brak marki",
        "без бренда",
        "без марки",
        "нет бренда",
        "markasız",
        "marka yok",
        "بدون ماركة",
        "بدون علامة تجارية",
    }
)


def is_no_brand(value: str | None) -> bool:
    """Whether a brand cell says there is no brand ("Sin marca", "GENERICOS", "N/A", "-")."""
    if not value:
        return False
    text = " ".join(value.replace("-", " ").replace(".", " ").replace("/", " ").replace("_", " ").split()).lower()
    return text in NO_BRAND_VALUES or not any(char.isalnum() for char in text)


def is_brand_attribute(name: str | None) -> bool:
    """Whether an attribute's name says it holds the brand ("Marca", "Brand", "pa_brand")."""
    if not name:
        return False
    normalised = name.strip().lower().replace("-", " ").replace("_", " ")
    return normalised in BRAND_ATTRIBUTE_WORDS or normalised.removeprefix("pa ") in BRAND_ATTRIBUTE_WORDS


def attributes_from_options(cols: dict) -> None:
    """Fill color/size/material from option name/value pairs where the data names the axis.

    Works on dictionaries: the axis of each distinct option name is decided once, rows only move
    integer indices.
    """
    for i in (1, 2, 3):
        names, values = cols.get(f"option{i}_name"), cols.get(f"option{i}_value")
        if names is None or values is None:
            continue
        for attr in ATTRIBUTE_WORDS:
            mask = entry_mask(names, lambda v, a=attr: attribute_for(v) == a)
            if not pc.any(mask).as_py():
                continue
            picked = dict_where(mask, values)
            cols[attr] = coalesce(picked, cols.get(attr))


def _mask(keep: np.ndarray | None, arr):
    return arr if keep is None else pc.filter(arr, pa.array(keep))


def _parallel(tasks: dict[str, Callable[[], object]], rows: int) -> dict[str, object]:
    """Independent column jobs, side by side on large tables (see agent.catalog.parallel)."""
    return run_parallel(tasks, rows)


# Canonical dictionary columns whose plain-string sources hold a value per row (image links of a
# Merchant Center feed): numbered row by row rather than hashed (`values.per_row_dictionary`).
PER_ROW_DICT_FIELDS = frozenset({"image_url"})


def _to_schema(name: str, value):
    """Cast one column to its canonical type (done in parallel, so from_columns has nothing left)."""
    typ = canonical.SCHEMA.field(name).type
    if value.type == typ:
        return value
    if name in PER_ROW_DICT_FIELDS and not pa.types.is_dictionary(value.type):
        return per_row_dictionary(value)
    return value.cast(typ)


def cleaned_as_categorical(name: str | None) -> bool:
    """Whether `finish` cleans a field's dictionary unified (`clean_text(categorical=True)`: product ids,
    whose indices become product keys, and every categorical field) or as free text (the other
    `TEXT_FIELDS`: the chunks' dictionaries concatenated). A reader that combines a column early
    (`ingest._read_overlapped`) combines it the same way, so the cleaning finds nothing left to do."""
    return name == "product_id" or name not in TEXT_FIELDS


def _text_job(name: str, value, unique: bool = False) -> Callable[[], object]:
    def job():
        cleaned = clean_text(
            value,
            trim=name not in LONG_TEXT,
            categorical=cleaned_as_categorical(name),
            unique=unique,
            marker=name in IDENTIFIERS,
        )
        return blank_dashes(cleaned) if name in DASH_BLANK_FIELDS else cleaned

    return job


def _dash_flags(strings: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per value of a string column, whether it holds only a dash (`_DASHES`, whitespace around it); a
    null is not one. Only values of at most `_DASH_MAX_BYTES` bytes are trimmed and compared, in Arrow:
    a dictionary of 300k image links or a million long identifiers costs one length comparison each,
    where a Python pass over the values cost ~35 ms at 1M variants and held the GIL from the other jobs."""
    short_mask = pc.fill_null(pc.less_equal(pc.binary_length(strings), _DASH_MAX_BYTES), False)
    flags = np.zeros(len(strings), dtype=bool)
    if not pc.any(short_mask).as_py():
        return flags
    short = np.flatnonzero(short_mask.to_numpy(zero_copy_only=False))
    trimmed = pc.utf8_trim_whitespace(strings.take(pa.array(short)))
    hits = pc.fill_null(pc.is_in(trimmed, value_set=_DASH_VALUES), False).to_numpy(zero_copy_only=False)
    flags[short[hits]] = True
    return flags


def blank_dashes(arr):
    """`arr` with its dash-only cells ("-", " - ", "—") null (`DASH_BLANK_FIELDS`), keeping a dictionary
    column's encoding. A dictionary is read once per entry, a plain column once per row (`_dash_flags`)."""
    arr = chunked(arr)
    if pa.types.is_dictionary(arr.type):
        combined = as_dictionary(arr)
        flags = _dash_flags(combined.dictionary)
        return blank_where(arr, pa.array(flagged_rows(combined, flags))) if flags.any() else arr
    flags = _dash_flags(arr)
    return pc.if_else(pa.array(flags), pa.scalar(None, arr.type), arr) if flags.any() else arr


def _status(value, default: str, row_count: int) -> pa.DictionaryArray:
    labels = canonical.STATUS_VALUES
    if value is None:
        return from_codes(np.full(row_count, labels.index(default), dtype=np.int8), labels)
    # one label per distinct value, spread on the indices (nulls: unknown)
    unknown = labels.index("unknown")
    return from_codes(value_codes(value, lambda v: labels.index(status_value(v)), np.int8, unknown), labels)


def finish(draft: Draft, source: str, snapshot_rows: pa.ChunkedArray | None = None) -> pa.Table:
    """Draft -> canonical table (all statuses; the analysis chooses its population).

    Two stages on the pool: every column on its own (`_column_jobs`), and the jobs that read several
    columns (`_joined_jobs`), each queued right after the columns it reads (`_submit_in_order`);
    meanwhile this thread settles the currency and the sale window."""
    keep = draft.keep
    if keep is not None and keep.all():
        keep = None
    cols = {k: _mask(keep, v) for k, v in dict(draft.cols).items() if v is not None}
    row_number = _mask(keep, pa.array(np.arange(1, draft.row_count + 1, dtype=np.int64)))
    if snapshot_rows is not None:
        snapshot_rows = _mask(keep, snapshot_rows)
    row_count = len(row_number)
    column_jobs = _column_jobs(cols, draft, row_count)
    futures: dict[str, Future] = {}

    def got(name: str):
        fut = futures.get(name)
        if fut is None and name in column_jobs:  # a joined job read a column JOINED_READS does not list
            raise RuntimeError(f"column {name!r} read before its job was queued: list it in JOINED_READS")
        return fut.result() if fut is not None else None

    joined = _joined_jobs(cols, got, row_count)
    if draft.early_mapping is not None and keep is None:
        joined["mapping"] = functools.partial(_early_or_own, draft.early_mapping, cols, got, row_count)
    stage2 = _submit_in_order(column_jobs, joined, futures, row_count)
    out: dict[str, Any] = {"row_number": row_number, **{k: f.result() for k, f in futures.items()}}
    out.update({name: cols[name] for name in PASSTHROUGH_FIELDS if name in cols})
    currency = _currency(out, draft.header_currency, row_count)
    if currency is not None:
        out["currency"] = currency
    if "sale_window" in out:  # Merchant Center: one interval column; explicit start/end columns win
        start, end = out.pop("sale_window")
        out["sale_start"] = coalesce(out.get("sale_start"), start)
        out["sale_end"] = coalesce(out.get("sale_end"), end)
    out["availability"] = stage2["availability"].result()
    out["google_category_id"], out["google_category_path"], out["category_mapping"] = stage2["mapping"].result()
    out["product_id"], out["product_key"] = stage2["keys"].result()
    out["own_categories"] = stage2["own_categories"].result()
    out["source"] = pa.DictionaryArray.from_arrays(_zero_indices(row_count), pa.array([source]), safe=False)
    if snapshot_rows is not None:
        out["snapshot_date"] = snapshot_rows
    # what is not yet in its canonical type (currency, numbers, a few others) — usually nothing costly
    final = {k: v for k, v in out.items() if k in canonical.COLUMNS and v is not None}
    final = _parallel({k: functools.partial(_to_schema, k, v) for k, v in final.items()}, row_count)
    for field_ in canonical.SCHEMA:  # columns the data lacks: all-null, over one shared zero buffer
        if field_.name not in final:
            final[field_.name] = null_column(row_count, field_.type)
    return canonical.from_columns(final)


# What each job of `_joined_jobs` reads from stage 1, and the stage-1 jobs that head the longest
# chains (the product-id unification; the title, then the mapping after it), which go first.
JOINED_READS = {
    "mapping": ("category_path", "product_type", "title", "brand"),
    "keys": ("product_id", "variant_id", "sku"),
    "own_categories": ("category_path", "product_type"),
    "availability": ("inventory_qty", "inventory_policy"),
}
LEADING_JOBS = ("product_id", "title", "brand", "product_type", "category_path")


def _submit_in_order(
    column_jobs: dict[str, Callable[[], object]],
    joined_jobs: dict[str, Callable[[], object]],
    futures: dict[str, Future],
    row_count: int,
) -> dict[str, Future]:
    """Submit the stage-1 jobs into `futures` and return the stage-2 futures, each stage-2 job right
    after the last stage-1 job it reads (`JOINED_READS`) rather than after all of them.

    Why: the pool takes jobs in order, so a stage-2 job queued behind every stage-1 job starts last
    and runs alone at the end — the taxonomy mapping (≈ 20 ms at 1M rows) was the ingest's serial
    tail. Queued as soon as its inputs are, it runs beside the remaining column jobs. A job still
    waits only on jobs submitted before it (the rule `parallel.submit_all` states), and inline
    (small tables) each job finds its inputs done; the results are the same in any order."""
    order = [name for name in LEADING_JOBS if name in column_jobs]
    order += [name for name in column_jobs if name not in order]
    stage2: dict[str, Future] = {}
    pending = dict(joined_jobs)

    def release() -> None:
        for name in list(pending):
            if all(read in futures or read not in column_jobs for read in JOINED_READS.get(name, ())):
                stage2[name] = submit(pending.pop(name), row_count)

    for name in order:
        futures[name] = submit(column_jobs[name], row_count)
        release()
    release()
    return stage2


def _column_jobs(cols: dict[str, Any], draft: Draft, row_count: int) -> dict[str, Callable[[], object]]:
    """Stage 1 of `finish`: one job per column, each on that column alone — text cleaned, dictionaries
    cleaned, money and quantities parsed, status and policy read, sale dates by the one date rule — and
    each also casting to its canonical type, so nothing waits for a last stage."""
    jobs: dict[str, Callable[[], object]] = {}
    for name in TEXT_FIELDS:
        if name in cols:
            jobs[name] = _text_job(name, cols[name], unique=name == "product_id" and draft.unique_product_ids)
    for name in DICT_FIELDS:
        if name in cols:
            jobs[name] = functools.partial(_clean_brand if name == "brand" else _clean_dict, cols[name])
    for name in MONEY_FIELDS:
        if name in cols:
            jobs[name] = functools.partial(parse_money, cols[name])
    if "inventory_qty" in cols:
        jobs["inventory_qty"] = lambda: parse_int(cols["inventory_qty"])
    if "inventory_policy" in cols:
        jobs["inventory_policy"] = lambda: map_distinct(
            to_strings(cols["inventory_policy"]), policy_value, pa.string(), keep_dict=True
        )
    jobs["status"] = lambda: _status(cols.get("status"), draft.default_status, row_count)
    for name in ("sale_start", "sale_end"):
        if name in cols:
            # the one date rule of the catalog layer (agent.catalog.dates): Magento's "8/14/24" too
            jobs[name] = functools.partial(_sale_dates, cols[name], draft.month_first_dates)
    if "sale_window" in cols:
        jobs["sale_window"] = lambda: parse_sale_window(cols["sale_window"])
    return {k: (_typed(k, f) if k in canonical.COLUMNS and k not in MONEY_FIELDS else f) for k, f in jobs.items()}


def _joined_jobs(cols: dict[str, Any], got: Callable[[str], Any], row_count: int) -> dict[str, Callable[[], object]]:
    """Stage 2 of `finish`: the jobs that read several stage-1 columns (`got` waits for one): availability,
    the taxonomy mapping, product ids and keys, the own category paths."""

    def ids_and_keys():
        pid = got("product_id")
        if pid is None or pid.null_count:
            pid = coalesce(pid, got("variant_id"), got("sku"))
            pid = _to_schema("product_id", pid) if pid is not None else None
        return pid, _product_keys(pid, row_count)

    return {
        "availability": lambda: _availability(
            cols.get("availability"), got("inventory_qty"), got("inventory_policy"), row_count
        ),
        "mapping": lambda: _mapping(cols, got, row_count),
        "keys": ids_and_keys,
        "own_categories": lambda: _own_categories(
            cols.get("own_categories"), got("category_path"), got("product_type")
        ),
    }


MAPPING_INPUTS = ("google_category", "category_path", "product_type", "title", "brand", "vehicle_listing")
_CLEANED_MAPPING_INPUTS = ("category_path", "product_type", "title", "brand")


def _mapping(cols: dict[str, Any], got: Callable[[str], Any], row_count: int):
    """The taxonomy mapping's columns, from the draft's columns (`got`: their stage-1 results)."""
    return map_rows(
        row_count,
        cols.get("google_category"),
        got("category_path"),
        got("product_type"),
        got("title"),
        brand=got("brand"),
        vehicle=cols.get("vehicle_listing"),
    )


def start_mapping(inputs: Callable[[], dict[str, pa.ChunkedArray]], row_count: int) -> Future:
    """Run the taxonomy mapping on the pool before the rest of the table exists: `inputs()` (called on
    the pool) gives the mapping's columns by canonical name, as a reader will put them in its draft.

    Why: the mapping (≈ 20 ms at 1M rows, most of it one thread) is the longest job after a Parquet
    read; started while Arrow still reads the other columns, it is done when `finish` wants it. The
    columns are cleaned by the very jobs `finish` uses, and the future's result carries the inputs,
    so `finish` takes the early answer only if its own draft holds the same columns
    (`_early_or_own`); otherwise it maps as usual. Same answer either way, by construction."""
    stub = Draft(row_count=row_count, cols={})

    def job():
        cols = inputs()
        jobs = _column_jobs({name: cols[name] for name in _CLEANED_MAPPING_INPUTS if name in cols}, stub, row_count)
        cleaned = {name: jobs[name]() for name in _CLEANED_MAPPING_INPUTS if name in jobs}
        return cols, _mapping(cols, cleaned.get, row_count)

    return submit(job, row_count)


def _early_or_own(early: Future, cols: dict[str, Any], got: Callable[[str], Any], row_count: int):
    """`start_mapping`'s answer when it ran on this draft's own mapping columns, else the mapping now."""
    inputs, answer = early.result()
    if all(same_column(cols.get(name), inputs.get(name)) for name in MAPPING_INPUTS):
        return answer
    return _mapping(cols, got, row_count)


def same_column(candidate: pa.ChunkedArray | pa.Array | None, raw_column: pa.ChunkedArray | None) -> bool:
    """Whether `candidate` is `raw_column` passed on as it was (the same buffers, chunk by chunk), not
    something derived from it; two absent columns are the same."""
    if candidate is None or raw_column is None:
        return candidate is None and raw_column is None
    if not isinstance(candidate, pa.ChunkedArray) or candidate.type != raw_column.type:
        return False
    if candidate.num_chunks != raw_column.num_chunks:
        return False

    def addresses(arr: pa.Array) -> list[int]:
        parts = [arr, arr.dictionary] if pa.types.is_dictionary(arr.type) else [arr]
        return [buf.address if buf else 0 for part in parts for buf in part.buffers()] + [arr.offset, len(arr)]

    return all(addresses(left) == addresses(right) for left, right in zip(candidate.chunks, raw_column.chunks))


def _currency(out: dict[str, Any], header_currency: str | None, row_count: int) -> pa.Array | None:
    """Each row's currency: the code the price text gave, a currency column where it says one, the code
    the price header names ("Price (EUR)") for every priced row without its own; "$", "kr", "¥" only where
    the file corroborates one code. Takes the parsed money columns in `out` apart (amount stays)."""
    currency = None
    for name in MONEY_FIELDS:
        if name in out:
            amount, cur = out[name]
            out[name] = amount
            if cur is not None:
                currency = cur if currency is None else coalesce(currency, cur)
    if "currency" in out:  # a currency column; where it is blank, the price text may still say
        stated = map_distinct(out["currency"], currency_code, pa.string(), keep_dict=True)
        currency = stated if currency is None or stated.null_count == 0 else coalesce(stated, currency)
    if header_currency and "price" in out:  # every priced row without its own code
        named = pa.DictionaryArray.from_arrays(_zero_indices(row_count), pa.array([header_currency]), safe=False)
        named = dict_where(pc.is_valid(out["price"]), named)
        currency = named if currency is None else coalesce(currency, named)
    return resolve_currency(currency, (header_currency,) if header_currency else ())


def _own_categories(from_reader, category_path, product_type):
    """All own paths per row: the reader's multi-path parse (or the primary path, read as a generic
    category value), then the product type (see readers/own_categories.py)."""
    from agent.catalog.readers import own_categories as own

    paths = (
        from_reader
        if from_reader is not None
        else (own.column(category_path, own.generic) if category_path is not None else None)
    )
    types = own.column(product_type, own.single) if product_type is not None else None
    return own.combine(paths, types)


_ZEROS: list[pa.Buffer] = []
_ZEROS_LOCK = threading.Lock()


def _zero_buffer(nbytes: int) -> pa.Buffer:
    with _ZEROS_LOCK:
        if not _ZEROS or _ZEROS[0].size < nbytes:
            _ZEROS[:] = [pa.py_buffer(bytes(nbytes))]
        return _ZEROS[0]


def _zero_indices(n: int) -> pa.Array:
    """n valid int32 zeros (every row: the first dictionary entry), a view of the shared block."""
    return pa.Array.from_buffers(pa.int32(), n, [None, _zero_buffer((n + 1) * 8).slice(0, n * 4)], null_count=0)


def null_column(row_count: int, typ: pa.DataType) -> pa.Array:
    """An all-null column of `row_count` rows whose buffers are views of one zeroed block shared by every
    such column: a format without sale prices, materials or option columns adds no memory for them
    (the block is allocated once, and its untouched pages are never even mapped)."""
    zero = _zero_buffer((row_count + 1) * 8)
    bitmap = zero.slice(0, (row_count + 7) // 8)
    if pa.types.is_dictionary(typ):
        indices = pa.Array.from_buffers(
            typ.index_type,
            row_count,
            [bitmap, zero.slice(0, row_count * typ.index_type.bit_width // 8)],
            null_count=row_count,
        )
        return pa.DictionaryArray.from_arrays(indices, pa.array([], typ.value_type), safe=False)
    if pa.types.is_string(typ):
        return pa.Array.from_buffers(
            typ, row_count, [bitmap, zero.slice(0, (row_count + 1) * 4), pa.py_buffer(b"")], null_count=row_count
        )
    if (pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_date(typ)) and typ.bit_width % 8 == 0:
        return pa.Array.from_buffers(
            typ, row_count, [bitmap, zero.slice(0, row_count * typ.bit_width // 8)], null_count=row_count
        )
    return pa.nulls(row_count, typ)


def _typed(name: str, job: Callable[[], object]) -> Callable[[], object]:
    return lambda: _to_schema(name, job())


def _product_keys(product_id, row_count: int) -> pa.Array:
    keys, _ = encode_keys(product_id) if product_id is not None else (np.full(row_count, -1, dtype=np.int64), 0)
    keys = keys.astype(np.int64)  # the canonical width, and a writable copy
    missing = keys < 0
    if missing.any():  # rows with no identity at all are products of their own
        keys[missing] = keys.max(initial=-1) + 1 + np.arange(int(missing.sum()))
    return pa.array(keys)


def as_dict(arr):
    """A categorical column as a dictionary: plain strings (a BigQuery Storage Read, an Arrow table) are
    encoded, so clean_text cleans them as it cleans a CSV's (inner runs of spaces collapsed too)."""
    arr = chunked(arr)
    if pa.types.is_dictionary(arr.type):
        return arr
    return pc.dictionary_encode(to_strings(arr))


def _clean_dict(values):
    """A dictionary-encoded text column, cleaned (a column job of `finish`)."""
    return clean_text(as_dict(values))


def _clean_brand(values):
    """The brand column cleaned, and a value saying there is no brand ("Sin marca", "Generic") read as
    none (NO_BRAND_VALUES): decided once per distinct value, rows keep their indices."""
    cleaned = _clean_dict(values)
    placeholder = entry_mask(cleaned, is_no_brand)
    return blank_where(cleaned, placeholder) if pc.any(placeholder).as_py() else cleaned


def codes_of(arr, classify, labels: tuple[object, ...]) -> np.ndarray:
    """Per-row int8 code (index into labels, -1 for none) from `classify` evaluated once per distinct value."""
    return value_codes(arr, lambda v: labels.index(code) if (code := classify(v)) in labels else -1, np.int8)


def value_codes(arr, code: Callable[[object], int], dtype=np.int8, missing: int = -1) -> np.ndarray:
    """Per-row `code(value)`, evaluated once per distinct value; null rows get `missing`.

    Each chunk is coded through its own dictionary (Parquet row groups and CSV blocks bring one
    each), so no dictionary unification — a hash pass over the values — is needed first."""
    arr = to_strings(arr)
    if not pa.types.is_dictionary(arr.type):
        arr = chunked(as_dictionary(arr))
    memo: dict[object, int] = {}
    parts = []
    for chunk in arr.chunks:
        per_entry = np.array(
            [memo[v] if v in memo else memo.setdefault(v, code(v)) for v in chunk.dictionary.to_pylist()], dtype=dtype
        )
        parts.append(entry_codes(chunk, per_entry, missing))
    if not parts:
        return np.empty(0, dtype=dtype)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def from_codes(codes: np.ndarray, labels: tuple[str, ...]) -> pa.DictionaryArray:
    mask = codes < 0
    indices = pa.array(codes.astype(np.int32), mask=mask) if mask.any() else pa.array(codes.astype(np.int32))
    return pa.DictionaryArray.from_arrays(indices, pa.array(list(labels), pa.string()), safe=False)


def _availability(raw, qty, policy, row_count: int) -> pa.Array:
    """Stated availability wins; else stock > 0 is in stock, 0 with "continue" is backorder, 0 is out.

    Computed on small integer codes, not strings: the result is a dictionary array."""
    labels = canonical.AVAILABILITY_VALUES
    code = codes_of(raw, availability_value, labels) if raw is not None else None
    if qty is not None and (code is None or (code < 0).any()):
        quantity = chunked(qty)
        quantity = quantity.chunk(0) if quantity.num_chunks == 1 else quantity.combine_chunks()
        if not pa.types.is_integer(quantity.type):
            quantity = pc.floor(quantity.cast(pa.float64())).cast(pa.int64(), safe=False)
        amount = (
            pc.fill_null(quantity, 0).to_numpy(zero_copy_only=False)
            if quantity.null_count
            else quantity.to_numpy(zero_copy_only=False)
        )
        derived = np.where(amount > 0, labels.index("in_stock"), labels.index("out_of_stock")).astype(np.int8)
        if policy is not None:
            cont = codes_of(policy, lambda v: v, ("continue",)) == 0
            derived[cont & (amount <= 0)] = labels.index("backorder")
        if quantity.null_count:
            derived[~np.asarray(quantity.is_valid().to_numpy(zero_copy_only=False), dtype=bool)] = -1
        code = derived if code is None else np.where(code >= 0, code, derived)
    if code is None:
        code = np.full(row_count, labels.index("unknown"), dtype=np.int8)
    else:
        code[code < 0] = labels.index("unknown")
    return from_codes(code, labels)


def _sale_dates(values, month_first: bool) -> pa.ChunkedArray:
    """A sale schedule column as dates, read as the snapshot columns are (dates.parse_date_column)."""
    from agent.catalog.dates import parse_date_column

    return parse_date_column(to_strings(values), month_first_default=month_first).dates
