"""Vectorised value parsers: text cleaning, money, integers, flags, status, availability, dates.

Every parser takes an Arrow (chunked) array and returns one. Work that needs Python (money in odd
notations, free-text status words) runs once per *distinct* value, never once per row: columns are
dictionary-encoded, the dictionary is mapped, and the indices are reused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

STR_DICT = pa.dictionary(pa.int32(), pa.string())

Arrayish: TypeAlias = "pa.Array | pa.ChunkedArray"


def chunked(arr: Arrayish) -> pa.ChunkedArray:
    return arr if isinstance(arr, pa.ChunkedArray) else pa.chunked_array([arr], type=arr.type)


def valid_rows(arr: pa.Array) -> np.ndarray:
    """An array's validity bitmap as one bool per row (all true when it has no nulls)."""
    bitmap = arr.buffers()[0]
    if bitmap is None or arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little", count=arr.offset + len(arr))
    return bits[arr.offset :].view(bool)


def entry_codes(column: pa.DictionaryArray, per_entry: np.ndarray, missing=-1) -> np.ndarray:
    """Per row, its dictionary entry's value in `per_entry` (null rows: `missing`).

    Read straight off the index and validity buffers with numpy: a million rows cost ~1 ms this
    way, against ~7 ms for Arrow's fill_null + take (the null-filled copy is the costly part). Index
    slots under nulls hold unspecified values, hence the clip before the validity mask."""
    row_count, ind = len(column), column.indices
    if row_count == 0 or len(per_entry) == 0:
        return np.full(row_count, missing, dtype=per_entry.dtype)
    raw = np.frombuffer(ind.buffers()[1], dtype=np.dtype(ind.type.to_pandas_dtype()), count=ind.offset + row_count)[
        ind.offset :
    ]
    out = np.take(per_entry, raw, mode="clip")
    if ind.null_count:
        out[~valid_rows(ind)] = missing
    return out


def entry_numbers(column: pa.DictionaryArray, start: int = 0, dtype=np.int32, missing: int = -1) -> np.ndarray:
    """Per row, its dictionary index plus `start` (null rows: `missing`), as `dtype`: what `entry_codes`
    gives for `per_entry = arange(start, start + n)`, by arithmetic on the index buffer instead of a
    gather through an identity table — the product keys and the own-category combinations number
    every row this way, and the gather cost 2-3× as much on a million rows."""
    row_count, ind = len(column), column.indices
    data = ind.buffers()[1]
    if row_count == 0 or data is None or ind.null_count == row_count:
        return np.full(row_count, missing, dtype=dtype)
    raw = np.frombuffer(data, dtype=np.dtype(ind.type.to_pandas_dtype()), count=ind.offset + row_count)[ind.offset :]
    out = raw.astype(dtype)  # (a copy: the index buffer stays untouched)
    if start:
        out += start
    if ind.null_count:  # index slots under nulls hold unspecified values
        out[~valid_rows(ind)] = missing
    return out


def _string_parts(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of this (possibly sliced) string array's slots and its data bytes, without copying."""
    bufs = strings.buffers()
    off_type = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=off_type, count=strings.offset + len(strings) + 1)[strings.offset :]
    data = bufs[2]
    return offsets, (np.frombuffer(data, dtype=np.uint8) if data is not None and data.size else np.zeros(0, np.uint8))


def _with_validity(strings: pa.Array, valid: np.ndarray) -> pa.Array:
    """The same string buffers under a new validity bitmap (nulling values without copying text)."""
    bufs = strings.buffers()
    width = 8 if pa.types.is_large_string(strings.type) else 4
    offsets = bufs[1].slice(strings.offset * width, (len(strings) + 1) * width) if strings.offset else bufs[1]
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        strings.type, len(strings), [bitmap, offsets, bufs[2]], null_count=int(len(strings) - valid.sum())
    )


def _strip_array(strings: pa.Array, trim: bool, marker: bool = False) -> pa.Array:
    """Trim and null the empties of one string array, touching only the values that need it.

    A first/last-byte test on the raw buffers finds the few values trimming could change (those
    that begin or end with a control/space byte or any non-ASCII byte — conservative: "Café" is
    looked at, and found unchanged); only
    those go through the kernel, and an unchanged column keeps its buffers (no copy, no extra
    memory). Empties become nulls through a new validity bitmap over the same buffers. With
    `marker`, Excel's leading text apostrophe is dropped too (`'00123` -> `00123`), found by the
    same first-byte test.
    """
    row_count = len(strings)
    if row_count == 0 or strings.null_count == row_count:
        return strings
    offsets, data = _string_parts(strings)
    length = np.diff(offsets)
    empty = length == 0
    if strings.null_count:
        valid = valid_rows(strings)
        empty &= valid
    else:
        valid = None
    if (trim or marker) and len(data) and not _bytes_need_no_cleaning(data, trim, marker):
        # first and last byte of every slot; a byte outside 33..127 (space, control, non-ASCII)
        # makes the value a suspect. Empty and null slots give harmless false alarms, dropped below.
        first = np.take(data, np.minimum(offsets[:-1], len(data) - 1)) - np.uint8(33)  # np.take: ~2x a fancy index
        odd = np.zeros(row_count, dtype=bool)
        if trim:
            odd |= first >= 95
            odd |= (np.take(data, offsets[1:] - 1) - np.uint8(33)) >= 95
        if marker:
            odd |= first == np.uint8(ord("'") - 33)
        suspect = np.flatnonzero(odd)
        suspect = suspect[length[suspect] > 0]
        if valid is not None:
            suspect = suspect[valid[suspect]]
        if len(suspect):
            trimmed = strings.take(pa.array(suspect))
            if trim:
                trimmed = pc.utf8_trim_whitespace(trimmed)
            if marker:
                quoted = pc.starts_with(trimmed, "'")
                trimmed = pc.if_else(quoted, pc.utf8_slice_codeunits(trimmed, 1), trimmed)
            new_length = pc.binary_length(trimmed).to_numpy(zero_copy_only=False)
            changed = new_length != length[suspect]
            if changed.any():
                rows = suspect[changed]
                repl = trimmed.filter(pa.array(changed))
                repl = pc.if_else(pc.equal(pc.binary_length(repl), 0), pa.scalar(None, repl.type), repl)
                mask = np.zeros(row_count, dtype=bool)
                mask[rows] = True
                strings = pc.replace_with_mask(strings, pa.array(mask), repl)
    if empty.any():
        strings = _with_validity(strings, ~empty & valid_rows(strings))
    return strings


def _bytes_need_no_cleaning(data: np.ndarray, trim: bool, marker: bool) -> bool:
    """Whether no value of a string column can change under trimming (and the text-marker drop),
    judged from the range of its bytes alone.

    Every byte in 33..127 means no space, control or non-ASCII byte anywhere, so no value has
    whitespace to trim at either end; without an apostrophe byte no value starts with Excel's
    text marker. Identifiers (SKUs, barcodes, ids) are usually such columns: a min/max over their
    bytes (~1 ms per 12 MB) then replaces two gathers of every value's first and last byte
    (~4 ms per million values). A column with any such byte takes the per-value test as before,
    which tests/test_ingest_fastpaths.py checks gives the same table."""
    if trim and (int(data.min()) < 33 or int(data.max()) > 127):
        return False
    return not (marker and bool((data == np.uint8(ord("'"))).any()))


def _strip(arr: pa.ChunkedArray, trim: bool = True, marker: bool = False) -> pa.ChunkedArray:
    """Trim whitespace (if asked) and turn empty strings into nulls, chunk by chunk."""
    if pa.types.is_large_string(arr.type) or pa.types.is_string(arr.type):
        return pa.chunked_array([_strip_array(chunk, trim, marker) for chunk in arr.chunks], type=arr.type)
    if marker:
        return strip_excel_text_marker(_strip(arr, trim))
    trimmed = pc.utf8_trim_whitespace(arr) if trim else arr
    return pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, arr.type), trimmed)


def _collapse_spaces(values: pa.Array) -> pa.Array:
    """Inner runs of whitespace -> one space; the regex only runs when the bytes hold such a run."""
    if len(values) == 0 or values.null_count == len(values):
        return values
    _, data = _string_parts(values)
    low = data <= 32  # spaces and control bytes (a superset of RE2's ASCII `\s`)
    if len(data) < 2 or not (low[1:] & low[:-1]).any():
        return values  # no two in a row anywhere in the value bytes: nothing to collapse
    return pc.replace_substring_regex(values, r"\s{2,}", " ")


_SMALL_DICTIONARY = 1 << 16


def clean_text(
    arr: Arrayish, trim: bool = True, categorical: bool = True, unique: bool = False, marker: bool = False
) -> pa.ChunkedArray:
    """Trim whitespace (non-breaking spaces too); empty becomes null. Dictionaries are cleaned once
    per distinct value; `categorical` values (brand, category…) also get inner runs of spaces
    collapsed and stay de-duplicated, while free text only needs its dictionary values trimmed.

    `marker` also drops Excel's leading text apostrophe (identifiers: `'00123` -> `00123`).

    `unique` says a one-chunk dictionary input came straight from an Arrow reader or unification
    (whose dictionaries hold each value once): if cleaning changes no value, it is returned as is,
    without re-hashing the values to prove they are still distinct.

    Dictionary results never hold a null entry: a null lives in the indices, where `null_count`,
    `is_valid` and dictionary unification see it."""
    arr = chunked(arr)
    if pa.types.is_dictionary(arr.type):
        # few distinct values (brand, colour): unify, usually leaving nothing to re-encode; many
        # (titles, product ids): concatenate, since cleaning re-encodes or tolerates repeats anyway
        # (categorical values are unified in any case: that hash pass also proves them distinct,
        # so an unchanged result needs no second one)
        unique = (unique and arr.num_chunks == 1) or (categorical and _unified_on_combine(arr))
        combined = _one_dictionary(arr, categorical)
        original = (
            combined.dictionary
            if pa.types.is_string(combined.dictionary.type)
            else combined.dictionary.cast(pa.string())
        )
        values = _strip_array(original, trim)
        if not categorical:
            out = pa.chunked_array([dict_from(combined.indices, values)], type=STR_DICT)
            return strip_excel_text_marker(out) if marker else out
        values = _collapse_spaces(values)
        if unique and values is original and values.null_count == 0:
            out = pa.chunked_array([combined], type=STR_DICT)
        else:
            out = reindex(combined, values)
        return strip_excel_text_marker(out) if marker else out
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    return _strip(arr, trim, marker) if arr.num_chunks else arr


def _one_dictionary(arr: pa.ChunkedArray, categorical: bool) -> pa.DictionaryArray:
    """The one dictionary chunk `clean_text` cleans: unified when the values are categorical or
    few, else the chunks' dictionaries concatenated (no hash pass; cleaning tolerates repeats)."""
    small = sum(len(chunk.dictionary) for chunk in arr.chunks) <= _SMALL_DICTIONARY
    return as_dictionary(arr) if small or categorical else concat_dictionary(arr)


def combine_for_cleaning(arr: Arrayish, categorical: bool) -> pa.DictionaryArray:
    """A dictionary column as one chunk, combined exactly as `clean_text` would combine it, so that
    a reader can do it early (while other columns are still being read) without changing the
    result. Product ids (`categorical`) come out unified: each value once."""
    return _one_dictionary(chunked(arr), categorical)


def dict_from(indices: pa.Array, values: pa.Array) -> pa.DictionaryArray:
    """A DictionaryArray over `values` whose null entries are moved into the indices (and blanked in
    the dictionary): a null dictionary entry would look valid to `is_valid` and `null_count`."""
    if values.null_count:
        valid_entry = pc.take(pc.is_valid(values), indices)
        indices = pc.if_else(valid_entry, indices, pa.scalar(None, indices.type))
        values = pc.fill_null(values, "")
    return pa.DictionaryArray.from_arrays(indices, values, safe=False)


def per_row_dictionary(arr: Arrayish) -> pa.ChunkedArray:
    """Plain strings as a dictionary column of one entry per row (the strings themselves, nulls moved
    into the indices), with no hash pass: a free-text canonical column that is a dictionary because
    most sources repeat it per product (`canonical`'s `image_url`) takes a source's per-row values
    for what it costs to number the rows. Its entries may repeat, as a free-text dictionary's may."""
    arr = chunked(arr)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    out = []
    for chunk in arr.chunks:
        if chunk.type != pa.string():
            chunk = chunk.cast(pa.string())
        indices = np.arange(len(chunk), dtype=np.int32)
        valid = None if chunk.null_count == 0 else ~valid_rows(chunk)
        out.append(
            pa.DictionaryArray.from_arrays(
                pa.array(indices, mask=valid), pc.fill_null(chunk, "") if valid is not None else chunk, safe=False
            )
        )
    return pa.chunked_array(out, type=STR_DICT)


def reindex(column: pa.DictionaryArray, values: pa.Array) -> pa.ChunkedArray:
    """`column` with its dictionary values replaced (vectorised); merged or blanked values re-encoded, so
    the result's dictionary is unique and null-free (one hash pass over the distinct values)."""
    enc = pc.dictionary_encode(values)
    if enc.null_count == 0 and len(enc.dictionary) == len(values):  # one-to-one: reuse the indices
        return pa.chunked_array([pa.DictionaryArray.from_arrays(column.indices, values, safe=False)], type=STR_DICT)
    return pa.chunked_array(
        [pa.DictionaryArray.from_arrays(pc.take(enc.indices, column.indices), enc.dictionary, safe=False)],
        type=STR_DICT,
    )


def as_dictionary(arr: Arrayish) -> pa.DictionaryArray:
    """One dictionary-encoded chunk (chunk dictionaries unified): distinct values in one place."""
    arr = chunked(arr)
    if not pa.types.is_dictionary(arr.type):
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
            arr = arr.cast(pa.string())
        arr = pc.dictionary_encode(arr)
    if arr.num_chunks == 0:
        return pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    return arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()


def concat_dictionary(arr: Arrayish) -> pa.DictionaryArray:
    """One DictionaryArray from the chunks by concatenating their dictionaries (indices offset),
    not unifying them: no hashing, but a value present in several chunks' dictionaries appears
    several times. For cleaning, which re-encodes categorical values anyway (`reindex`) and leaves
    free text as is, that is exactly enough — and Parquet row groups each bring their own
    dictionary of a quarter-million titles. Chunks that share one dictionary keep sharing it."""
    arr = chunked(arr)
    if arr.num_chunks <= 1:
        return as_dictionary(arr)
    chunks = arr.chunks
    first = chunks[0].dictionary
    if all(chunk.dictionary is first or _same_buffers(chunk.dictionary, first) for chunk in chunks[1:]):
        return pa.DictionaryArray.from_arrays(pa.concat_arrays([chunk.indices for chunk in chunks]), first, safe=False)
    indices, offset = [], 0
    for chunk in chunks:
        idx = chunk.indices.cast(pa.int32())
        indices.append(pc.add(idx, pa.scalar(offset, pa.int32())) if offset else idx)
        offset += len(chunk.dictionary)
    dictionary = pa.concat_arrays([chunk.dictionary.cast(pa.string()) for chunk in chunks])
    return pa.DictionaryArray.from_arrays(pa.concat_arrays(indices), dictionary, safe=False)


def _unified_on_combine(arr: pa.ChunkedArray) -> bool:
    """Whether combining the chunks unifies their dictionaries (they differ), which leaves each
    value once; chunks sharing one dictionary are only concatenated, keeping it as it was."""
    chunks = arr.chunks
    return len(chunks) > 1 and any(not _same_buffers(chunk.dictionary, chunks[0].dictionary) for chunk in chunks[1:])


def _same_buffers(left: pa.Array, right: pa.Array) -> bool:
    if len(left) != len(right) or left.offset != right.offset:
        return False
    return all(
        (left_buffer is None and right_buffer is None)
        or (left_buffer is not None and right_buffer is not None and left_buffer.address == right_buffer.address)
        for left_buffer, right_buffer in zip(left.buffers(), right.buffers())
    )


def map_distinct(
    arr: Arrayish, convert: Callable[[Any], Any], out_type: pa.DataType, keep_dict: bool = False
) -> pa.ChunkedArray:
    """Apply a Python function to each distinct value of a column once, and reuse it for every row.

    Nulls stay null (callers fill them). With `keep_dict` the result stays dictionary-encoded
    (string output only); values the function merges or blanks are re-encoded.
    """
    distinct = as_dictionary(arr)
    mapped = [convert(v) for v in distinct.dictionary.to_pylist()]
    if keep_dict:
        if None not in mapped and len(set(mapped)) == len(mapped):  # one-to-one: reuse the indices
            out = pa.DictionaryArray.from_arrays(distinct.indices, pa.array(mapped, type=pa.string()), safe=False)
            return pa.chunked_array([out], type=STR_DICT)
        encoded = pc.dictionary_encode(pa.array(mapped, type=pa.string()))
        indices = pc.take(encoded.indices, distinct.indices)
        out = pa.DictionaryArray.from_arrays(indices, encoded.dictionary, safe=False)
        return pa.chunked_array([out], type=STR_DICT)
    return pa.chunked_array([pc.take(pa.array(mapped, type=out_type), distinct.indices)], type=out_type)


def strip_excel_text_marker(arr: pa.ChunkedArray) -> pa.ChunkedArray:
    """`'00123` -> `00123`: Excel's leading apostrophe marks text; the digits behind it are intact."""
    if arr.num_chunks == 0:
        return arr
    if pa.types.is_dictionary(arr.type):
        combined = as_dictionary(arr)
        starts = pc.starts_with(combined.dictionary, "'")
        if not pc.any(starts).as_py():
            return arr
        return reindex(
            combined,
            _blank_to_null(pc.if_else(starts, pc.utf8_slice_codeunits(combined.dictionary, 1), combined.dictionary)),
        )
    if not any(_first_byte_is(chunk, 0x27) for chunk in arr.chunks):  # a byte test, no per-row kernel
        return arr
    starts = pc.starts_with(arr, "'")
    return _blank_to_null(pc.if_else(starts, pc.utf8_slice_codeunits(arr, 1), arr))


def _blank_to_null(arr):
    """A lone apostrophe leaves nothing: that is no identifier (null), like any empty value."""
    return pc.if_else(pc.equal(arr, ""), pa.scalar(None, arr.type), arr)


def _first_byte_is(strings: pa.Array, byte: int) -> bool:
    """Whether any non-empty value of a string array starts with `byte` (null slots may alarm falsely)."""
    if (
        len(strings) == 0
        or strings.null_count == len(strings)
        or not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type))
    ):
        return len(strings) > 0 and strings.null_count < len(strings)
    offsets, data = _string_parts(strings)
    if not len(data):
        return False
    # an empty slot reads the next value's first byte (or the last byte): a harmless false alarm
    return bool((np.take(data, np.minimum(offsets[:-1], len(data) - 1)) == byte).any())


# ---------------------------------------------------------------- money

_ISO_FILE = Path(__file__).resolve().parents[2] / "data" / "currency" / "iso4217.csv"


@lru_cache(maxsize=1)
def _iso_table() -> tuple[frozenset[str], dict[str, str]]:
    """(codes, English name -> code) from data/currency/iso4217.csv (see its SOURCES.md).

    Read on first use, not at import: cold start stays cheap."""
    import csv

    with open(_ISO_FILE, encoding="utf-8", newline="") as iso_file:
        rows = list(csv.DictReader(iso_file))
    return frozenset(row["code"] for row in rows), {row["name"].casefold(): row["code"] for row in rows}


def iso_codes() -> frozenset[str]:
    """Every current ISO 4217 alphabetic code."""
    return _iso_table()[0]


# Symbols that name one currency. Longest first, so "US$" wins over "$" and "R$" over "R".
_SYMBOLS = (
    ("US$", "USD"),
    ("CA$", "CAD"),
    ("AU$", "AUD"),
    ("NZ$", "NZD"),
    ("HK$", "HKD"),
    ("NT$", "TWD"),
    ("MX$", "MXN"),
    ("S$", "SGD"),
    ("R$", "BRL"),
    ("C$", "CAD"),
    ("A$", "AUD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("₹", "INR"),
    ("₩", "KRW"),
    ("₺", "TRY"),
    ("₽", "RUB"),
    ("₸", "KZT"),
    ("₴", "UAH"),
    ("₪", "ILS"),
    ("₫", "VND"),
    ("₱", "PHP"),
    ("฿", "THB"),
    ("₦", "NGN"),
    ("₼", "AZN"),
    ("₾", "GEL"),
    ("₮", "MNT"),
    ("৳", "BDT"),
    ("₭", "LAK"),
    ("₲", "PYG"),
    ("₡", "CRC"),
    ("円", "JPY"),
    ("元", "CNY"),
    ("zł", "PLN"),
    ("Kč", "CZK"),
)
# Symbols written as letters: matched as whole words only ("lei" is RON, "Slei" is nothing).
_WORD_SYMBOLS = {
    "zl": "PLN",
    "kc": "CZK",
    "ft": "HUF",
    "lei": "RON",
    "rp": "IDR",
    "rm": "MYR",
    "руб": "RUB",
    "грн": "UAH",
    "тг": "KZT",
    "лв": "BGN",
    "din": "RSD",
}
# Symbols several currencies write. They state a currency only when the file corroborates it (a
# currency column or an ISO code elsewhere in the file names exactly one member of the family); a
# row holding one carries the marker ("?$") until `resolve_currency` decides.
AMBIGUOUS = {
    "?$": frozenset(
        "USD CAD AUD NZD MXN HKD SGD TWD ARS CLP COP UYU BSD BBD BMD BND BZD FJD GYD JMD KYD "
        "LRD NAD SBD SRD TTD XCD CUP DOP".split()
    ),
    "?kr": frozenset("SEK NOK DKK ISK".split()),
    "?¥": frozenset("JPY CNY".split()),
    "?₨": frozenset("INR PKR LKR NPR MUR SCR".split()),
}
_AMBIGUOUS_SYMBOLS = (("＄", "?$"), ("$", "?$"), ("￥", "?¥"), ("¥", "?¥"), ("₨", "?₨"))
_AMBIGUOUS_WORDS = {"kr": "?kr", "rs": "?₨"}
_NUMBER = re.compile(r"-?\d[\d.,'\s\u00a0\u202f]*")
_UPPER_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")
_WORD = re.compile(r"[^\W\d_]+")
_DECIMAL_COMMA = re.compile(r"^\D*-?\d{1,3}(?:[.\s\u00a0\u202f']\d{3})*,\d{1,2}\D*$")
_THOUSANDS_COMMA = re.compile(r"^-?\d{1,3}(?:,\d{3})+$")
_THOUSANDS_DOT = re.compile(r"^-?\d{1,3}(?:\.\d{3})+$")


def currency_of(text: str) -> str | None:
    """The currency a price cell (or a currency cell) states: an ISO code either side of the amount
    (`15.00 USD`, `USD 15.00`, `465000.00 KZT`), a symbol (`₸ ₽ ₹ R$ zł € £`), or an ambiguous
    marker (`?$`, `?kr`, `?¥`) for a symbol several currencies share. None when it states none.

    An upper-case code counts anywhere in the cell; a lower-case one only when it is the cell's only
    word (`15.00 usd`), so that words in text ("try", "all", "top") are not taken for codes."""
    codes = iso_codes()
    for match in _UPPER_CODE.finditer(text):
        if match.group(1) in codes:
            return match.group(1)
    words = _WORD.findall(text)
    if len(words) == 1 and words[0].upper() in codes:
        return words[0].upper()
    for sym, code in _SYMBOLS:
        if sym in text:
            return code
    for word in words:
        lowered = word.lower()
        if lowered in _WORD_SYMBOLS:
            return _WORD_SYMBOLS[lowered]
    for sym, marker in _AMBIGUOUS_SYMBOLS:
        if sym in text:
            return marker
    for word in words:
        if word.lower() in _AMBIGUOUS_WORDS:
            return _AMBIGUOUS_WORDS[word.lower()]
    return None


def currency_code(text: str | None) -> str | None:
    """A currency column's cell as an ISO code ("usd", "EUR", "€", "US Dollar", "Tenge", "$" -> "?$");
    None otherwise. (Names are the standard's English names, read in a currency column only.)"""
    if text is None:
        return None
    stripped = text.strip()
    if stripped.upper() in iso_codes():
        return stripped.upper()
    named = _iso_table()[1].get(" ".join(stripped.split()).casefold())
    return named or currency_of(stripped)


def resolve_currency(currency: pa.ChunkedArray | None, also: tuple[str, ...] = ()) -> pa.ChunkedArray | None:
    """Ambiguous markers replaced by the one code the file corroborates, else null.

    `$` becomes USD only when the rest of the file (a currency column, a code in another cell) names
    USD and no other dollar; with two dollars named, or none, a bare `$` states no currency. `also`
    lists codes the file states outside the cells (a price header's `(USD)`)."""
    if currency is None:
        return None
    distinct = as_dictionary(currency)
    values = distinct.dictionary.to_pylist()
    if not any(v in AMBIGUOUS for v in values if v is not None):
        return currency
    present = np.zeros(len(values), dtype=bool)
    idx = distinct.indices.drop_null().to_numpy(zero_copy_only=False)
    present[np.unique(idx)] = True
    stated = {v for v, is_present in zip(values, present) if is_present and v is not None and v not in AMBIGUOUS}
    stated |= {code for code in also if code and code not in AMBIGUOUS}
    picked = {}
    for marker, family in AMBIGUOUS.items():
        hits = stated & family
        picked[marker] = next(iter(hits)) if len(hits) == 1 else None
    return map_distinct(distinct, lambda v: picked.get(v, v) if v in AMBIGUOUS else v, pa.string(), keep_dict=True)


def money_value(text: str | None, decimal_comma: bool) -> float | None:
    """ "$1,299.00" -> 1299.0, "1.299,00 €" -> 1299.0, "No old price" -> None (never 0)."""
    if text is None:
        return None
    match = _NUMBER.search(text.replace("\u2212", "-"))
    if not match:
        return None
    num = re.sub(r"[\s\u00a0\u202f']", "", match.group(0)).rstrip(".,")
    if not num or num == "-":
        return None
    if "," in num and "." in num:
        if num.rfind(",") > num.rfind("."):
            num = num.replace(".", "").replace(",", ".")
        else:
            num = num.replace(",", "")
    elif "," in num:
        if not decimal_comma and _THOUSANDS_COMMA.match(num):
            num = num.replace(",", "")
        elif num.count(",") == 1:
            num = num.replace(",", ".")
        else:
            num = num.replace(",", "")
    elif "." in num and (num.count(".") > 1 or (decimal_comma and _THOUSANDS_DOT.match(num))):
        num = num.replace(".", "")
    try:
        return float(num)
    except ValueError:
        return None


def parse_money(arr: Arrayish) -> tuple[pa.ChunkedArray, pa.ChunkedArray | None]:
    """Amounts as float64 and, when the values state one, the currency per row (else None)."""
    arr = chunked(arr)
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type) or pa.types.is_decimal(arr.type):
        return arr.cast(pa.float64()), None
    if pa.types.is_null(arr.type):
        return arr.cast(pa.float64()), None
    if not pa.types.is_dictionary(arr.type):
        try:  # clean numbers: one vectorised cast, no Python at all
            return pc.cast(arr, pa.float64()), None
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    combined = as_dictionary(arr)
    distinct = [v for v in combined.dictionary.to_pylist() if v is not None]
    decimal_comma = any(_DECIMAL_COMMA.match(v.strip()) for v in distinct[:5000])
    amounts = map_distinct(combined, lambda v: money_value(v, decimal_comma), pa.float64())
    # every distinct value is looked at (a feed may name its currency only on its later rows), but
    # only those holding something besides digits and separators go through Python
    dictionary = (
        combined.dictionary if pa.types.is_string(combined.dictionary.type) else combined.dictionary.cast(pa.string())
    )
    worded = pc.fill_null(pc.match_substring_regex(dictionary, r"[^0-9.,'\s\-]"), False)
    if not pc.any(worded).as_py():
        return amounts, None
    flags = worded.to_numpy(zero_copy_only=False)
    stated = [currency_of(v) if is_worded else None for v, is_worded in zip(dictionary.to_pylist(), flags)]
    if not any(stated):
        return amounts, None
    encoded = pc.dictionary_encode(pa.array(stated, type=pa.string()))
    currency = pa.DictionaryArray.from_arrays(
        pc.take(encoded.indices, combined.indices), encoded.dictionary, safe=False
    )
    return amounts, pa.chunked_array([currency], type=STR_DICT)


# ---------------------------------------------------------------- integers and flags


def _int_value(v: str | None) -> int | None:
    if v is None:
        return None
    digits = v.strip().replace("\u00a0", "").replace(" ", "").replace(",", "")
    try:
        number = float(digits)
    except ValueError:
        return None
    if number != number or abs(number) > 2**62:
        return None
    return int(number)


def parse_int(arr: Arrayish) -> pa.ChunkedArray:
    """Stock counts: "12", "12.0", "1,200" -> int; text such as "unlimited" -> null (unknown)."""
    arr = chunked(arr)
    if pa.types.is_integer(arr.type):
        return arr.cast(pa.int64())
    if pa.types.is_floating(arr.type):  # NaN and infinities are unknown stock, not a huge number
        finite = pc.is_finite(arr)
        return pc.if_else(finite, pc.floor(arr), pa.scalar(None, arr.type)).cast(pa.int64(), safe=False)
    if pa.types.is_null(arr.type) or pa.types.is_boolean(arr.type):
        return pa.nulls(len(arr), pa.int64()) if pa.types.is_null(arr.type) else arr.cast(pa.int64())
    if not pa.types.is_dictionary(arr.type):
        try:
            return pc.cast(arr, pa.int64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    return map_distinct(arr, _int_value, pa.int64())


_TRUE = {"1", "true", "yes", "y", "t", "on", "x", "1.0", "visible", "enabled", "published"}
_FALSE = {"0", "false", "no", "n", "f", "off", "0.0", "-1", "hidden", "disabled", "unpublished"}


def flag_value(cell: Any) -> bool | None:
    if cell is None:
        return None
    if isinstance(cell, bool):
        return cell
    normalised = str(cell).strip().lower()
    return True if normalised in _TRUE else False if normalised in _FALSE else None


# ---------------------------------------------------------------- status, availability, policy

_STATUS = {
    "active": "active",
    "published": "active",
    "publish": "active",
    "enabled": "active",
    "enable": "active",
    "live": "active",
    "online": "active",
    "visible": "active",
    "true": "active",
    "yes": "active",
    "y": "active",
    "1": "active",
    "on": "active",
    "available": "active",
    "draft": "draft",
    "unpublished": "draft",
    "inactive": "draft",
    "disabled": "draft",
    "pending": "draft",
    "private": "draft",
    "hidden": "draft",
    "false": "draft",
    "no": "draft",
    "n": "draft",
    "0": "draft",
    "-1": "draft",
    "off": "draft",
    "offline": "draft",
    "archived": "archived",
    "archive": "archived",
    "deleted": "archived",
    "discontinued": "archived",
    "retired": "archived",
    "trash": "archived",
}


def status_value(cell: Any) -> str:
    if cell is None:
        return "unknown"
    if isinstance(cell, bool):
        return "active" if cell else "draft"
    return _STATUS.get(str(cell).strip().lower().replace("_", " "), "unknown")


# Availability words -> canonical state; the one table (the BigQuery pushdown sends it as a parameter).
AVAILABILITY_WORDS = {
    "in stock": "in_stock",
    "instock": "in_stock",
    "available": "in_stock",
    "yes": "in_stock",
    "y": "in_stock",
    "true": "in_stock",
    "1": "in_stock",
    "limited availability": "in_stock",
    "in store only": "in_stock",
    "available for order": "in_stock",
    "out of stock": "out_of_stock",
    "outofstock": "out_of_stock",
    "sold out": "out_of_stock",
    "soldout": "out_of_stock",
    "unavailable": "out_of_stock",
    "no": "out_of_stock",
    "n": "out_of_stock",
    "false": "out_of_stock",
    "0": "out_of_stock",
    "discontinued": "out_of_stock",
    "not available": "out_of_stock",
    "preorder": "preorder",
    "pre order": "preorder",
    "backorder": "backorder",
    "on backorder": "backorder",
    "onbackorder": "backorder",
    "back order": "backorder",
    "backordered": "backorder",
    # Merchant Center values in the feed's language (German, French, Spanish, Italian, Dutch, Polish)
    "auf lager": "in_stock",
    "nicht auf lager": "out_of_stock",
    "en stock": "in_stock",
    "en rupture de stock": "out_of_stock",
    "rupture de stock": "out_of_stock",
    "agotado": "out_of_stock",
    "disponibile": "in_stock",
    "esaurito": "out_of_stock",
    "non disponibile": "out_of_stock",
    "op voorraad": "in_stock",
    "niet op voorraad": "out_of_stock",
    "w magazynie": "in_stock",
    "brak w magazynie": "out_of_stock",
    "niedostępny": "out_of_stock",
    "przedsprzedaż": "preorder",
}


def availability_value(cell: Any) -> str | None:
    if cell is None:
        return None
    if isinstance(cell, bool):
        return "in_stock" if cell else "out_of_stock"
    normalised = re.sub(r"[\s_\-]+", " ", str(cell).strip().lower())
    normalised = normalised.removeprefix("http://schema.org/").removeprefix("https://schema.org/")
    return AVAILABILITY_WORDS.get(normalised, AVAILABILITY_WORDS.get(normalised.replace(" ", ""), "unknown"))


def policy_value(cell: Any) -> str | None:
    if cell is None:
        return None
    if isinstance(cell, bool):
        return "continue" if cell else "deny"
    normalised = str(cell).strip().lower()
    if normalised in ("continue", "true", "yes", "1", "notify", "allow", "allowed", "y"):
        return "continue"
    if normalised in ("deny", "false", "no", "0", "n", "disallow", "not allowed"):
        return "deny"
    return None


def to_strings(arr: Arrayish) -> pa.ChunkedArray:
    """Any scalar column as text (booleans as "true"/"false"), keeping dictionaries as they are."""
    arr = chunked(arr)
    if pa.types.is_dictionary(arr.type) or pa.types.is_string(arr.type):
        return arr
    return arr.cast(pa.string())


# ---------------------------------------------------------------- dates

_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%Y%m%d")


def parse_dates(arr: Arrayish) -> pa.ChunkedArray:
    """ISO-like dates and timestamps -> date32; anything else -> null (day-first/month-first
    ambiguity is not guessed)."""
    arr = chunked(arr)
    arrow_type = arr.type
    if pa.types.is_date32(arrow_type):
        return arr
    if pa.types.is_date(arrow_type) or pa.types.is_timestamp(arrow_type):
        return arr.cast(pa.date32())
    if pa.types.is_integer(arrow_type):  # 20261128
        arr = arr.cast(pa.string())
    if pa.types.is_dictionary(arrow_type):
        return map_distinct(arr, _date_scalar, pa.date32())
    head = pc.utf8_slice_codeunits(pc.utf8_trim_whitespace(arr.cast(pa.string())), 0, 10)
    out: Any = None
    for fmt in _DATE_FORMATS:
        parsed = pc.strptime(head, format=fmt, unit="s", error_is_null=True).cast(pa.date32())
        out = parsed if out is None else pc.coalesce(out, parsed)
        if out.null_count == head.null_count:
            break
    if out.null_count < len(out):  # Arrow's %Y takes "1" as a year: "1/5/25" is not 0001-05-25
        out = pc.if_else(
            pc.fill_null(pc.match_substring_regex(head, r"^\d{4}"), False), out, pa.scalar(None, pa.date32())
        )
    return out


def _date_scalar(v: str | None):
    import datetime as dt

    if v is None:
        return None
    day_text = v.strip()[:10]
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(day_text if fmt != "%Y%m%d" else day_text[:8], fmt).date()
        except ValueError:
            continue
    return None


_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _window_part(v: str | None, part: int):
    """Day `part` (0 start, 1 end) of a Merchant Center interval "2026-02-24T11:07+0100/2026-02-29T23:07+0100".

    The day is the one written (the feed's own time zone); a missing or unreadable half is null, an open
    bound."""
    import datetime as dt

    if not v:
        return None
    halves = v.split("/") if "/" in v and _ISO_DAY.search(v) else [v]
    if len(halves) != 2:
        return None
    match = _ISO_DAY.search(halves[part])
    if not match:
        return None
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def parse_sale_window(arr: Arrayish) -> tuple[pa.ChunkedArray, pa.ChunkedArray]:
    """`sale_price_effective_date` intervals -> (first day, last day) as date32, once per distinct value."""
    arr = to_strings(chunked(arr))
    return (
        map_distinct(arr, lambda v: _window_part(v, 0), pa.date32()),
        map_distinct(arr, lambda v: _window_part(v, 1), pa.date32()),
    )


_BRACKETED = re.compile(r"[(\[]\s*([^)\]]{1,6}?)\s*[)\]]")


def header_currency(header: str | None) -> str | None:
    """The currency a price column's header names: `Price (EUR)`, `Regular price [€]`, `Price USD`.

    A bracketed code or symbol, or an upper-case ISO code word; a bare `$` in brackets is ambiguous
    like any `$` (the marker is resolved with the rest of the file)."""
    if not header:
        return None
    for match in _BRACKETED.finditer(header):
        found = currency_code(match.group(1))
        if found:
            return found
    for match in _UPPER_CODE.finditer(header):
        if match.group(1) in iso_codes():
            return match.group(1)
    return None
