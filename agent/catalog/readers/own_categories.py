"""The merchant's own categories, read as a hierarchy: every path a product has, in every format.

A format's own category fields become one canonical column, `own_categories`: per row, all of the
product's own category paths, each with its levels joined by " > ", the paths joined by
`SEPARATOR` (a newline: whitespace inside a level is collapsed to single spaces, so no level ever
holds one). The column is dictionary-encoded — a product's variants share one value and a catalog
has few distinct category combinations — and every parse here runs once per distinct value.

What each format's fields mean (decided from the exporters' own documentation and real exports):

| format | field | several paths | levels |
|---|---|---|---|
| Shopify | `Product Category`, `Type` | one each | `>` (Type: one level unless it holds `>`) |
| WooCommerce | `Categories` | `,` (`\\,` is a comma inside a name) | `>` |
| Magento | `categories` | `,` | `/`, root ("Default Category") dropped |
| Merchant Center | `product_type` | `,` when two or more pieces hold `>` | `>` |
| BigCommerce | `Category` | `;` | `/` |
| generic | category columns, product type | `;`, or `,` as for Merchant Center | `>`, else `/` |

A comma alone never splits a Merchant Center or generic value: "Tables, Chairs & Benches" is one
name, while "Home > Decor, Garden > Pots" is two paths. `category_path` stays the primary (first)
path, for display and the Google mapping.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog.values import as_dictionary, entry_numbers, map_distinct, to_strings

SEPARATOR = "\n"
ROOTS = ("default category", "root catalog", "root")  # Magento's root categories: no merchant level
_UNESCAPED_COMMA = re.compile(r"(?<!\\),")
# The platforms' name for "no category" (WooCommerce's default category in its shipped languages,
# Shopify's "Uncategorized" product category): alone as a path it places nothing, so the product counts
# as unplaced, and a scope never says "including your category Uncategorized". Wix's "All collections"
# is one too: Wix puts every product in it, so it says nothing about where a product belongs (in
# tests/corpus/generic/lifsins-vatn-wix-isk.csv 59 of 60 products list it beside their real collections).
PLACEHOLDERS = frozenset(
    {
        "all collections",
        "uncategorized",
        "uncategorised",
        "sin categoría",
        "sin categoria",
        "non classé",
        "non classée",
        "unkategorisiert",
        "senza categoria",
        "sem categoria",
        "bez kategorii",
        "без категории",
        "ongecategoriseerd",
        "kategorisiz",
    }
)


def _clean(level: str) -> str:
    return " ".join(level.replace("\\,", ",").split())


def _levels(path: str, sep: str) -> list[str]:
    return [level for level in (_clean(piece) for piece in path.split(sep)) if level]


def _join(paths: list[list[str]]) -> str | None:
    """Paths joined; a path that only repeats the start of another ("Gear" beside "Gear > Fitness",
    as Magento lists every ancestor) is left out — a product is in every level of its paths anyway."""
    out: list[str] = []
    for levels in paths:
        if len(levels) == 1 and levels[0].casefold() in PLACEHOLDERS:
            continue
        text = " > ".join(levels)
        if text and text not in out:
            out.append(text)
    kept = [path for path in out if not any(other != path and other.startswith(path + " > ") for other in out)]
    return SEPARATOR.join(kept) or None


def _join_one(levels: list[str]) -> str | None:
    """`_join([levels])`: one path needs no de-duplication."""
    if len(levels) == 1 and levels[0].casefold() in PLACEHOLDERS:
        return None
    return " > ".join(levels) or None


def _join_texts(paths: list[str]) -> str | None:
    """`_join` of paths already joined (own-category values, split at SEPARATOR): the same result,
    without splitting each path into levels only to join them again."""
    out: list[str] = []
    for text in paths:
        if " > " not in text and text.casefold() in PLACEHOLDERS:
            continue
        if text and text not in out:
            out.append(text)
    if len(out) == 1:
        return out[0]
    kept = [path for path in out if not any(other != path and other.startswith(path + " > ") for other in out)]
    return SEPARATOR.join(kept) or None


def _several_if_paths(value: str) -> list[str]:
    """Split on commas only when two or more pieces are paths themselves (hold a `>`), and the value
    is not one taxonomy path whose names hold the commas (`_one_known_path`)."""
    pieces = [piece for piece in value.split(",") if piece.strip()]
    if len(pieces) > 1 and sum(">" in piece for piece in pieces) >= 2 and not _one_known_path(value):
        return pieces
    return [value]


@functools.lru_cache(maxsize=4096)
def _one_known_path(value: str) -> bool:
    """Google's and Shopify's category names hold commas ("Food, Beverages & Tobacco > Food Items > Meat,
    Seafood & Eggs", "Toys & Games > Toys > Dolls, Playsets & Toy Figures"), and Shopify's `Product
    Category` is such a path: split at its commas it became "Food" plus two broken paths (six real
    Shopify exports of the corpus). So a value that is a Shopify or (any bundled locale's) Google path,
    or extends a Google path whose names hold a comma, is one path. Asked only of a value the comma
    rule would split; each distinct value once."""
    from agent.catalog import taxonomy

    tax = taxonomy.load()
    found = tax.longest_prefix(value)
    node = tax.node(found) if found is not None else None
    if node is not None and "," in node.path:
        return True
    key = taxonomy.normalise_path(value).lower()
    return taxonomy.shopify_lookups().by_path.get(key) is not None or taxonomy.localised_path_id(key) is not None


def woocommerce(value: str | None) -> str | None:
    if not value:
        return None
    return _join([_levels(piece, ">") for piece in _UNESCAPED_COMMA.split(value)])


def magento(value: str | None) -> str | None:
    if not value:
        return None
    paths = []
    for piece in value.split(","):
        levels = _levels(piece, "/")
        # Magento writes every path from the store's root category ("Default Category/Gear/Bags",
        # "Products/New"): the root is no merchant level, and a path of the root alone names nothing
        paths.append(
            levels[1:]
            if len(levels) > 1 or piece.rstrip().endswith("/") or (levels and levels[0].lower() in ROOTS)
            else levels
        )
    return _join(paths)


def gmc(value: str | None) -> str | None:
    if not value:
        return None
    return _join([_levels(piece, ">") for piece in _several_if_paths(value)])


def bigcommerce(value: str | None) -> str | None:
    if not value:
        return None
    return _join([_levels(piece, "/") for piece in value.split(";")])


def generic(value: str | None) -> str | None:
    """A category column of unknown origin (and Shopify's Product Category): `;` or path-commas
    separate paths; `>` separates levels, else `/`."""
    if not value:
        return None
    if ";" not in value and "," not in value:  # one path (the usual value): as the loop below would read it
        return _join_one(_levels(value, ">" if ">" in value else "/"))
    paths = []
    for part in value.split(";"):
        for piece in _several_if_paths(part):
            paths.append(_levels(piece, ">") if ">" in piece else _levels(piece, "/"))
    return _join(paths)


def primary(values, parse: Callable[[str | None], str | None]) -> pa.ChunkedArray:
    """Per row, the first of the paths `parse` reads in a raw category value (dictionary out, once per
    distinct value): `category_path`, which the overview names and the mapping reads, is one path. Left
    raw, a Wix cell "All collections;Rauðvín;Varvaglione" was one overview label of three names."""
    return map_distinct(
        to_strings(values), lambda v: (parse(v) or "").split(SEPARATOR)[0] or None, pa.string(), keep_dict=True
    )


def single(value: str | None) -> str | None:
    """A product type: one name, or a path when it holds `>`."""
    if not value:
        return None
    if ">" not in value:  # one level (the usual type): what _join([_levels(value, ">")]) gives, directly
        level = _clean(value)
        return level if level and level.casefold() not in PLACEHOLDERS else None
    return _join([_levels(value, ">")])


def column(values, parse: Callable[[str | None], str | None]) -> pa.ChunkedArray:
    """A raw category column parsed to joined own paths, once per distinct value (dictionary out)."""
    return map_distinct(to_strings(values), parse, pa.string(), keep_dict=True)


def combine(*columns) -> pa.ChunkedArray | None:
    """Per row, the union of the paths of several own-category columns (in column order).

    Worked on dictionary indices: rows are numbered by their combination of entries, and each
    distinct combination is joined once."""
    present = [as_dictionary(c) for c in columns if c is not None and c.null_count < len(c)]
    if not present:
        return None
    if len(present) == 1:
        return pa.chunked_array([present[0]])
    sizes = [len(encoded.dictionary) + 1 for encoded in present]
    # int32 while every combination fits (it halves the passes' memory traffic); the numbers are the same
    dtype = np.int32 if np.prod(np.array(sizes, dtype=np.float64)) < 2**31 else np.int64
    code = None
    for encoded, size in zip(present, sizes):  # one integer per row and combination, built in place
        idx = entry_numbers(encoded, start=1, dtype=dtype, missing=0)
        if code is None:
            code = idx
        else:
            code *= size
            code += idx
    enc = pc.dictionary_encode(pa.array(code))
    uniq = enc.dictionary.to_numpy(zero_copy_only=False)
    # each entry's paths, split once (not once per combination it takes part in)
    names = [[paths_of(v) for v in encoded.dictionary.cast(pa.string()).to_pylist()] for encoded in present]
    joined = []
    for c in uniq.tolist():
        parts = []
        for size in reversed(sizes):
            parts.append(c % size - 1)
            c //= size
        parts.reverse()
        texts: list[str] = []
        for k, i in enumerate(parts):
            if i >= 0:
                texts.extend(names[k][i])
        joined.append(_join_texts(texts))
    dictionary = pc.dictionary_encode(pa.array(joined, pa.string()))
    if dictionary.null_count == 0 and len(dictionary.dictionary) == len(joined):
        indices = enc.indices  # every combination its own path list: the take would be the identity
    else:
        indices = pc.take(dictionary.indices, enc.indices)
    return pa.chunked_array([pa.DictionaryArray.from_arrays(indices, dictionary.dictionary, safe=False)])


def paths_of(value: str | None) -> list[str]:
    """The paths of one `own_categories` value."""
    return [part for part in (value or "").split(SEPARATOR) if part]


def is_placeholder(name: str | None) -> bool:
    """Is a category value the platform's "no category" ("Uncategorized", "Sem categoria")? Such a value
    is never shown as a category: its products count as having no own category."""
    return bool(name) and " ".join((name or "").split()).casefold() in PLACEHOLDERS
