"""Which rows a scope holds, found in three places, computed once per table and scope.

A scope phrase ("pond pumps", "cookware", "outdoor furniture") is resolved by the planner to:

1. **own categories** — `Scope.own_paths` (any level of any of a product's own paths, product types
   included; see `readers/own_categories.py`) and `Scope.merchant_categories` (primary paths);
2. **the Google taxonomy** — `Scope.taxonomy_id` and `Scope.extra_taxonomy_ids`, with their subtrees,
   and own categories named like one of their subcategories (`Scope.own_subpaths`: a type "frying-pans"
   is in Cookware through "Skillets & Frying Pans");
3. **product titles** — `Scope.title_terms`: the title's product noun (`catalog.nouns.head_noun`, the
   one noun rule) is the phrase's last word, and the phrase's other words are in the title; or the
   same for a subcategory name of the taxonomy node (`Scope.title_subterms`: "Stock Pot 8 L").

The population is every row any of the three places in scope; a product is *counted once*, in the
first place (in that order) that holds it, which is how the answer says how it was found ("31 active
products: 24 by your category Pumps, 7 by title"). Every mask is computed per distinct value
(own-category combinations, titles) and spread to rows by integer index, and cached per (table,
scope): the planner, population() and gaps' left-out count of one turn share one computation.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis.common import ANALYSED_STATUSES, numpy_of
from agent.analysis.result import Scope
from agent.analysis.vocabulary import EQUIVALENT  # outdoor/patio/garden… stand for each other
from agent.catalog.cache import Cache
from agent.catalog.taxonomy import Taxonomy
from agent.catalog.values import as_dictionary, entry_codes

PLACES = ("own", "taxonomy", "title")
# Words that make a title a part for the thing it names ("Vertical Replacement Blind Slat", "Pump
# Spare Parts"): such a title is not found by title for that thing, as "covers for sofas" is no sofa.
PART_WORDS = ("replacement", "replacements", "spare", "spares", "part", "parts")


def _whole_word(alternatives: Iterable[str]) -> str:
    """A case-insensitive regex for any of `alternatives` (regex texts) as a whole word: not inside
    another word of letters or digits, in any script."""
    return r"(?i)(?:^|[^\pL\pN])(?:" + "|".join(alternatives) + r")(?:$|[^\pL\pN])"


_PART_PATTERN = _whole_word(PART_WORDS)


@dataclass(frozen=True)
class ScopeRows:
    """Per row, whether each place holds it (numpy bool arrays of the table's length).

    The arrays derived from the three places — the union (`any`), the first place per row (`place`)
    and the union as an Arrow mask (`mask`) — are computed once, on first use, and kept with the
    rows: a ScopeRows is cached per (table, scope), so the planner, population() and gaps' left-out
    count of one turn (and the next turns on the same snapshot) share one computation of each.
    """

    own: np.ndarray
    taxonomy: np.ndarray
    title: np.ndarray

    @functools.cached_property
    def any(self) -> np.ndarray:
        return _union(self)

    @functools.cached_property
    def mask(self) -> pa.Array:
        """`any` as an Arrow boolean array, for Table.filter."""
        return pa.array(self.any)

    @functools.cached_property
    def _place(self) -> np.ndarray:
        return _first_place(self)

    def place(self) -> np.ndarray:
        """int8 per row: 0 own, 1 taxonomy, 2 title (the first that holds it), 3 outside."""
        return self._place

    @functools.cached_property
    def _found(self) -> dict:
        return {}  # found() without `within`, per table: filled by found()


def _union(r: ScopeRows) -> np.ndarray:
    """Rows any place holds (a module function so tests can count how often a turn computes it)."""
    return r.own | r.taxonomy | r.title


def _first_place(scope_rows: ScopeRows) -> np.ndarray:
    place = np.full(len(scope_rows.own), 3, dtype=np.int8)
    place[scope_rows.title] = 2
    place[scope_rows.taxonomy] = 1
    place[scope_rows.own] = 0
    return place


# Per (table object, taxonomy object, scope): the table's identity is checked through a weak reference,
# since an id can be reused once a table is gone. The package's one cache type, bounded by entries.
_CACHE: Cache[tuple[weakref.ref, ScopeRows]] = Cache(max_entries=32)


def rows(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> ScopeRows | None:
    """The scope's rows of `table` (None: the whole catalog), cached per table object and scope."""
    if scope.is_whole_catalog:
        return None
    key = (id(table), id(taxonomy), _key(scope))
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is table:
        return hit[1]
    found = _compute(table, scope, taxonomy)
    _CACHE.put(key, (weakref.ref(table), found))
    return found


def _key(scope: Scope) -> tuple:
    return (
        scope.taxonomy_id,
        scope.extra_taxonomy_ids,
        scope.merchant_categories,
        scope.own_paths,
        scope.title_terms,
        scope.title_subterms,
        scope.title_subterms_alone,
        scope.own_subpaths,
        scope.title_noun_only,
    )


def _compute(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> ScopeRows:
    n = table.num_rows
    none = np.zeros(n, dtype=bool)
    ids = subtree_ids(scope, taxonomy)
    tax = taxonomy_mask(table, ids) if ids else none
    if scope.own_paths:
        # the categories the phrase named are "own"; further primary paths joined the scope because
        # their rows map into its taxonomy node, so they count with the taxonomy
        own = own_mask(table, scope.own_paths)
        if scope.merchant_categories:
            tax = tax | _joined_mask(table, scope, taxonomy, ids)
    else:
        own = _joined_mask(table, scope, taxonomy, ids) if scope.merchant_categories else none
    if scope.own_subpaths:  # own categories named like a subcategory of the taxonomy node: found through it
        tax = tax | own_mask(table, scope.own_subpaths)
    terms = ((scope.title_terms,) if scope.title_terms else ()) + tuple(scope.title_subterms)
    title = title_mask(table, terms, taxonomy) if terms else none
    if scope.title_subterms_alone:
        # a lone word read without its name's modifiers is weaker evidence than the merchant's broader
        # filing: "Advanced Treatment System" filed under Personal Care is no skin cleansing system
        alone = title_mask(table, scope.title_subterms_alone, taxonomy) & ~title
        if alone.any():
            title |= alone & ~_filed_outside_mask(
                table, scope, taxonomy, ids, broader_from_own=False, broader_from_merchant=True
            )
        terms = terms + tuple(scope.title_subterms_alone)
    if title.any() and not any(w in _PART_STEMS for t in terms for w in t):
        title &= ~_part_category_mask(table)
    if title.any():
        title &= ~_filed_elsewhere_mask(table, scope, taxonomy, ids, broader=scope.title_noun_only)
    return ScopeRows(own, tax, title)


# How a row got a Google category that the merchant chose (canonical.MAPPING_METHODS), not we.
MERCHANT_SET = ("google_category", "shopify_category", "merchant_path")


# How a row's Google category came from its own category (its path is a taxonomy path, or its name matched).
FROM_OWN_CATEGORY = ("merchant_path", "own_category")


def _joined_mask(table: pa.Table, scope: Scope, taxonomy: Taxonomy, ids: list[int]) -> np.ndarray:
    """The rows of the merchant categories that joined the scope because their rows *mostly* map inside
    its Google node, less the rows filed outside it.

    A category joins on a share of its rows, so the rest are not in the scope by that join: on a real
    art-print shop (tests/corpus/shopify/kalima-arts-prints.csv) the merchant's "Arts & Entertainment"
    joined "arts & crafts" because one of its two products maps into Arts & Crafts by title, and
    brought in the other, which the category's own path files no deeper than Arts & Entertainment.
    Left out: rows the merchant filed in a Google category elsewhere, rows whose only placement is
    their own category mapping above the scope (that category is broader than the question), and rows
    any mapping placed in a Google category beside the scope: on a real jewellery export the
    merchant's "Apparel & Accessories > Jewelry" joined "rings" on its ring titles and brought in
    the bracelets filed there, whose type and title map them to Bracelets. Rows mapped inside count
    through the taxonomy anyway; unplaced rows of the category stay in."""
    joined = own_mask(table, (), scope.merchant_categories)
    if not joined.any():
        return joined
    outside = _filed_outside_mask(table, scope, taxonomy, ids, broader_from_own=True)
    return joined & ~outside & ~_mapped_beside_mask(table, scope, taxonomy, ids)


def _mapped_beside_mask(table: pa.Table, scope: Scope, taxonomy: Taxonomy, ids: list[int]) -> np.ndarray:
    """Rows mapped (by any method) to a Google category outside the scope's subtree that is no ancestor
    of it: their own words place them elsewhere, so a category's join does not move them in. A row
    mapped above the scope says no more than unplaced and is not among them. Per distinct Google id."""
    roots = [r for r in [scope.taxonomy_id, *scope.extra_taxonomy_ids] if r is not None]
    if not roots or "google_category_id" not in table.column_names:
        return np.zeros(table.num_rows, dtype=bool)
    gid = numpy_of(pc.fill_null(table["google_category_id"], -1)).astype(np.int64)
    inside = set(ids)
    beside = [
        g
        for g in np.unique(gid).tolist()
        if g >= 0 and g not in inside and not any(taxonomy.is_within(r, g) for r in roots)
    ]
    return np.isin(gid, np.array(beside, dtype=np.int64))


def idle_joins(table: pa.Table, scope: Scope, taxonomy: Taxonomy, candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The `candidates` (merchant categories that joined the scope) not to name: at most half of their
    active products are in the scope, and the join brings in no row the rest of the scope lacks.

    On a real art-print shop (tests/corpus/shopify/kalima-arts-prints.csv) "Arts & Entertainment"
    joins "arts & crafts" on one of its two products, which its Google category places there anyway,
    and the other is filed above the scope and stays out: the scope sentence said "including your
    category Arts & Entertainment" of a category half outside it, whose join counted nothing. A
    category most of whose products are in the scope is named ("Belo vino" in a wine shop's Wine)."""
    rest_categories = tuple(c for c in scope.merchant_categories if c not in candidates)
    rest = rows(table, replace(scope, merchant_categories=rest_categories), taxonomy)
    full = rows(table, scope, taxonomy)
    if rest is None or full is None:
        return ()
    active = analysed(table)
    brought = active & full.any & ~rest.any
    keys = numpy_of(table["product_key"])
    idle = []
    for category in candidates:
        mine = own_mask(table, (), (category,)) & active
        inside = len(np.unique(keys[mine & full.any]))
        if not (mine & brought).any() and 2 * inside <= len(np.unique(keys[mine])):
            idle.append(category)
    return tuple(idle)


def _filed_elsewhere_mask(
    table: pa.Table, scope: Scope, taxonomy: Taxonomy, ids: list[int], *, broader: bool = False
) -> np.ndarray:
    """Rows the merchant filed in a Google category outside the scope: a title never moves them in.

    "Skin-Tac Adhesive Barrier Wipes", filed by the merchant under Health Care > First Aid, was counted
    in "personal care" because its title names wipes. The merchant's own filing is first-class: a
    title only places products the merchant left unfiled, filed more broadly (an ancestor of the
    scope: a product filed under Apparel whose title says dress is in Dresses), or that we mapped
    ourselves.

    With `broader` (the scope matches titles by the phrase's noun alone, its other words named by no
    category or title) a product filed at an ancestor is outside too: the merchant filed it no
    narrower than, say, Apparel, and a title naming only "top" does not make a bikini top one of the
    Baby & Toddler Tops (tests/corpus/shopify/bilal-swimwear.csv), nor "Carnival Game"s filed under
    Games board games (giantpro-games-print.csv)."""
    return _filed_outside_mask(table, scope, taxonomy, ids, broader_from_own=broader, broader_from_merchant=broader)


def _filed_outside_mask(
    table: pa.Table,
    scope: Scope,
    taxonomy: Taxonomy,
    ids: list[int],
    *,
    broader_from_own: bool,
    broader_from_merchant: bool = False,
) -> np.ndarray:
    """Rows whose merchant-set Google category lies outside the scope's subtree and is no ancestor of
    it (with `broader_from_merchant`, an ancestor too); with `broader_from_own`, also rows placed
    outside it (an ancestor included) by their own category. Decided per distinct Google id, spread
    by index."""
    if "category_mapping" not in table.column_names or "google_category_id" not in table.column_names:
        return np.zeros(table.num_rows, dtype=bool)
    roots = [r for r in [scope.taxonomy_id, *scope.extra_taxonomy_ids] if r is not None]
    if not roots:  # a scope of titles or own names only has no Google node to be outside of
        return np.zeros(table.num_rows, dtype=bool)
    method = as_dictionary(table["category_mapping"])
    names = method.dictionary.cast(pa.string()).to_pylist()
    set_by_merchant = np.array([n in MERCHANT_SET for n in names], dtype=bool)
    from_own = np.array([broader_from_own and n in FROM_OWN_CATEGORY for n in names], dtype=bool)
    if not (set_by_merchant.any() or from_own.any()):
        return np.zeros(table.num_rows, dtype=bool)
    merchant_rows = entry_codes(method, set_by_merchant, missing=False)
    own_rows = entry_codes(method, from_own, missing=False) if from_own.any() else np.zeros(table.num_rows, dtype=bool)
    gid = numpy_of(pc.fill_null(table["google_category_id"], -1)).astype(np.int64)  # ids, not flags
    inside = set(ids)
    elsewhere: list[int] = []
    broader: list[int] = []
    for g in np.unique(gid[merchant_rows | own_rows]).tolist():
        if g < 0 or g in inside:
            continue
        (broader if any(taxonomy.is_within(r, g) for r in roots) else elsewhere).append(g)
    outside = elsewhere + broader if broader_from_merchant else elsewhere
    out = merchant_rows & np.isin(gid, np.array(outside, dtype=np.int64))
    if own_rows.any() and (broader or elsewhere):
        out |= own_rows & np.isin(gid, np.array(broader + elsewhere, dtype=np.int64))
    return out


def _part_category_mask(table: pa.Table) -> np.ndarray:
    """Rows the merchant filed under a parts category ("Replacement Blind Slat", "Spare Parts"): they
    are not found by title for the thing they fit, however the title names it (per distinct value)."""
    encoded = own_column(table)
    values = encoded.dictionary if pa.types.is_string(encoded.dictionary.type) else encoded.dictionary.cast(pa.string())
    if not len(values):
        return np.zeros(table.num_rows, dtype=bool)
    flags = _np(pc.fill_null(pc.match_substring_regex(values, _PART_PATTERN), False))
    return entry_codes(encoded, flags, missing=False) if flags.any() else np.zeros(table.num_rows, dtype=bool)


def subtree_ids(scope: Scope, taxonomy: Taxonomy) -> list[int]:
    """Every taxonomy node of the scope: its roots and all nodes under them."""
    out: list[int] = []
    for root in ([scope.taxonomy_id] if scope.taxonomy_id is not None else []) + list(scope.extra_taxonomy_ids):
        if taxonomy.node(root) is not None and root not in out:
            out.append(root)
            out.extend(d for d in taxonomy.descendants(root) if d not in out)
    return out


def taxonomy_mask(table: pa.Table, ids: list[int]) -> np.ndarray:
    hit = pc.fill_null(pc.is_in(table["google_category_id"], value_set=pa.array(ids, pa.int32())), False)
    return _np(hit)


def _np(arr) -> np.ndarray:
    """A boolean Arrow array (or chunked) as a numpy bool array; for flags only (it casts to bool)."""
    a = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    return np.asarray(a.to_numpy(zero_copy_only=False), dtype=bool)


# --- own categories -----------------------------------------------------------------------------------
def own_column(table: pa.Table) -> pa.DictionaryArray:
    """Per row, its own paths ("\\n"-joined). Tables built without the column (by hand, or saved by an
    older version) get it from their primary path and product type, per distinct value."""
    if "own_categories" in table.column_names and table["own_categories"].null_count < table.num_rows:
        return as_dictionary(table["own_categories"])
    from agent.catalog.readers import own_categories as oc

    parts = [
        oc.column(table[c], fn)
        for c, fn in (("category_path", oc.generic), ("product_type", oc.single))
        if c in table.column_names and table[c].null_count < table.num_rows
    ]
    combined = oc.combine(*parts) if parts else None
    if combined is None:
        return pa.DictionaryArray.from_arrays(pa.nulls(table.num_rows, pa.int32()), pa.array([], pa.string()))
    return as_dictionary(combined)


def path_prefixes(path: str) -> list[str]:
    """ "A > B > C" → ["A", "A > B", "A > B > C"]: a product is in every level of its path."""
    levels = path.split(" > ")
    return [" > ".join(levels[:i]) for i in range(1, len(levels) + 1)]


def own_mask(table: pa.Table, own_paths: tuple[str, ...], merchant_categories: tuple[str, ...] = ()) -> np.ndarray:
    """Rows with an own path equal to or under one of `own_paths` (case-insensitive), or whose
    primary path is one of `merchant_categories`."""
    from agent.catalog.readers.own_categories import paths_of

    mask = np.zeros(table.num_rows, dtype=bool)
    if own_paths:
        wanted = {p.lower() for p in own_paths}
        encoded = own_column(table)
        flags = np.array(
            [
                any(pre.lower() in wanted for p in paths_of(v) for pre in path_prefixes(p))
                for v in encoded.dictionary.to_pylist()
            ],
            dtype=bool,
        )
        if flags.any():
            mask |= entry_codes(encoded, flags, missing=False)
    if merchant_categories and "category_path" in table.column_names:
        encoded = as_dictionary(table["category_path"])
        wanted_c = set(merchant_categories)
        flags = np.array([v in wanted_c for v in encoded.dictionary.to_pylist()], dtype=bool)
        if flags.any():
            mask |= entry_codes(encoded, flags, missing=False)
    return mask


# --- titles ---------------------------------------------------------------------------------------------
def _product_word(taxonomy: Taxonomy | None):
    """Is a title word a product word — one of the taxonomy's category-name words (stemmed)?"""
    if taxonomy is None:
        return None
    from agent.analysis.vocabulary import stem, taxonomy_index

    vocab = taxonomy_index(taxonomy).vocab
    return lambda w: stem(w.lower()) in vocab


def _noun_of(title: str | None, known, keep: frozenset[str] = frozenset()) -> str:
    from agent.analysis.vocabulary import tokens
    from agent.catalog.nouns import head_noun

    word = head_noun(title, known, keep)
    toks = tokens(word) if word else []
    return toks[-1] if toks else ""


def _matches(title: str | None, noun: str, terms: list[tuple[str, ...]]) -> bool:
    from agent.analysis.vocabulary import tokens

    words = None
    for term in terms:
        if term[0] != noun:
            continue
        if len(term) == 1:
            return True
        if words is None:
            words = set(tokens(title or ""))
        if all(m in words or (m in EQUIVALENT and words & set(EQUIVALENT)) for m in term[1:]):
            return True
    return False


def _word_forms(noun: str) -> str:
    """A regex for the written forms of a stemmed noun: pump|pumps, accessory|accessories, seat|seating,
    and the plural of an -ing noun, whose stem drops the ending: earr|earring|earrings, paint|paintings."""
    import re

    if re.search("[\u0400-\u04ff]", noun):  # a Russian stem: its case and number endings, "е" also "ё"
        forms = re.escape(noun).replace("е", "[её]") + "[а-яё]{0,3}"
        if noun.endswith("к") and len(noun) > 3 and noun[-2] not in "аеиоуыэюя":  # кроссовк: кроссовок
            forms += "|" + re.escape(noun[:-1]).replace("е", "[её]") + "[оеё]к"
        return "(?:" + forms + ")"
    if noun.endswith("y") and len(noun) > 3:
        return re.escape(noun[:-1]) + "(?:y|ies|ie)"  # hoody: Hoodie, Hoodies
    return re.escape(noun) + "(?:s|es|ings?)?"


def scope_title_pattern(scope: Scope) -> str | None:
    """The regex a title must match to be found by the scope's title terms at all (title_mask's first
    filter over the distinct titles, RE2 syntax as Arrow's kernels take it), or None: the scope has no
    title terms. What a SQL form sends to BigQuery so that only such titles come back."""
    terms = (scope.title_terms,) if scope.title_terms else ()
    return words_title_pattern({t[0] for t in (*terms, *scope.title_subterms, *scope.title_subterms_alone) if t})


def words_title_pattern(nouns: Iterable[str]) -> str | None:
    """The regex (RE2) for a title naming any of the stemmed `nouns` in a written form, or None for none."""
    forms = sorted({_word_forms(n) for n in nouns if n}, key=len, reverse=True)
    return _whole_word(forms) if forms else None


def title_mask(table: pa.Table, terms: tuple[tuple[str, ...], ...], taxonomy: Taxonomy | None = None) -> np.ndarray:
    """Rows whose title names one of the term sets' nouns (with its modifiers).

    Vectorised over the distinct titles (a million-row catalog has a quarter of a million): the heads
    and their last words come from `catalog.nouns` in Arrow kernels, the last word is stemmed once per
    distinct word, modifiers are matched by regex on the titles of their noun only. Titles whose head
    names a noun that is not its last word ("Oase Pond Pump Eco") go through the exact Python rule
    (`head_noun` with the taxonomy's product words)."""
    if "title" not in table.column_names or table.num_rows == 0 or not terms:
        return np.zeros(table.num_rows, dtype=bool)
    by_noun: dict[str, list[tuple[str, ...]]] = {}
    for term in terms:
        by_noun.setdefault(term[0], []).append(term)
    encoded = as_dictionary(table["title"])
    values = encoded.dictionary if pa.types.is_string(encoded.dictionary.type) else encoded.dictionary.cast(pa.string())
    nouns = sorted(by_noun)
    flags = np.zeros(len(values), dtype=bool)
    # candidates: titles holding one of the nouns as a whole word (one regex over the distinct titles);
    # heads and last words are worked out for these only
    forms = sorted({_word_forms(n) for n in nouns}, key=len, reverse=True)
    pattern = _whole_word(forms)
    cand = np.flatnonzero(_np(pc.fill_null(pc.match_substring_regex(values, pattern), False)))
    if not len(cand):
        return np.zeros(table.num_rows, dtype=bool)
    from agent.catalog.nouns import last_words, title_heads

    sub = values.take(pa.array(cand))
    heads = title_heads(sub)
    vocab = _product_word(taxonomy)
    # per candidate: index into nouns of its last word (-1 none), and whether that word is a product word
    # an asked noun is never dropped as a grade or colour word ("Face Cream" is a cream when creams are asked)
    asked = frozenset(nouns)
    code, last_known = _noun_codes(last_words(heads, asked), nouns, vocab)
    code = _noun_first(code, heads, nouns, vocab)
    found = [(rows, by_noun[noun]) for k, noun in enumerate(nouns) if len(rows := np.flatnonzero(code == k))]
    hits = _ModifierHits(sub, found)
    for rows, noun_terms in found:
        flags[cand[rows]] = _modifiers_hold(rows, noun_terms, hits)
    # the slow path: a noun inside the head but not its last word ("Oase Pond Pump Eco"); a head
    # ending in a product word has that word as its noun, so only other heads need the exact rule
    inside = _np(pc.fill_null(pc.match_substring_regex(heads, pattern), False)) & (code < 0) & ~last_known
    rest = np.flatnonzero(inside)
    if len(rest):
        targets = set(nouns)
        known = None if vocab is None else (lambda w: vocab(w) or _stem_word(w) in targets)
        for i, title in zip(rest.tolist(), sub.take(pa.array(rest)).to_pylist()):
            noun = _noun_of(title, known, asked)
            if noun in by_noun:
                flags[cand[i]] = _matches(title, noun, by_noun[noun])
    if flags.any() and not any(w in _PART_STEMS for term in terms for w in term):
        # accessories stay accessories: a replacement part names the thing it is for, it is not one
        hit = np.flatnonzero(flags)
        is_part = _np(pc.fill_null(pc.match_substring_regex(values.take(pa.array(hit)), _PART_PATTERN), False))
        flags[hit[is_part]] = False
    return entry_codes(encoded, flags, missing=False) if flags.any() else np.zeros(table.num_rows, dtype=bool)


def _noun_first(code: np.ndarray, heads: pa.Array, nouns: list[str], vocab) -> np.ndarray:
    """`code` with the heads that *start* with an asked noun no English product word claimed to it.

    Portuguese, Spanish, French and Italian titles name the product first and decorate it after
    ("CAMISETA PREMIUM BOSTON BASIC - BRANCO", "Vela aromática grande"), so the English rule (the head's
    last word) misses them. A noun the merchant asks for that is no word of the English taxonomy's names
    ("camiseta", "vela", "bougie") is taken to be written in such a language, and a head whose first word
    is that noun names it. An English noun keeps the English rule alone: "Chair Cover" is no chair.
    Known cost, accepted: a foreign noun that is also an English taxonomy word ("robe", "pizza") is read
    the English way only. Without the taxonomy (no vocabulary) nothing changes."""
    if vocab is None:
        return code
    foreign = [k for k, noun in enumerate(nouns) if not vocab(noun)]
    if not foreign:
        return code
    first = pc.replace_substring_regex(pc.utf8_lower(pc.utf8_ltrim_whitespace(heads)), r"[^\pL\pN].*$", "")
    first_code, _ = _noun_codes(first, nouns, vocab)
    claim = (code < 0) & np.isin(first_code, foreign)
    return np.where(claim, first_code, code).astype(code.dtype, copy=False)


_PART_STEMS = frozenset({"replacement", "spare", "part"})  # PART_WORDS as the planner's tokens stem them


def _stem_word(word: str) -> str:
    from agent.analysis.vocabulary import tokens

    toks = tokens(word)
    return toks[-1] if toks else ""


def _noun_codes(last: pa.Array, nouns: list[str], vocab) -> tuple[np.ndarray, np.ndarray]:
    """Per title, the index in `nouns` of its last word's stem (-1 none) and whether that word is a
    product word; worked out once per distinct word."""
    enc = as_dictionary(last)
    pos = {n: i for i, n in enumerate(nouns)}
    words = enc.dictionary.to_pylist()
    if not words:
        return np.full(len(last), -1, dtype=np.int32), np.zeros(len(last), dtype=bool)
    per_word = np.array([pos.get(_stem_word(w) if w else "", -1) for w in words], dtype=np.int32)
    known = np.array([bool(w) and vocab is not None and vocab(w) for w in words], dtype=bool)
    return entry_codes(enc, per_word, missing=-1), entry_codes(enc, known, missing=False)


def _modifier_pattern(modifier: str) -> str:
    """The regex for one modifier's written forms as a whole word (an outdoor word stands for all of them)."""
    words = EQUIVALENT if modifier in EQUIVALENT else (modifier,)
    return _whole_word(_word_forms(w) for w in words)


class _ModifierHits:
    """Per candidate title, whether a modifier is one of its words: each modifier's regex runs once, over
    the titles of every noun whose terms name it, instead of once per noun. A question's nouns share
    modifiers ("outdoor" for every furniture noun), and each of Arrow's regex calls compiles its
    pattern anew (~1.5 ms for these Unicode classes): on a first demo question that was ten compiles of
    the same pattern (issue 16 item 5). The work over titles is the same: a noun's titles are matched
    for a modifier only if one of its terms names it."""

    def __init__(self, titles: pa.Array, nouns: list[tuple[np.ndarray, list[tuple[str, ...]]]]) -> None:
        """`nouns`: each noun's candidate rows (into `titles`) and its term sets."""
        self._titles = titles
        self._pattern: dict[str, str] = {}  # modifier -> its regex
        self._rows: dict[str, list[np.ndarray]] = {}  # regex -> the rows of the nouns that ask for it
        for rows, terms in nouns:
            if any(len(term) == 1 for term in terms):
                continue  # a bare noun holds every title: its modifiers are never asked for
            modifiers = {m for term in terms for m in term[1:]}
            for m in modifiers:
                self._pattern.setdefault(m, _modifier_pattern(m))
            for pattern in {self._pattern[m] for m in modifiers}:
                self._rows.setdefault(pattern, []).append(rows)
        self._done: dict[str, np.ndarray] = {}

    def of(self, modifier: str, rows: np.ndarray) -> np.ndarray:
        """Whether the modifier is a word of each title at `rows` (rows of a noun that names it)."""
        pattern = self._pattern[modifier]
        found = self._done.get(pattern)
        if found is None:
            union = np.unique(np.concatenate(self._rows[pattern]))
            found = np.zeros(len(self._titles), dtype=bool)
            found[union] = _np(
                pc.fill_null(pc.match_substring_regex(self._titles.take(pa.array(union)), pattern), False)
            )
            self._done[pattern] = found
        return found[rows]


def _modifiers_hold(rows: np.ndarray, terms: list[tuple[str, ...]], hits: _ModifierHits) -> np.ndarray:
    """Per title at `rows`, whether some term set's modifiers are all words of it (any term without modifiers: all)."""
    if any(len(term) == 1 for term in terms):
        return np.ones(len(rows), dtype=bool)
    out = np.zeros(len(rows), dtype=bool)
    for term in terms:
        ok = np.ones(len(rows), dtype=bool)
        for modifier in term[1:]:
            ok &= hits.of(modifier, rows)
            if not ok.any():
                break
        out |= ok
    return out


# --- counts ---------------------------------------------------------------------------------------------
def analysed(table: pa.Table) -> np.ndarray:
    """Rows with an analysed status (active or no status stated)."""
    encoded = as_dictionary(table["status"])
    flags = np.array([v in ANALYSED_STATUSES for v in encoded.dictionary.cast(pa.string()).to_pylist()], dtype=bool)
    return entry_codes(encoded, flags, missing=True)


def _products_per_place(table: pa.Table, place: np.ndarray, keep: np.ndarray) -> list[int]:
    """Distinct products per place (each product in the first place any of its rows has)."""
    pk = table["product_key"]
    pk = (pk.combine_chunks() if isinstance(pk, pa.ChunkedArray) else pk).to_numpy(zero_copy_only=False)
    pk, places = pk[keep], place[keep]
    if len(pk) == 0:
        return [0] * len(PLACES)
    order = np.lexsort((places, pk))
    sorted_pk, sorted_places = pk[order], places[order]
    first = np.concatenate(([True], sorted_pk[1:] != sorted_pk[:-1]))
    per = np.bincount(sorted_places[first], minlength=len(PLACES) + 1)
    return [int(x) for x in per[: len(PLACES)]]


def found(
    table: pa.Table, scope: Scope, taxonomy: Taxonomy, within: np.ndarray | None = None
) -> tuple[tuple[str, int], ...]:
    """(("own", n), ("taxonomy", n), ("title", n)): active products by the first place that holds them.

    `within` (a bool per row of `table`) narrows the count to some of the scope's rows — gaps asks it
    for the rows not mapped to a subcategory, so its sentence says how those came into the scope."""
    scope_rows = rows(table, scope, taxonomy)
    if scope_rows is None or table.num_rows == 0:
        return tuple((p, 0) for p in PLACES)
    if within is None and "all" in scope_rows._found:
        return scope_rows._found["all"]
    keep = analysed(table) & scope_rows.any
    if within is not None:
        keep &= within
    out = tuple(zip(PLACES, _products_per_place(table, scope_rows.place(), keep)))
    if within is None:
        scope_rows._found["all"] = out
    return out


def unplaced(table: pa.Table) -> int:
    """Active products with no own category and no Google category."""
    if table.num_rows == 0:
        return 0
    encoded = own_column(table)
    has_own = entry_codes(
        encoded, np.array([bool(v) for v in encoded.dictionary.to_pylist()], dtype=bool), missing=False
    )
    has_google = _np(pc.is_valid(table["google_category_id"]))
    keep = analysed(table) & ~has_own & ~has_google
    pk = table["product_key"]
    pk = (pk.combine_chunks() if isinstance(pk, pa.ChunkedArray) else pk).to_numpy(zero_copy_only=False)
    return int(len(np.unique(pk[keep])))


@dataclass(frozen=True)
class TitledElsewhere:
    """Active products outside the scope whose title names the scope's noun as the product (the one noun
    rule): the merchant filed them in another Google category, which a title never overrides."""

    products: int
    example: str | None  # the first such title in sorted order
    category: str | None  # the Google category path most of their rows are filed in


def titled_elsewhere(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> TitledElsewhere:
    """The products a scope leaves out although their title says they are its product, because their
    own filing is elsewhere (`_filed_elsewhere_mask`): what the answer must name as such rather than
    as titles that merely mention the word (`named_outside`).

    A held-out print shop's 84 "Banner - …" products, filed by the feed under Signage, were said to have
    "banners" in their title "without the title or their category making them banners": the title
    does; the filing keeps them out."""
    none = TitledElsewhere(0, None, None)
    if not scope.title_terms or "title" not in table.column_names or table.num_rows == 0:
        return none
    scope_rows = rows(table, scope, taxonomy)
    inside = scope_rows.any if scope_rows is not None else np.zeros(table.num_rows, dtype=bool)
    keep = title_mask(table, (scope.title_terms,), taxonomy) & analysed(table) & ~inside
    if not keep.any():
        return none
    chosen = table.filter(pa.array(keep))
    titles = [t for t in chosen["title"].to_pylist() if t]
    ids = Counter(g for g in chosen["google_category_id"].to_pylist() if g is not None)
    top = min(ids, key=lambda g: (-ids[g], g)) if ids else None
    node = taxonomy.nodes.get(top) if top is not None else None
    pks = np.unique(numpy_of(chosen["product_key"]))
    return TitledElsewhere(int(len(pks)), min(titles) if titles else None, node.path if node else None)


def named_outside(table: pa.Table, scope: Scope, taxonomy: Taxonomy, words: tuple[str, ...]) -> tuple[int, str | None]:
    """(active products whose title holds the words — in order, whole words, the last in any of its
    written forms — but that are not in the scope, the first such title in sorted order), those whose
    title names the scope's noun as the product left to `titled_elsewhere`.

    What a scope of titles by their product noun leaves out: "Diamond Ring", "… Ring with Diamonds"
    are rings, not diamonds, and the planner says how many there are rather than leaving them out
    unsaid (agent.analysis.planner._say_titles_outside)."""
    if not words or "title" not in table.column_names or table.num_rows == 0:
        return 0, None
    scope_rows = rows(table, scope, taxonomy)
    inside = scope_rows.any if scope_rows is not None else np.zeros(table.num_rows, dtype=bool)
    if scope.title_terms:
        inside = inside | title_mask(table, (scope.title_terms,), taxonomy)
    forms = [re.escape(w) for w in words[:-1]] + [_word_forms(words[-1])]
    pattern = _whole_word([r"[^\pL\pN]+".join(forms)])
    encoded = as_dictionary(table["title"])
    values = encoded.dictionary if pa.types.is_string(encoded.dictionary.type) else encoded.dictionary.cast(pa.string())
    flags = _np(pc.fill_null(pc.match_substring_regex(values, pattern), False))
    if not flags.any():
        return 0, None
    keep = entry_codes(encoded, flags, missing=False) & analysed(table) & ~inside
    if not keep.any():
        return 0, None
    keys = numpy_of(table["product_key"])
    titles = table["title"].filter(pa.array(keep)).to_pylist()
    return int(len(np.unique(keys[keep]))), min(t for t in titles if t)
