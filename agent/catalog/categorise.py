"""Per-row mapping to the Google product taxonomy, in SPEC §4's order of trust.

1. `google_category` (the row's `google_product_category`, an id or a path)    -> "google_category"
2. the longest taxonomy prefix of the merchant's own category path            -> "merchant_path"
3. keyword rules (the explicit table below) on product type, category and title -> "keyword"
4. nothing matched: "unmapped" — counted and said, never guessed.

Steps 1–2 run once per distinct value; step 3 runs vectorised regexes over the rows that are still
unmapped only, so a well-categorised million-row catalog pays nothing for it.
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.catalog import taxonomy
from agent.catalog.values import as_dictionary, chunked

# (RE2 pattern on lower-cased "product type | category | title", Google category id). First match
# wins, so specific outdoor rules come before general furniture and clothing rules.
KEYWORD_RULES: tuple[tuple[str, int], ...] = (
    (r"\b(sun ?)?loungers?\b|\bchaise longues?\b|\bsun ?beds?\b|\bsun lounge", 4105),
    (r"\b(patio|garden|outdoor|deck|adirondack|lawn)\s+(arm)?chairs?\b|\bdeck ?chairs?\b", 6828),
    (r"\bsteamer chairs?\b|\boutdoor furniture\b.*\bchairs?\b", 6828),
    (r"\b(patio|garden|outdoor)\s+(sofas?|couch(es)?|loveseats?)\b|\boutdoor furniture\b.*\bsofas?\b", 4513),
    (r"\b(patio|garden|outdoor|picnic)\s+bench(es)?\b", 5044),
    (r"\b(patio|garden|outdoor|picnic|bistro)\s+(dining\s+)?tables?\b", 2684),
    (r"\b(patio|garden|outdoor|bistro|lounge)\s+(furniture|dining)?\s*sets?\b", 6367),
    (r"\bparasols?\b|\b(patio|garden|market|cantilever)\s+umbrellas?\b|\bsun ?shades?\b|\bsail shades?\b", 719),
    (r"\bhammocks?\b", 717),
    (r"\b(storage|deck|cushion)\s+box(es)?\b", 7310),
    (r"\bbbqs?\b|\bbarbec(ue|ues)\b|\b(charcoal|gas|pellet|kamado)\s+grills?\b", 2985),
    (r"\bplanters?\b|\b(plant|flower|garden|concrete|ceramic|terracotta|terra cotta|herb)\s+pots?\b|\btroughs?\b", 721),
    (r"\bplant stands?\b", 6428),
    (r"\bwatering cans?\b", 6318),
    (r"\bgarden hoses?\b", 2313),
    (r"\blawn ?mowers?\b", 694),
    (r"\bseeds?\b|\bbulbs? for planting\b", 2802),
    (r"\bfertili[sz]ers?\b|\bplant food\b", 113),
    (r"\b(secateurs|pruners?|trowels?|rakes?|spades?|hoes?|shears)\b", 3173),
    (r"\bsofas?\b|\bcouch(es)?\b|\bsettees?\b", 460),
    (r"\b(arm)?chairs?\b|\bstools?\b", 443),
    (r"\btables?\b", 6392),
    (r"\bmattress(es)?\b", 2696),
    (r"\brugs?\b|\bcarpets?\b", 598),
    (r"\bcushions?\b", 4453),
    (r"\bthrow pillows?\b|\bpillows?\b", 4454),
    (r"\bcandles?\b", 588),
    (r"\blamps?\b|\blanterns?\b", 4636),
    (r"\bmugs?\b", 2169),
    (r"\bposters?\b|\bart prints?\b|\bcanvas prints?\b", 500044),
    (r"\bflags?\b|\bpennants?\b|\bwindsocks?\b", 701),
    (r"\bjeans\b|\btrousers\b|\bpants\b|\bchinos\b|\bleggings\b", 204),
    (r"\bshorts\b", 207),
    (r"\bskirts?\b", 1581),
    (r"\bdress(es)?\b", 2271),
    (r"\bjackets?\b|\bcoats?\b|\bparkas?\b|\bblazers?\b", 5598),
    (r"\bsocks?\b", 209),
    (r"\bt-?shirts?\b|\btees?\b|\bshirts?\b|\bpolos?\b|\bblouses?\b|\bhoodies?\b|\bsweatshirts?\b|\bsweaters?\b|\bjumpers?\b|\btank tops?\b", 212),
    (r"\bbeanies?\b|\bhats?\b|\bcaps?\b", 173),
    (r"\bbelts?\b", 169),
    (r"\bsunglasses\b", 178),
    (r"\bshoes?\b|\bsneakers?\b|\btrainers\b|\bboots?\b|\bsandals?\b|\bloafers?\b", 187),
    (r"\bbackpacks?\b|\brucksacks?\b", 100),
    (r"\bduffel bags?\b|\bduffle bags?\b", 103),
    (r"\bbags?\b|\bluggage\b|\bsuitcases?\b", 5181),
    (r"\bhandbags?\b|\btote bags?\b|\bclutch(es)?\b", 3032),
    (r"\bwatch(es)?\b", 201),
    (r"\bnecklaces?\b|\bpendants?\b", 196),
    (r"\bearrings?\b", 194),
    (r"\brings?\b", 200),
    (r"\bheadphones?\b|\bearbuds?\b|\bheadsets?\b", 505771),
    (r"\bphone cases?\b", 2353),
    (r"\bbooks?\b|\bnovels?\b", 784),
    (r"\balbums?\b|\bvinyl\b|\bsingles?\b|\bmusic\b", 855),
    (r"\btoys?\b|\bplush\b", 1253),
)


@functools.lru_cache(maxsize=65536)
def _google_id_cached(value: str) -> int | None:
    return _google_id(taxonomy.load(), value)


@functools.lru_cache(maxsize=65536)
def _prefix_cached(value: str) -> int | None:
    return taxonomy.load().longest_prefix(value)


def _google_id(tax: taxonomy.Taxonomy, value: str | None) -> int | None:
    if value is None:
        return None
    s = str(value).strip()
    if not s:
        return None
    head = s.split(" - ", 1)[0].strip() if " - " in s else s  # "212 - Apparel & Accessories > …"
    try:
        cid = int(float(head))
        return cid if tax.node(cid) is not None else None
    except (ValueError, OverflowError):  # OverflowError: "inf", "1e999"
        pass
    return tax.id_for_path(s) or tax.longest_prefix(s)


def _lookup(arr: pa.ChunkedArray, fn) -> np.ndarray:
    """Per-distinct lookup -> int32 numpy array per row, -1 for "no match"."""
    d = as_dictionary(arr)
    mapped = np.array([(-1 if (r := fn(v)) is None else r) for v in d.dictionary.to_pylist()] + [-1], dtype=np.int32)
    idx = d.indices.to_numpy(zero_copy_only=False) if d.null_count == 0 else \
        pc.fill_null(d.indices, len(mapped) - 1).to_numpy(zero_copy_only=False)
    return np.take(mapped, idx)


def map_rows(n: int, google_category: pa.ChunkedArray | None, category_path: pa.ChunkedArray | None,
             product_type: pa.ChunkedArray | None, title: pa.ChunkedArray | None
             ) -> tuple[pa.Array, pa.Array, pa.Array]:
    """(google_category_id int32, google_category_path dict, category_mapping dict) for n rows."""
    tax = taxonomy.load()
    if google_category is not None and google_category.null_count < len(google_category):
        quick = _from_one_column(n, google_category, lambda v: _google_id_cached(v), 0, tax)
    elif category_path is not None:  # no google category at all: the merchant's paths may settle every row
        quick = _from_one_column(n, category_path, lambda v: _prefix_cached(v) if v else None, 1, tax)
    else:
        quick = None
    if quick is not None:
        return quick
    ids = np.full(n, -1, dtype=np.int32)
    method = np.full(n, 3, dtype=np.int8)  # index into MAPPING_METHODS
    if google_category is not None and google_category.null_count < len(google_category):  # an empty column says nothing
        ids = _lookup(chunked(google_category), lambda v: _google_id_cached(v) if v is not None else None)
        method[ids >= 0] = 0
    if category_path is not None and (ids < 0).any():
        found = _lookup(chunked(category_path), lambda v: _prefix_cached(v) if v else None)
        hit = (found >= 0) & (ids < 0)
        ids = np.where(hit, found, ids)
        method[hit] = 1
    todo = np.flatnonzero(ids < 0)
    if len(todo) and any(c is not None for c in (product_type, category_path, title)):
        texts = []
        for col in (product_type, category_path, title):
            if col is not None:
                picked = pc.take(col, pa.array(todo))  # take first: cast only the unmapped rows
                texts.append(picked.cast(pa.string()) if picked.type != pa.string() else picked)
        text = pc.utf8_lower(pc.binary_join_element_wise(*[pc.fill_null(t, "") for t in texts], " | "))
        remaining = np.ones(len(todo), dtype=bool)
        for pattern, cid in KEYWORD_RULES:
            if not remaining.any():
                break
            hit = np.asarray(pc.match_substring_regex(text, pattern).to_numpy(zero_copy_only=False), dtype=bool) & remaining
            if hit.any():
                rows = todo[hit]
                ids[rows], method[rows] = cid, 2
                remaining &= ~hit
    mask = ids < 0
    any_missing = bool(mask.any())
    id_arr = pa.array(np.where(mask, 0, ids) if any_missing else ids, mask=mask if any_missing else None)
    # The path column: taxonomy ids are small integers, so the distinct ids come from a dense
    # presence table rather than a hash, and each path string is looked up once per id.
    known = ids[~mask] if any_missing else ids
    present = np.zeros(int(known.max(initial=-1)) + 2, dtype=bool)
    present[known] = True
    distinct = np.flatnonzero(present[:-1])
    code = np.cumsum(present, dtype=np.int32) - 1
    path_idx = np.take(code, np.where(mask, len(present) - 1, ids) if any_missing else ids)
    path_arr = pa.DictionaryArray.from_arrays(
        pa.array(path_idx, mask=mask if any_missing else None),
        pa.array([tax.node(int(i)).path for i in distinct], pa.string()), safe=False)
    from agent.catalog.canonical import MAPPING_METHODS

    method_arr = pa.DictionaryArray.from_arrays(pa.array(method.astype(np.int32)), pa.array(list(MAPPING_METHODS)), safe=False)
    return id_arr, path_arr, method_arr


def _from_one_column(n: int, column, lookup, method_code: int, tax) -> tuple[pa.Array, pa.Array, pa.Array] | None:
    """The common case — one column (the google_product_category, or else the merchant's category
    path) resolves every row — decided per distinct value and spread by three integer takes; None
    when any row needs the later steps."""
    if column is None or n == 0 or column.null_count:
        return None
    d = as_dictionary(chunked(column))
    per_value = [lookup(v) if v is not None else None for v in d.dictionary.to_pylist()]
    if any(i is None for i in per_value):
        return None
    distinct = sorted(set(per_value))
    code = {cid: k for k, cid in enumerate(distinct)}
    indices = d.indices
    ids = pc.take(pa.array(per_value, pa.int32()), indices)
    path = pa.DictionaryArray.from_arrays(pc.take(pa.array([code[i] for i in per_value], pa.int32()), indices),
                                          pa.array([tax.node(i).path for i in distinct], pa.string()), safe=False)
    from agent.catalog.canonical import MAPPING_METHODS

    method = pa.DictionaryArray.from_arrays(pa.array(np.full(n, method_code, dtype=np.int32)),
                                            pa.array(list(MAPPING_METHODS)), safe=False)
    return ids, path, method
