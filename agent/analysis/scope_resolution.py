"""Scope resolution: the words of a question matched to a category, and the scope that answers them.

Split out of `planner.py` (issue 13): the planner reads intents and decides; this module turns the
question's remaining words into a `Scope` (points 3–5 of the planner's docstring). `own_index` is the
catalog as the matcher needs it (rows per taxonomy node, the merchant's own category levels), cached
per table object; `resolve` tries the passes, most specific first; `placed` adds accessories, title
terms and how each product was found (`agent.analysis.scoping`); `nearest`/`nearest_own` name the
closest categories when nothing matches.
"""

from __future__ import annotations

import difflib
import functools
import re
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis.result import Scope
from agent.analysis.vocabulary import (
    EQUIVALENT,
    INTENT_VOCAB,
    PREPOSITION_TOKENS,
    STOPWORDS,
    TaxonomyIndex,
    name_tokens,
)
from agent.catalog.cache import Cache
from agent.catalog.taxonomy import Taxonomy

# Share of a merchant category's rows that must map inside a taxonomy scope for the category to be included.
MERCHANT_INCLUDE_SHARE = 0.5
# Share of a taxonomy node's rows an own category must hold for the node to stand for it: "Hoodies"
# is not all of Shirts & Tops when the merchant's Tshirts are there too (that would widen the scope).
OWN_NODE_SHARE = 0.8
# ...and when the node is named otherwise ("Deck Box" for Outdoor Storage Boxes), nearly all of them.
OWN_NODE_ALONE_SHARE = 0.95


@dataclass
class OwnIndex:
    """The merchant's data as the planner needs it: rows per taxonomy node (with ancestors) and categories."""

    node_rows: Counter  # taxonomy id -> rows in its subtree
    categories: dict[str, Counter]  # merchant category -> Counter of google ids (None for unmapped)
    level_names: dict[tuple[str, ...], set[str]]  # tokens of a category level name -> category values ending there
    # own categories (every path of every product, product types included; see readers/own_categories.py)
    own_levels: dict[tuple[str, ...], set[str]] = field(
        default_factory=dict
    )  # tokens of a level name -> own path prefixes ending there
    own_prefix_ids: dict[str, Counter] = field(
        default_factory=dict
    )  # own path prefix -> Counter of google ids of its rows
    own_joined: dict[str, list[tuple[str, ...]]] = field(
        default_factory=dict
    )  # a level's words written together -> its own_levels keys
    # every own name the lexicon reads a foreign question against: category values and own paths
    # (product types included: a Shopify export's French "Plante d'intérieur" is a Type, not a category)
    lexicon_names: tuple[str, ...] = ()
    # _merchant_inside per (node, taxonomy object): a pure function of this index, asked several times a
    # turn and again every turn (on a 1M-row Shopify export it was most of the planner's time)
    inside_memo: dict = field(default_factory=dict)

    @functools.cached_property
    def vocab(self) -> frozenset[str]:
        """Every word of an own category level, path or product type: the words a question's typos
        are corrected towards. Kept with the index (built once per catalog): on a 1M-row Shopify
        export the two set comprehensions cost several milliseconds a turn."""
        return frozenset(t for toks in self.level_names for t in toks) | frozenset(
            t for toks in self.own_levels for t in toks
        )

    @functools.cached_property
    def own_content(self) -> dict[tuple[str, ...], set[str]]:
        """Own levels whose names hold question words, by their other words: "Winter Collection" is
        ("winter",), "All Disposables" ("disposable",). A question's run of words never holds a
        stopword, so without this "How many winters do I have?" could not name "Winter Collection"
        (it counted the 72 hoodies whose titles say winter instead of the category's 229 products)."""
        out: dict[tuple[str, ...], set[str]] = {}
        for toks, prefixes in self.own_levels.items():
            content = tuple(t for t in toks if t not in STOPWORDS)
            if content and content != toks:
                out.setdefault(content, set()).update(prefixes)
        return out


# Per table object (its identity checked through a weak reference): the package's one cache type.
_OWN_CACHE: Cache[tuple[Any, int, OwnIndex]] = Cache(max_entries=8)


def own_index(own: pa.Table | None, taxonomy: Taxonomy) -> OwnIndex:
    """The catalog's index, cached per table object (tables are immutable; the catalog layer caches
    them across turns), so a follow-up on a million rows does not rebuild it."""
    if own is None:
        return _build_own_index(None, taxonomy)
    hit = _OWN_CACHE.get(id(own))
    if hit is not None and hit[0]() is own and hit[1] == id(taxonomy):
        return hit[2]
    index = _build_own_index(own, taxonomy)
    _OWN_CACHE.put(id(own), (weakref.ref(own), id(taxonomy), index))
    return index


def _build_own_index(own: pa.Table | None, taxonomy: Taxonomy) -> OwnIndex:
    node_rows: Counter = Counter()
    categories: dict[str, Counter] = {}
    level_names: dict[tuple[str, ...], set[str]] = {}
    if own is None or own.num_rows == 0:
        return OwnIndex(node_rows, categories, level_names, {}, {}, {})
    ids = own["google_category_id"]
    for d in pc.value_counts(ids).to_pylist():
        cid, n = d["values"], d["counts"]
        if cid is None:
            continue
        node = taxonomy.node(cid)
        while node is not None:
            node_rows[node.id] += n
            node = taxonomy.node(node.parent_id) if node.parent_id is not None else None
    from agent.analysis.common import encoded
    from agent.catalog.readers.own_categories import PLACEHOLDERS

    cat = encoded(own["category_path"])
    names = cat.dictionary.cast(pa.string()).to_pylist() if pa.types.is_dictionary(cat.type) else []
    pairs = (
        pa.table({"c": cat.indices, "g": ids, "one": pa.nulls(own.num_rows, pa.int8()).fill_null(1)})
        .group_by(["c", "g"])
        .aggregate([("one", "sum")])
    )
    for c, g, n in zip(pairs["c"].to_pylist(), pairs["g"].to_pylist(), pairs["one_sum"].to_pylist()):
        if c is None or not names[c] or names[c].strip().casefold() in PLACEHOLDERS:  # "Uncategorized" names none
            continue
        categories.setdefault(names[c], Counter())[g] += n
    for c in categories:
        for level in re.split(r"\s*(?:>|/|\|)\s*", c):
            if level.strip():
                level_names.setdefault(name_tokens(level), set()).add(c)
    own_levels: dict[tuple[str, ...], set[str]] = {}
    own_prefix_ids: dict[str, Counter] = {}
    from agent.analysis.scoping import own_column, path_prefixes
    from agent.catalog.readers.own_categories import paths_of

    oc = own_column(own)
    oc_names = oc.dictionary.cast(pa.string()).to_pylist()
    pairs = (
        pa.table({"c": oc.indices, "g": ids, "one": pa.nulls(own.num_rows, pa.int8()).fill_null(1)})
        .group_by(["c", "g"])
        .aggregate([("one", "sum")])
    )
    for c, g, n in zip(pairs["c"].to_pylist(), pairs["g"].to_pylist(), pairs["one_sum"].to_pylist()):
        if c is None or not oc_names[c]:
            continue
        for path in paths_of(oc_names[c]):
            for prefix in path_prefixes(path):
                own_prefix_ids.setdefault(prefix, Counter())[g] += n
    for prefix in own_prefix_ids:
        toks = name_tokens(prefix.rsplit(" > ", 1)[-1])
        if toks and not all(t in STOPWORDS for t in toks):  # "Products", "All" are no scope
            own_levels.setdefault(toks, set()).add(prefix)
    own_joined: dict[str, list[tuple[str, ...]]] = {}
    for toks in own_levels:
        own_joined.setdefault("".join(toks), []).append(toks)
    names = tuple(sorted(set(categories) | set(own_prefix_ids)))
    return OwnIndex(node_rows, categories, level_names, own_levels, own_prefix_ids, own_joined, names)


def _variants(phrase: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The phrase and its patio/garden/outdoor equivalents (original first)."""
    out = [phrase]
    for i, tok in enumerate(phrase):
        if tok in EQUIVALENT:
            for alt in EQUIVALENT:
                if alt != tok:
                    v = phrase[:i] + (alt,) + phrase[i + 1 :]
                    if v not in out:
                        out.append(v)
    if phrase and phrase[0] in EQUIVALENT and len(phrase) > 1:
        out.append(phrase[1:])  # "patio chairs" may be just "chairs" in a merchant's words (tried last)
    return out


@dataclass
class Match:
    taxonomy_id: int | None
    merchant: tuple[str, ...]
    phrase: str
    label: str
    own_paths: tuple[str, ...] = ()  # own category path prefixes the phrase names
    own_label: str | None = None  # the own level name as the merchant wrote it
    shortened: bool = False  # found without one of the phrase's words ("garden lighting" as "Lighting")
    note: str | None = None  # the sentence that says the match is a broader reading of the words


def best_node(ids: Iterable[int], own: OwnIndex, taxonomy: Taxonomy) -> int | None:
    ids = list(ids)
    if not ids:
        return None
    # prefer nodes with products, then more products, then shallower (the broader reading of a name)
    return sorted(
        ids, key=lambda i: (-(own.node_rows.get(i, 0) > 0), -own.node_rows.get(i, 0), taxonomy.nodes[i].depth, i)
    )[0]


def _merchant_inside(node_id: int, own: OwnIndex, taxonomy: Taxonomy) -> tuple[str, ...]:
    """Merchant categories whose rows mostly map inside the node's subtree (memoised on the index)."""
    key = (node_id, id(taxonomy))
    found = own.inside_memo.get(key)
    if found is None:
        found = own.inside_memo[key] = _merchant_inside_now(node_id, own, taxonomy)
    return found


def _merchant_inside_now(node_id: int, own: OwnIndex, taxonomy: Taxonomy) -> tuple[str, ...]:
    inside = []
    for c, counter in own.categories.items():
        total = sum(counter.values())
        n_in = sum(n for g, n in counter.items() if g is not None and taxonomy.is_within(g, node_id))
        if total and n_in / total >= MERCHANT_INCLUDE_SHARE:
            inside.append(c)
    return tuple(sorted(inside))


def match_phrase(
    phrase: tuple[str, ...], own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex, with_data: bool = True
) -> Match | None:
    """Exact matches (merchant level names, taxonomy names, joined spellings), equivalents tried in order.

    with_data=True accepts only names the catalog has rows in; False accepts any taxonomy name as written.
    """
    text = " ".join(phrase)
    # a lone "outdoor"/"patio"/"garden" matches only a category of that very name, never an equivalent
    variants = [phrase] if len(phrase) == 1 and phrase[0] in EQUIVALENT else _variants(phrase)
    for variant in variants:
        joined = "".join(variant)
        if with_data:
            prefixes = set(own.own_levels.get(variant, ()))
            for toks in own.own_joined.get(joined, ()):  # "Sunloungers" and a type "Sun Lounger" alike
                prefixes |= own.own_levels[toks]
            if not prefixes and len(variant) == len(phrase):  # "winter": the merchant's "Winter Collection"
                prefixes = set(own.own_content.get(variant, ()))
            if (
                prefixes
                and len(variant) < len(phrase)
                and any(
                    tax_idx.by_tokens.get(v) or tax_idx.by_joined.get("".join(v))
                    for v in variants
                    if len(v) == len(phrase)
                )
            ):
                prefixes = set()  # "outdoor furniture" is a taxonomy name: never the merchant's whole "Furniture"
            if prefixes:
                standard = all(_is_standard_path(p, taxonomy) for p in prefixes)
                kinds = _kind_prefixes(variant, own) - prefixes if standard and len(variant) == len(phrase) else set()
                m = _from_own(tuple(sorted(prefixes)), variant, text, own, taxonomy)
                m.shortened = len(variant) < len(phrase)
                if kinds:  # said, never widened silently; "by your categories", not one name
                    m.own_paths = m.own_paths + tuple(sorted(kinds))  # the node and label stay the name's
                    names = sorted({k.rsplit(" > ", 1)[-1] for k in kinds})
                    quoted = ", ".join(f"“{x}”" for x in names[:6]) + (" and others" if len(names) > 6 else "")
                    m.note = _sentences(
                        m.note,
                        f"Your {'category' if len(names) == 1 else 'categories'} {quoted} "
                        f"{'is' if len(names) == 1 else 'are'} counted with {m.own_label or m.label}: "
                        f"{'it is a kind' if len(names) == 1 else 'they are kinds'} of it.",
                    )
                    m.own_label = None
                return m
        if len(variant) < len(phrase):
            continue  # "patio chairs" may be the merchant's "Chairs", never the taxonomy's: that would widen it
        exact = tax_idx.by_tokens.get(variant, [])
        ids = list(exact) + [i for i in tax_idx.by_joined.get(joined, []) if i not in exact]
        if with_data:  # a range's accessories are the range's data too: a covers shop has outdoor furniture
            ids = [
                i
                for i in ids
                if own.node_rows.get(i, 0) or any(own.node_rows.get(a, 0) for a in _accessories_of(i, taxonomy))
            ]
        if ids:
            node = best_node(ids, own, taxonomy)
            assert node is not None  # ids is not empty
            return Match(node, _merchant_inside(node, own, taxonomy), text, taxonomy.nodes[node].name)
    return None


def as_written(match: Match, written: str, own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> Match:
    """The taxonomy node named by the words exactly as written, when the stemmer makes two names one:
    "diapers" is Diapers, not Diapering; "bowls" is Bowls, not Bowling.

    The planner's stemmer cuts "-ing" from long words, so Diapering (Baby & Toddler > Diapering, which
    holds wipes and changing mats too) and Diapers are both ("diaper",), and the shallower one won:
    "How many diapers do I have?" counted a shop's baby wipes. Among the nodes of the same words, the one
    whose name ends with the question's last word as written is taken (also for a level of a standard
    path, Shopify's "Baby & Toddler > Diapering" written in the shop's Product Category); any other match
    is unchanged."""
    if not written.split() or any(not _is_standard_path(p, taxonomy) for p in match.own_paths):
        return match  # a name the merchant wrote is counted as written ("Lighting" for "lights")
    last = written.split()[-1].casefold()
    if match.taxonomy_id is not None:
        current = taxonomy.nodes[match.taxonomy_id].name
    elif match.own_paths:  # a level of Shopify's Product Category path: a taxonomy name too
        current = match.own_paths[0].rsplit(" > ", 1)[-1]
    else:
        return match
    if current.split()[-1].casefold() == last:
        return match
    same = tax_idx.by_tokens.get(name_tokens(current), [])
    exact = [i for i in same if i != match.taxonomy_id and taxonomy.nodes[i].name.split()[-1].casefold() == last]
    if len(exact) != 1:
        return match
    node = exact[0]
    return Match(node, _merchant_inside(node, own, taxonomy), match.phrase, taxonomy.nodes[node].name, note=match.note)


def _is_standard_path(prefix: str, taxonomy: Taxonomy) -> bool:
    """Is an own path prefix a level of a standard taxonomy path (Shopify's Product Category, a Google
    path: "Home & Garden > … > Pots & Planters > Pots"), not a name the merchant wrote (a Type, a
    collection, a WooCommerce category)? Its first level is a top-level taxonomy name.

    Decision: a name the merchant wrote is counted exactly ("Shirts" is their Shirts, not also their
    T-Shirts); a standard path's level is a taxonomy name, and like a taxonomy node it holds the
    merchant's own categories that are kinds of it ("Concrete Pots" in Pots)."""
    if " > " not in prefix:
        return False
    return taxonomy.id_for_path(prefix.split(" > ", 1)[0]) is not None


def _kind_prefixes(phrase: tuple[str, ...], own: OwnIndex) -> set[str]:
    """Own path prefixes whose level is a kind of the phrase: its name ends with the phrase's words
    ("Road Bikes" for "bikes", "Concrete Pots" for "pots"), the words as asked ("garden beds" are no
    "outdoor beds")."""
    if len(phrase) == 1 and phrase[0] in EQUIVALENT:
        return set()
    prefixes: set[str] = set()
    n = len(phrase)
    for toks, found in own.own_levels.items():
        if len(toks) > n and toks[-n:] == phrase:
            prefixes |= found
    # a joined name ends with the phrase without being a kind of it: "Vitamins & Supplements" is
    # broader than Supplements, "Shampoo & Conditioner" than Conditioners
    return {p for p in prefixes if not _JOINED.search(p.rsplit(" > ", 1)[-1])}


_JOINED = re.compile(r"&|,|\band\b|/|\+", re.I)


def _own_kinds(phrase: tuple[str, ...], own: OwnIndex) -> Match | None:
    """Own categories that are kinds of the phrase when no category has its very name: "bikes" holds
    "Road Bikes" and "Track Bikes" (the level ends with the phrase's words). When a standard path's
    level has the very name (`_is_standard_path`), its kinds join it (`match_phrase`): a garden shop's
    "pots" (tests/corpus/seed/shopify-garden-solutions.csv) counted its one product filed under Pots &
    Planters > Pots and 46 titles, and left out 10 of the 57 products of its types "Concrete Pot"
    and "Concrete Pots"."""
    prefixes = _kind_prefixes(phrase, own)
    if not prefixes:
        return None
    text = " ".join(phrase)
    levels = sorted({p.rsplit(" > ", 1)[-1] for p in prefixes})
    return Match(
        None, (), text, text, own_paths=tuple(sorted(prefixes)), own_label=levels[0] if len(levels) == 1 else None
    )


def _own_parts(phrase: tuple[str, ...], own: OwnIndex) -> Match | None:
    """Own categories with a joined name one of whose parts is the phrase ("Amino Acids & Blends" for
    "amino acids"), when nothing closer holds the whole phrase: the closest broader reading, said so.

    A joined name is broader than each of its parts, so it is no kind of the phrase (`_kind_prefixes`)
    and is tried after every reading of the whole phrase. Without it, a supplement shop's "How many
    amino acids do I have?" dropped "amino" and was read as the hardware chemicals' Acid Neutralizers
    (the name "acid" leads), empty, while its nearest category was its own Amino Acids & Blends."""
    if len(phrase) < 2:
        return None
    want = set(phrase)
    prefixes: set[str] = set()
    for toks, found in own.own_levels.items():
        if len(toks) <= len(phrase) or not want <= set(toks):
            continue
        for prefix in found:
            parts = _JOINED.split(prefix.rsplit(" > ", 1)[-1])
            if len(parts) > 1 and any(name_tokens(part) == phrase for part in parts):
                prefixes.add(prefix)
    if not prefixes:
        return None
    text = " ".join(phrase)
    levels = sorted({p.rsplit(" > ", 1)[-1] for p in prefixes})
    one = len(levels) == 1
    note = (
        f"No category is called “{text}”; the scope is your {'category' if one else 'categories'} "
        f"{' and '.join(levels)}, whose {'name holds' if one else 'names hold'} it beside another."
    )
    return Match(
        None,
        (),
        text,
        levels[0] if len(levels) == 1 else text,
        own_paths=tuple(sorted(prefixes)),
        own_label=levels[0] if len(levels) == 1 else None,
        note=note,
    )


def _from_own(
    prefixes: tuple[str, ...], variant: tuple[str, ...], text: str, own: OwnIndex, taxonomy: Taxonomy
) -> Match:
    """A scope from the merchant's own categories (any level of any path, product types too).

    The primary paths holding that level stay `merchant` (as before); the taxonomy node is the one
    most of the level's rows map to, unless other own categories share it (then the scope stays the
    merchant's own: "Teak Loungers" is not all of Sunloungers) or it is a top-level node (a level
    mapped across Furniture is no reason to call all of Furniture the scope)."""
    cats = tuple(sorted(own.level_names.get(variant, ())))
    counter: Counter = Counter()
    for p in prefixes:
        counter.update(own.own_prefix_ids.get(p, Counter()))
    level = prefixes[0].rsplit(" > ", 1)[-1]
    m = _from_merchant(cats, text, own, taxonomy, counter)
    named = list(dict.fromkeys(i for i in (taxonomy.id_for_path(p) for p in prefixes) if i is not None))
    if len(named) == 1 and (
        m.taxonomy_id is None
        or taxonomy.is_within(m.taxonomy_id, named[0])
        # the node the phrase names exactly, filed so by the merchant, under the broader node its
        # category's few stray rows pull the common ancestor up to ("Necklaces" typed rows mapped to
        # Earrings): still the named node, never Jewelry
        or (taxonomy.is_within(named[0], m.taxonomy_id) and name_tokens(taxonomy.nodes[named[0]].name) == variant)
    ):
        # the merchant's path is a taxonomy path ("Furniture > Chairs", as Shopify writes categories):
        # that node is the scope, not the narrower one its few products happen to sit in
        node = named[0]
        m = Match(
            node, tuple(sorted(set(cats) | set(_merchant_inside(node, own, taxonomy)))), text, taxonomy.nodes[node].name
        )
    if m.taxonomy_id is not None and not (len(named) == 1 and m.taxonomy_id == named[0]):
        held = sum(n for g, n in counter.items() if g is not None and taxonomy.is_within(g, m.taxonomy_id))
        node_words = {w for v in _variants(name_tokens(taxonomy.nodes[m.taxonomy_id].name)) for w in v}
        node_rows = own.node_rows.get(m.taxonomy_id, 0)
        related = set(variant) <= node_words
        if not related and held >= OWN_NODE_ALONE_SHARE * node_rows:
            m.label = level  # "Deck Box" is all of Outdoor Storage Boxes: the node, under the merchant's name
        elif held < OWN_NODE_SHARE * node_rows or not related:
            # the level is finer than the taxonomy node ("Teak Loungers" under Sunloungers), or the
            # node is named otherwise ("Clothing Tops" whose products sit across Clothing, "DIY
            # Blueprint" mapped to Craft Paint): the scope stays the merchant's own category rather
            # than being widened to, or renamed as, the node
            m = Match(None, cats, text, level)
    if m.taxonomy_id is None:
        m.label = level
    m.own_paths, m.own_label = prefixes, level
    return m


def _from_merchant(cats: tuple[str, ...], text: str, own: OwnIndex, taxonomy: Taxonomy, counter: Counter) -> Match:
    """The taxonomy node of merchant categories: the deepest node holding most of their rows (`counter`:
    rows per Google id), never a top-level one; `_from_own` decides whether it may stand for them."""
    mapped = {g: n for g, n in counter.items() if g is not None}
    node_id = None
    if mapped:
        total = sum(counter.values())
        # lowest common ancestor of the mapped ids carrying most rows
        paths = [taxonomy.nodes[g].path.split(" > ") for g in mapped if g in taxonomy.nodes]
        common_levels = []
        for levels in zip(*paths):
            if len(set(levels)) == 1:
                common_levels.append(levels[0])
            else:
                break
        if len(common_levels) >= 2 and sum(mapped.values()) / total >= MERCHANT_INCLUDE_SHARE:
            node_id = taxonomy.id_for_path(" > ".join(common_levels))
    last_level = _shared_level(cats, text) if cats else text
    if node_id is not None:
        inside = set(_merchant_inside(node_id, own, taxonomy))
        return Match(node_id, tuple(sorted(set(cats) | inside)), text, taxonomy.nodes[node_id].name)
    return Match(None, cats, text, last_level)


def _shared_level(cats: tuple[str, ...], text: str) -> str:
    """The level name (original spelling) that the matched categories share, for the answer's title."""
    want = tuple(text.split())
    for level in re.split(r"\s*(?:>|/|\|)\s*", cats[0]):
        if name_tokens(level) in _variants(want) or "".join(name_tokens(level)) == "".join(want):
            return level.strip()
    return cats[0].split(">")[-1].strip() if len(cats) == 1 else text


def _partial(
    phrase: tuple[str, ...], own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex, with_data: bool = True
) -> Match | None:
    """Nodes whose name contains every word of the phrase (fewest extra words wins); with_data limits
    the search to nodes the catalog has products in.

    The phrase's noun (its last word), when it names products of its own somewhere in the taxonomy
    (`_is_product_noun`: "light" in Flood & Spot Lights, "coffee" in Coffee, "bed" in Beds), must be
    one of the name's product nouns, not only a modifier of another: "lights" on an electrical shop
    without lighting picked Light Switches (a switch is no light), "coffee" would pick Coffee Tables,
    and "pet beds" on a pet shop picked Pet Bed Accessories (an accessory is no bed; its one bed was
    counted there by title, under that name), "car seats" Car Seat Accessories before Baby & Toddler
    Car Seats. Such a phrase goes on to the later passes (an exact name without products, the titles,
    or said unmatched). A word that is no product noun anywhere ("hair", "bath") still finds the
    names it leads (Hair Care, Bath Towels)."""
    if len(phrase) == 1 and phrase[0] in EQUIVALENT:
        return None  # "outdoor" is in too many names to pick one
    best = None
    for variant in [v for v in _variants(phrase) if len(v) == len(phrase)]:  # dropping "patio" is for exact names only
        want = set(variant)
        posting = set.intersection(*(tax_idx.by_token.get(t, set()) for t in want)) if want else set()
        candidates = [(i, own.node_rows.get(i, 0)) for i in posting if not with_data or own.node_rows.get(i, 0)]
        for node_id, n in candidates:
            name = tax_idx.names.get(node_id, ())
            if not _names_its_noun(phrase[-1], taxonomy.nodes[node_id].name) and _is_product_noun(
                phrase[-1], taxonomy, tax_idx
            ):
                continue
            if want <= set(name):
                key = (_extra_words(variant, node_id, taxonomy, tax_idx), -n, taxonomy.nodes[node_id].depth)
                if best is None or key < best[0]:
                    best = (key, node_id)
        if best:
            break
    if best is None:
        return None
    node = best[1]
    return Match(node, _merchant_inside(node, own, taxonomy), " ".join(phrase), taxonomy.nodes[node].name)


def _extra_words(phrase: tuple[str, ...], node_id: int, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> int:
    """How many words a name adds to the phrase, none when one part of its joined name is the phrase:
    "food" is the Food of Food, Beverages & Tobacco, which holds it as written, and less than Prepared
    Foods, which narrows it. A food shop's "Where are the gaps in food?" (held-out
    balancedbitesdev/balancedbites: desserts, meals, salads) was answered for Prepared Foods, 2 of its
    29 active products."""
    if phrase in _name_parts(taxonomy.nodes[node_id].name):  # Measuring Tools & Sensors: measuring sensors
        return 0
    return len(tax_idx.names.get(node_id, ())) - len(phrase)


def partial_sold(phrase: tuple[str, ...], own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> Match | None:
    """A taxonomy node the catalog has products in whose name holds every word of the phrase (`_partial`):
    for the planner's check that a shop holds a word as written before reading it as a synonym."""
    return _partial(phrase, own, taxonomy, tax_idx)


MAX_PHRASE_WORDS = 6  # category names are short; longer word runs are tried in windows of this size


def word_runs(seq: list[str], used: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of unused, non-stopword tokens (start, end exclusive).

    An "and" between two content words stays inside the run ("watering and irrigation" is one name);
    phrase matching ignores it, as category names are indexed without "and"/"&".
    """

    def content(i: int) -> bool:
        return 0 <= i < len(seq) and i not in used and seq[i] not in STOPWORDS

    runs, start = [], None
    for i in range(len(seq) + 1):
        ok = content(i) or (i < len(seq) and seq[i] == "and" and i not in used and content(i - 1) and content(i + 1))
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            runs.append((start, i))
            start = None
    return runs


def phrase_at(seq: list[str], i: int, j: int) -> tuple[str, ...]:
    return tuple(t for t in seq[i:j] if t != "and")


Span = tuple[int, int]


def resolve(
    seq: list[str], used: set[int], own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex
) -> tuple[Match | None, Span | None, Span | None]:
    """(match, its token span, unmatched span).

    Passes, most specific first:
      A. for each phrase length, longest first: exact names the catalog has products in (merchant
         category levels, taxonomy nodes), then taxonomy nodes with products whose name holds every word;
      B. the node with products sharing the most words (two or more) with a whole run of words
         ("outdoor dining sets" → Outdoor Furniture Sets);
      C. exact taxonomy names without products (an honest empty scope: a subcategory not sold);
      D. taxonomy nodes without products whose name holds every word of a phrase of two or more words;
      E. own categories whose name ends with the phrase ("Road Bikes", "Track Bikes" for "bikes"),
         then, for two words or more, own categories with a joined name one of whose parts is the
         phrase ("Amino Acids & Blends" for "amino acids": a broader reading, said; a single word
         goes on to the titles, which are closer: "printables" are the titles saying so before all
         of "Party Games & Printables");
      C, D and E are tried per phrase length, longest first;
      F. a single noun that leads a family of taxonomy names resolves to the family's head ("dog" →
         Dog Supplies, which holds Dog Beds, Dog Toys…), with a note that this is a broader reading.
    Within one length, a phrase after "in/for/of…" and nearer the end of the question goes first: that
    is where scopes are named ("do I cover all price points in planters"). A phrase always ends where
    its run of words ends — the product noun is last, so "sofa covers" never becomes Sofas — and an
    exact taxonomy name of two or more words is taken, even unsold, before a shorter phrase with
    products ("outdoor furniture" is never all of Furniture); a shorter phrase that drops words is
    said in a note (see plan).
    A lone "outdoor"/"patio"/"garden" never picks a node by itself.
    """
    runs = word_runs(seq, used)
    by_len = _phrases_by_length(seq, runs)
    lengths = sorted(by_len, reverse=True)

    def sold(phrase: tuple[str, ...]) -> Match | None:
        return match_phrase(phrase, own, taxonomy, tax_idx, True)

    def named(phrase: tuple[str, ...]) -> Match | None:
        return match_phrase(phrase, own, taxonomy, tax_idx, False)

    def partly_sold(phrase: tuple[str, ...]) -> Match | None:
        return _partial(phrase, own, taxonomy, tax_idx)

    def partly_named(phrase: tuple[str, ...]) -> Match | None:
        return _partial(phrase, own, taxonomy, tax_idx, with_data=False)

    def own_kinds(phrase: tuple[str, ...]) -> Match | None:
        return _own_kinds(phrase, own)

    def leads(phrase: tuple[str, ...]) -> Match | None:
        return leading(phrase, taxonomy, tax_idx)

    def own_parts(phrase: tuple[str, ...]) -> Match | None:
        return _own_parts(phrase, own)

    # A, per length: the full name, even unsold, before a shorter one
    passes: list[tuple[list[int], tuple[Callable[[tuple[str, ...]], Match | None], ...]]] = [
        ([length], (sold, partly_sold, named) if length >= 2 else (sold,)) for length in lengths
    ]
    hit = _first_of_passes(by_len, passes)
    if hit is None:
        for start, end in runs:  # B
            m = _overlap(phrase_at(seq, start, end), own, taxonomy, tax_idx)
            if m:
                return m, (start, end), None
        # A's partial names for single words; C, D and E longest phrase first ("pond pumps" before "pond"); F
        passes = [([1], (partly_sold,))]
        passes += [
            ([length], (named, partly_named, own_kinds, own_parts) if length >= 2 else (named, own_kinds))
            for length in lengths
        ]
        passes += [([1], (leads,))]  # F. "dog" → Dog Supplies: the name its word leads
        hit = _first_of_passes(by_len, passes)
    if hit is not None:
        return hit[0], hit[1], None
    # an unmatched phrase only counts when introduced as a scope ("in spaceships", "for spaceships"), or
    # as what is counted ("how many bikinis do I have?": else the whole catalog's count came back unsaid)
    for start, end in runs:
        if start > 0 and (seq[start - 1] in PREPOSITION_TOKENS or tuple(seq[max(0, start - 2) : start]) == COUNTED):
            return None, None, (start, end)
    return None, None, None


# "how many" as read (every language's "wie viele", "quantos", "сколько" is read as it): the words
# right after it name what is counted
COUNTED = ("how", "many")


# one candidate phrase of `resolve`: (its length without "and", start, end, the phrase, after a preposition)
_Candidate = tuple[int, int, int, tuple[str, ...], bool]


def _phrases_by_length(seq: list[str], runs: list[tuple[int, int]]) -> dict[int, list[_Candidate]]:
    """The phrases `resolve` tries, grouped by length: each ends where its run of words ends (the product
    noun is last), within a length those after "in/for/of…" and nearer the question's end first, and a
    repeated phrase once."""
    spans: list[_Candidate] = []
    for start, end in runs:
        for length in range(min(end - start, MAX_PHRASE_WORDS), 0, -1):
            i = end - length  # a phrase keeps its run's last word, the product noun ("sofa covers" is no sofa)
            phrase = phrase_at(seq, i, i + length)
            if phrase and phrase[-1] != "and" and seq[i] != "and":
                after_prep = i > 0 and (
                    seq[i - 1] in PREPOSITION_TOKENS
                    or (i == start and start > 0 and seq[start - 1] in PREPOSITION_TOKENS)
                )
                spans.append((len(phrase), i, i + length, phrase, after_prep))
    spans.sort(key=lambda x: (-x[0], not x[4], -x[1]))
    seen: set[tuple[str, ...]] = set()
    by_len: dict[int, list[_Candidate]] = {}
    for sp in spans:  # a repeated phrase is tried once
        if sp[3] not in seen:
            seen.add(sp[3])
            by_len.setdefault(sp[0], []).append(sp)
    return by_len


def _first_of_passes(
    by_len: dict[int, list[_Candidate]],
    passes: list[tuple[list[int], tuple[Callable[[tuple[str, ...]], Match | None], ...]]],
) -> tuple[Match, Span] | None:
    """The first match in pass order: for each (lengths, attempts), each attempt over every phrase of
    those lengths in `resolve`'s order."""
    for lengths, attempts in passes:
        for length in lengths:
            for attempt in attempts:
                for _, i, j, phrase, _ in by_len.get(length, []):
                    m = attempt(phrase)
                    if m:
                        return m, (i, j)
    return None


def leading(phrase: tuple[str, ...], taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> Match | None:
    """The head of the taxonomy names a single noun leads: "dog" → Dog Supplies, "cat" → Cat Supplies.

    Taken only when it is unambiguous: the shallowest node whose name starts with the word is the only
    one at its depth, its name's first word is the noun as written ("Dog", not "Filling" for "filled"),
    and it holds every other node whose name starts with it (Dog Beds, Dog Toys…) — so
    "horse" (Horse Care beside Horse Tack) or "bird" pick nothing, and a lone "outdoor"/"patio"/
    "garden" never does. Tried last, after every closer reading (exact names, own categories)."""
    if len(phrase) != 1 or phrase[0] in EQUIVALENT or phrase[0] in STOPWORDS:
        return None
    word = phrase[0]
    family = [i for i in tax_idx.by_token.get(word, ()) if tax_idx.names.get(i, ())[:1] == (word,)]
    if not family:
        return None
    top = min(taxonomy.nodes[i].depth for i in family)
    heads = [i for i in family if taxonomy.nodes[i].depth == top]
    if len(heads) != 1 or not all(i == heads[0] or taxonomy.is_within(i, heads[0]) for i in family):
        return None
    node = taxonomy.nodes[heads[0]]
    if (
        node.name.split()[0].casefold() != word
    ):  # the noun as written ("Dog"), not a form of it ("Filling" for "filled")
        return None
    note = (
        (
            f"No category is called “{word}”; the scope is {node.name} ({node.path}), the category whose name "
            f"starts with it and holds the others that do."
        )
        if tax_idx.names.get(node.id) != phrase
        else None
    )
    return Match(node.id, (), word, node.name, note=note)


def _overlap(phrase: tuple[str, ...], own: OwnIndex, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> Match | None:
    """The node with products sharing the most words with the phrase (at least two, and at least half)."""
    if len(phrase) < 2:
        return None
    best = None
    for variant in [v for v in _variants(phrase) if len(v) == len(phrase)]:
        want = set(variant)
        for node_id, n in own.node_rows.items():
            name = set(tax_idx.names.get(node_id, ()))
            shared = len(want & name)
            if shared >= 2 and shared * 2 >= len(want):
                key = (-shared, len(name) - shared, -n, taxonomy.nodes[node_id].depth)
                if best is None or key < best[0]:
                    best = (key, node_id)
    if best is None:
        return None
    node = best[1]
    return Match(node, _merchant_inside(node, own, taxonomy), " ".join(phrase), taxonomy.nodes[node].name)


def _nearness(phrase: str, name: str) -> tuple:
    """Sort key of a category name (tokens joined) as a suggestion for a phrase: names that share a word
    with it first ("dog" → "Dog Beds" before "Outdoor Seating", which only looks alike), then spelling."""
    shared = len(set(phrase.split()) & set(name.split()))
    return (-shared, -difflib.SequenceMatcher(None, phrase, name).ratio(), name)


def nearest(phrase: str, own: OwnIndex, taxonomy: Taxonomy, limit: int = 5) -> tuple[str, ...]:
    """Closest existing categories: merchant level names and taxonomy nodes with products.

    Deterministic: a level name written several ways ("Chairs", "chairs") is shown as written in the
    first of its category values in sorted order, never in a set's order (which changes with
    PYTHONHASHSEED from one process to the next), and ties in nearness keep that order."""
    names: dict[str, str] = {}
    for toks, cats in own.level_names.items():
        for c in sorted(cats):
            last = c.split(">")[-1].strip()
            names.setdefault(" ".join(toks), last)
    for node_id in own.node_rows:
        node = taxonomy.nodes.get(node_id)
        if node is not None and node.depth >= 2:
            names.setdefault(" ".join(name_tokens(node.name)), node.name)
    if not names:
        for node in taxonomy.nodes.values():
            if node.depth <= 2:
                names.setdefault(" ".join(name_tokens(node.name)), node.name)
    scored = sorted(names, key=lambda k: _nearness(phrase, k))
    out: list[str] = []
    for k in scored:
        if names[k] not in out:
            out.append(names[k])
    return tuple(out[:limit])


def to_scope(match: Match | None, taxonomy: Taxonomy) -> Scope:
    if match is None:
        return Scope()
    node = taxonomy.node(match.taxonomy_id) if match.taxonomy_id is not None else None
    return Scope(
        label=match.label,
        taxonomy_id=node.id if node else None,
        taxonomy_path=node.path if node else None,
        merchant_categories=match.merchant,
        phrase=match.phrase,
        own_paths=match.own_paths,
        own_label=match.own_label,
        widened=match.note,
    )


def _accessories_of(node_id: int, taxonomy: Taxonomy) -> tuple[int, ...]:
    """The sibling "<name> Accessories" node ("Outdoor Furniture" → "Outdoor Furniture Accessories"):
    a merchant asking about a range means its accessories too (covers of outdoor furniture)."""
    node = taxonomy.node(node_id)
    if node is None or node.parent_id is None:
        return ()
    want = node.name + " Accessories"
    return tuple(c for c in taxonomy.children_of(node.parent_id) if taxonomy.nodes[c].name == want)


def _subcategory_names(node_id: int, taxonomy: Taxonomy, limit: int = 8) -> str:
    names = sorted(taxonomy.nodes[c].name for c in taxonomy.children_of(node_id))
    if not names:
        return "no subcategories"
    return ", ".join(names[:limit]) + (" and others" if len(names) > limit else "")


def _title_terms(phrase: tuple[str, ...]) -> tuple[str, ...]:
    """(noun, *modifiers) of a scope phrase: its last word names the product."""
    words = tuple(t for t in phrase if t != "and" and t not in STOPWORDS)
    if not words or (len(words) == 1 and words[0] in EQUIVALENT) or words[-1].isdigit():
        return ()
    return (words[-1],) + words[:-1]


MAX_SUBCATEGORY_TERMS = 400  # a broad scope ("Home & Garden") is left to the mapping, not to title words


def _name_parts(name: str, shared: bool = True) -> list[tuple[str, ...]]:
    """A taxonomy name's product names: "Skillets & Frying Pans" → (skillet,), (frying, pan).

    With `shared`, a lone word after a first name of several words shares that name's modifiers:
    "Skin Cleansing Brushes & Systems" are skin cleansing systems, "Electrical Wires & Cable"
    electrical cable (the lone words read alone are `_with_subcategories`' title_subterms_alone)."""
    out: list[tuple[str, ...]] = []
    for part in re.split(r"\s*(?:&|,|\band\b)\s*", name):
        toks = name_tokens(part)
        if toks:
            out.append(toks)
    if shared and out and len(out[0]) > 1:
        out = [out[0]] + [out[0][:-1] + toks if len(toks) == 1 else toks for toks in out[1:]]
    return out


def _with_subcategories(scope: Scope, own: OwnIndex, taxonomy: Taxonomy) -> Scope:
    """The scope's taxonomy subcategories named by the merchant's own categories or product titles:
    a type "frying-pans" or a title "Cast Iron Frying Pan" is in Cookware (Skillets & Frying Pans),
    whatever the mapping made of it. Both count as found through the taxonomy, not as the category
    the merchant named. Only for scopes of a few hundred subcategory names."""
    from agent.analysis.scoping import subtree_ids

    ids = subtree_ids(scope, taxonomy)
    if not ids:
        return scope
    names = [p for i in ids for p in _name_parts(taxonomy.nodes[i].name) if _asked(i, p, scope, taxonomy)]
    if len(names) > MAX_SUBCATEGORY_TERMS:
        return scope
    alone = {
        p for i in ids for p in _name_parts(taxonomy.nodes[i].name, shared=False) if _asked(i, p, scope, taxonomy)
    } - set(names)
    alone = {p for p in alone if not _names_a_node_elsewhere(p, set(ids), taxonomy)}
    sub_paths: set[str] = set()
    for toks in names:
        sub_paths |= own.own_levels.get(toks, set())
        for alt in own.own_joined.get("".join(toks), ()):
            sub_paths |= own.own_levels[alt]
    # a standard path's level above the node is no subcategory of it, though stemmed alike ("Baby &
    # Toddler > Diapering" holding wipes, for Diapers)
    sub_paths = {p for p in sub_paths if not (scope.taxonomy_path or "").startswith(p + " > ")}
    sub = tuple(sorted({(t[-1],) + t[:-1] for t in names if not t[-1].isdigit()}))
    lone = tuple(sorted({(t[-1],) + t[:-1] for t in alone if not t[-1].isdigit()} - set(sub)))
    return replace(
        scope,
        own_subpaths=tuple(sorted(sub_paths - set(scope.own_paths))),
        title_subterms=sub,
        title_subterms_alone=lone,
    )


def _asked(cid: int, part: tuple[str, ...], scope: Scope, taxonomy: Taxonomy) -> bool:
    """Whether a part of a subcategory's name is a title term of the scope: every part is, except the
    other halves of the scope node's own joined name when the question named one half. "shirts" is
    Shirts & Tops, but a title "Premier Low Top" (a held-out shop's sneakers) is no shirt; "shirts and
    tops" names the whole and takes both."""
    if cid != scope.taxonomy_id or not scope.phrase:
        return True
    parts = _name_parts(taxonomy.nodes[cid].name)
    asked = name_tokens(scope.phrase)
    return len(parts) < 2 or asked not in parts or part == asked


_CYRILLIC = re.compile("[\u0400-\u04ff]")
RUSSIAN_TITLE_SAMPLE = 200  # distinct titles looked at to tell whether a shop titles in Cyrillic


def _with_russian_name(scope: Scope, own: pa.Table | None, taxonomy: Taxonomy) -> Scope:
    """A Cyrillic-titled shop's scope also finds, by title, the node's Russian name ("Диваны" for Sofas).

    A Russian question's words are read as Google's English names ("диванов" → Sofas), and a scope's
    title terms are the English words: a Russian shop whose sofas are titled "Диван угловой …" and
    filed under no Google category (a slug "divany-i-kresla") had "Сколько у меня диванов?" answered
    "no active products". The node's name in Google's Russian taxonomy (each part of a joined one) is
    one more subcategory name its titles may hold, counted like the others. Only for shops whose
    titles are written in Cyrillic (a sample of the distinct titles), and only the node's own name."""
    if scope.taxonomy_id is None or own is None or "title" not in own.column_names or own.num_rows == 0:
        return scope
    from agent.analysis.vocabulary import tokens
    from agent.catalog.taxonomy import load_locale
    from agent.catalog.values import as_dictionary

    sample = as_dictionary(own["title"]).dictionary.slice(0, RUSSIAN_TITLE_SAMPLE).to_pylist()
    if not any(t and _CYRILLIC.search(str(t)) for t in sample):
        return scope
    path = load_locale("ru-RU").get(scope.taxonomy_id)
    if not path:
        return scope
    parts = [tuple(tokens(p)) for p in re.split(r"\s*(?:,|\bи\b)\s*", path.rsplit(" > ", 1)[-1])]
    extra = tuple((t[-1], *t[:-1]) for t in parts if t and (t[-1], *t[:-1]) not in scope.title_subterms)
    return replace(scope, title_subterms=scope.title_subterms + extra) if extra else scope


def _names_a_node_elsewhere(part: tuple[str, ...], ids: set[int], taxonomy: Taxonomy) -> bool:
    """Is a lone word of a subcategory name ("Suits" of Snow Pants & Suits) the whole name of a node
    outside the scope (Apparel & Accessories > Clothing > Suits)? Then it is that node's word, and a
    title naming it is no product of this scope: "outerwear" counted ~120 business suits through
    Snow Pants & Suits."""
    from agent.analysis.vocabulary import taxonomy_index

    holders = taxonomy_index(taxonomy).by_tokens.get(part, ())
    return any(h not in ids for h in holders)


def nearest_own(phrase: str, own: OwnIndex, limit: int = 5) -> tuple[str, ...]:
    """The merchant's own category names closest to the phrase (any level), most similar first."""
    names: dict[str, str] = {}
    for toks, prefixes in own.own_levels.items():
        names.setdefault(" ".join(toks), sorted(prefixes)[0].rsplit(" > ", 1)[-1])
    ranked = sorted(names, key=lambda k: _nearness(phrase, k))
    out: list[str] = []
    for k in ranked:
        if names[k] not in out:
            out.append(names[k])
    return tuple(out[:limit])


def _sentences(*parts: str | None) -> str | None:
    """Notes on how a scope is wider than the words, one after the other (None when there are none)."""
    return " ".join(p for p in parts if p) or None


def placed(
    scope: Scope,
    own: pa.Table | None,
    own_idx: OwnIndex,
    taxonomy: Taxonomy,
    phrase: tuple[str, ...],
    title_only: bool = False,
) -> Scope | None:
    """The scope with its accessories, title terms and counts of how its products were found.

    Title-only (no category named the phrase): None when no title names it either. When nothing
    holds the strict phrase but titles name its noun, the noun alone is used and the scope says so.
    An empty scope names the nearest own categories and the catalog's unplaced products."""
    from agent.analysis import scoping

    scope = _with_accessories(scope, own_idx, taxonomy)
    terms = _title_terms(phrase)
    scope = replace(scope, title_terms=terms)
    scope = _with_subcategories(scope, own_idx, taxonomy)
    scope = _with_russian_name(scope, own, taxonomy)
    if own is None or own.num_rows == 0:
        return None if title_only else scope
    found = scoping.found(own, scope, taxonomy)
    total = sum(n for _, n in found)
    half = None if title_only else _read_as_half(scope, own, own_idx, taxonomy, phrase, total)
    if half is not None:
        return half
    if total == 0 and len(terms) > 1:  # "pond pumps" whose titles only say "pump"
        loose = replace(scope, title_terms=terms[:1], title_noun_only=True)
        loose_found = scoping.found(own, loose, taxonomy)
        if sum(n for _, n in loose_found):
            words = scope.phrase or " ".join(phrase)  # as the merchant wrote it
            note = (
                f"No category and no title names “{words}”; the scope holds the products whose title names "
                f"a {terms[0]}."
            )
            scope, found, total = (
                replace(loose, widened=_sentences(loose.widened, note)),
                loose_found,
                sum(n for _, n in loose_found),
            )
    if title_only and total == 0 and len(terms) == 1:  # "hoops" whose titles say "Hoop Earrings"
        words = scope.phrase or " ".join(phrase)
        described = _described_by(own, terms[0], words, taxonomy)
        if described is not None:
            note = (
                f"No category and no title names “{words}” as its product; the scope holds the products whose "
                f"title names it with the same noun, as “{described[2]}” does."
            )
            scope = replace(scope, title_terms=described[:2], widened=_sentences(scope.widened, note))
            found = scoping.found(own, scope, taxonomy)
            total = sum(n for _, n in found)
    if title_only and total == 0:
        return None
    foreign = not title_only and _in_an_empty_branch(own, own_idx, scope, taxonomy, found, phrase)
    if foreign or (
        not title_only
        and (_another_sense(own, scope, taxonomy, found) or _only_a_modifier(own, scope, taxonomy, phrase))
    ):
        words = scope.phrase or " ".join(phrase)
        by_title = placed(Scope(label=words, phrase=words), own, own_idx, taxonomy, phrase, title_only=True)
        if by_title is not None:
            return by_title
        if foreign:  # titles hold the word only beside another noun: the merchant's word, empty, and said
            return placed(Scope(label=words, phrase=words), own, own_idx, taxonomy, phrase)
    scope, found = _named_joins_only(own, scope, taxonomy, found)
    scope = replace(scope, found=found)
    if total == 0:
        scope = replace(scope, nearest=nearest_own(" ".join(phrase), own_idx), unplaced=scoping.unplaced(own))
    return scope


def _with_accessories(scope: Scope, own_idx: OwnIndex, taxonomy: Taxonomy) -> Scope:
    """The scope widened by its node's accessories (they belong to the range), said in the scope."""
    extra = _accessories_of(scope.taxonomy_id, taxonomy) if scope.taxonomy_id is not None else ()
    if not extra or scope.taxonomy_id is None:
        return scope
    inside = set(scope.merchant_categories)
    for e in extra:
        inside |= set(_merchant_inside(e, own_idx, taxonomy))
    parts = [f"{taxonomy.nodes[i].name} ({_subcategory_names(i, taxonomy)})" for i in (scope.taxonomy_id, *extra)]
    widened = (
        f"{taxonomy.nodes[extra[0]].name} is counted with {taxonomy.nodes[scope.taxonomy_id].name}: the "
        f"accessories belong to the range. Covered: " + "; ".join(parts) + "."
    )
    return replace(
        scope,
        extra_taxonomy_ids=extra,
        extra_taxonomy_paths=tuple(taxonomy.nodes[e].path for e in extra),
        merchant_categories=tuple(sorted(inside)),
        widened=_sentences(scope.widened, widened),
    )


def _read_as_half(
    scope: Scope, own: pa.Table, own_idx: OwnIndex, taxonomy: Taxonomy, phrase: tuple[str, ...], total: int
) -> Scope | None:
    """ "socks" read as all of Underwear & Socks: the scope of Google's own node for the half asked,
    or, when nothing is filed or titled as that half, that empty scope with the joined count said;
    None when the phrase is no half of a joined name with a node of its own."""
    others = _other_halves(scope, taxonomy, phrase)
    if not others or scope.taxonomy_id is None:
        return None
    half = _half_node(scope, taxonomy, phrase)
    if half is not None:
        m = Match(half, _merchant_inside(half, own_idx, taxonomy), scope.phrase or " ".join(phrase), "")
        m.label = taxonomy.nodes[half].name
    else:
        kinds = _own_kinds_of_half(scope, own_idx, taxonomy, phrase)
        if kinds is None:
            return None
        m = kinds
    narrower = placed(to_scope(m, taxonomy), own, own_idx, taxonomy, phrase)
    if narrower is None or any(n for _, n in narrower.found) or not total:
        return narrower
    words = (scope.phrase or " ".join(phrase)).lower()
    name = taxonomy.nodes[scope.taxonomy_id].name
    asked = name.lower().replace(" & ", " and ")
    note = (
        f"None of your active products is filed or titled as {words}; {total:,} "
        f"{'is' if total == 1 else 'are'} filed under {name}, which holds {' and '.join(others)} together "
        f"with {words}: ask for “{asked}” to count {'it' if total == 1 else 'them'}."
    )
    return replace(narrower, widened=_sentences(narrower.widened, note))


def _own_kinds_of_half(scope: Scope, own_idx: OwnIndex, taxonomy: Taxonomy, phrase: tuple[str, ...]) -> Match | None:
    """The half of a joined name that has no node of its own ("coats" of Coats & Jackets, which Google
    does not split), read as the shop's own categories that are kinds of it ("Wrap Coats"), with the
    titles naming it; None when the shop files no such kind (then the joined name is the reading:
    "beauty" is all of Health & Beauty, "spirits" of Liquor & Spirits, "perfume" of Perfume & Cologne).

    A held-out women's-clothing export (sergio-nezhigay/spain-store) answered "How many coats do I
    have?" with all 14 products of Coats & Jackets, its blazers and jackets among them, while it files
    4 as Wrap Coats; the joined name's count is said beside (`planner._say_joined_google_name`)."""
    joined = name_tokens(taxonomy.nodes[scope.taxonomy_id].name) if scope.taxonomy_id is not None else ()
    kinds = _own_kinds(phrase, own_idx)
    paths = tuple(p for p in kinds.own_paths if name_tokens(p.rsplit(" > ", 1)[-1]) != joined) if kinds else ()
    if kinds is None or not paths:
        return None
    words = scope.phrase or " ".join(phrase)
    levels = sorted({p.rsplit(" > ", 1)[-1] for p in paths})
    return Match(None, (), words, words, own_paths=paths, own_label=levels[0] if len(levels) == 1 else None)


def _content(phrase: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t for t in phrase if t != "and")


def _other_halves(scope: Scope, taxonomy: Taxonomy, phrase: tuple[str, ...]) -> tuple[str, ...]:
    """The other parts of the scope's joined taxonomy name, as written and lower-cased, when the phrase
    is one part of it ("underwear" of Underwear & Socks → ("socks",)); () otherwise."""
    if scope.taxonomy_id is None or scope.own_paths:
        return ()
    want = _content(phrase)
    parts = [p for p in re.split(r"\s*(?:&|,|\band\b)\s*", taxonomy.nodes[scope.taxonomy_id].name) if p.strip()]
    if len(parts) < 2 or want not in [name_tokens(p) for p in parts]:
        return ()
    return tuple(p.lower() for p in parts if name_tokens(p) != want)


def _half_node(scope: Scope, taxonomy: Taxonomy, phrase: tuple[str, ...]) -> int | None:
    """The node named exactly by the phrase inside the scope's node, when the phrase is only one part
    of the node's joined name: Socks inside Underwear & Socks for "socks".

    A shop filing its socks and its trunks under Underwear & Socks (the joined name, not the leaf) had
    "How many socks do I have?" read as the whole joined category, trunks included. Read as Socks,
    the products filed under the broader Underwear & Socks whose titles say socks are counted by title
    (a title refines a broader filing); `placed` keeps that reading when it finds products, else
    stays with the joined node and says that it holds both."""
    if scope.taxonomy_id is None or scope.own_paths:
        return None
    want = _content(phrase)
    parts = _name_parts(taxonomy.nodes[scope.taxonomy_id].name, shared=False)
    if len(parts) < 2 or want not in parts:
        return None
    from agent.analysis.vocabulary import taxonomy_index

    inside = [
        i
        for i in taxonomy_index(taxonomy).by_tokens.get(want, ())
        if i != scope.taxonomy_id and taxonomy.is_within(i, scope.taxonomy_id)
    ]
    return min(inside, key=lambda i: (taxonomy.nodes[i].depth, i)) if inside else None


def _in_an_empty_branch(
    own: pa.Table,
    own_idx: OwnIndex,
    scope: Scope,
    taxonomy: Taxonomy,
    found: tuple[tuple[str, int], ...],
    phrase: tuple[str, ...],
) -> bool:
    """Is the scope a taxonomy name the words only lead or share (not the name itself), holding nothing,
    in a top-level branch where the shop has no product at all, while the shop's titles hold the word?

    A shoe and clothing shop's "flats", "wedges", "platforms" and "ponchos" were read as Flat Mineral
    Water, Wedge Tools, Platform & Paddle Tennis and Poncho Liners (the names those words lead), empty,
    while its titles said "Ballet Flat", "Cork Wedge Sandal", "Platform Boot", "Knit Poncho Wrap". The
    reading that lands where the shop holds products is its titles': counted by the title's product
    noun as any title scope, or, when the titles hold the word only beside another noun, an empty scope
    under the merchant's word that says which titles name it (`planner._say_titles_outside`). An exact
    Google name ("saddles" = Saddles) keeps its reading: the merchant used the taxonomy's own word."""
    if scope.taxonomy_id is None or scope.own_paths or any(n for _, n in found) or not scope.title_terms:
        return False
    if name_tokens(taxonomy.nodes[scope.taxonomy_id].name) == tuple(t for t in phrase if t != "and"):
        return False
    for node_id in (scope.taxonomy_id, *scope.extra_taxonomy_ids):
        top = taxonomy.node(node_id)
        while top is not None and top.parent_id is not None:
            top = taxonomy.node(top.parent_id)
        if top is None or own_idx.node_rows.get(top.id, 0):
            return False
    return titles_say(own, scope.title_terms[0])


def titles_say(own: pa.Table, word: str) -> bool:
    """Does any title hold the (stemmed) word, in any of its written forms, as a whole word?"""
    from agent.analysis import scoping
    from agent.catalog.values import as_dictionary

    if "title" not in own.column_names or own.num_rows == 0:
        return False
    titles = as_dictionary(own["title"]).dictionary  # the distinct titles, as the title match reads them
    if not pa.types.is_string(titles.type):
        titles = titles.cast(pa.string())
    pattern = scoping._whole_word([scoping._word_forms(word)])
    return bool(pc.any(pc.fill_null(pc.match_substring_regex(titles, pattern), False)).as_py())


def _titles_derive(own: pa.Table, stem: str) -> bool:
    """Does any title hold a word made from the stem, beyond its own forms ("photograph": Photographic)?
    Its own forms ("Fire Pit Heater" for "pits") are the title rule's to read; a stem of one or two
    letters begins too many words to tell, and is taken as held."""
    from agent.catalog.values import as_dictionary

    if "title" not in own.column_names:
        return False
    if len(stem) < 3:
        return True
    titles = as_dictionary(own["title"]).dictionary
    if not pa.types.is_string(titles.type):
        titles = titles.cast(pa.string())
    longer = pc.fill_null(pc.match_substring_regex(titles, r"(?i)(?:^|[^\pL\pN])" + re.escape(stem) + r"\pL"), False)
    made = re.compile(rf"(?<![^\W\d_]){re.escape(stem)}(?!(?:s|es|ings?)?(?![^\W\d_]))[^\W\d_]", re.I)
    return any(made.search(t) for t in titles.filter(longer).to_pylist())


def _named_joins_only(
    own: pa.Table, scope: Scope, taxonomy: Taxonomy, found: tuple[tuple[str, int], ...]
) -> tuple[Scope, tuple[tuple[str, int], ...]]:
    """The scope without the joined merchant categories outside its taxonomy path that add no product
    (`scoping.idle_joins`), and its counts again when one was dropped. Categories at or under the path,
    or under a category the question named, stay: the merchant's "Sunloungers > Teak Loungers" is
    named as part of Sunloungers, a Spanish shop's "Cables eléctricos" as the category asked for."""
    from agent.analysis import scoping

    roots = [p for p in (scope.taxonomy_path, *scope.extra_taxonomy_paths, *scope.own_paths) if p]
    if scope.taxonomy_id is None or not roots:
        return scope, found
    outside = tuple(c for c in scope.merchant_categories if not any(c == r or c.startswith(r + " > ") for r in roots))
    idle = scoping.idle_joins(own, scope, taxonomy, outside) if outside else ()
    if not idle:
        return scope, found
    kept = replace(scope, merchant_categories=tuple(c for c in scope.merchant_categories if c not in idle))
    return kept, scoping.found(own, kept, taxonomy)


def _described_by(own: pa.Table, word: str, asked: str, taxonomy: Taxonomy) -> tuple[str, str, str] | None:
    """(noun, word, an example title) when the catalog's titles hold the word only before one product
    noun: a jewellery shop's seven "… Hoop Earrings" are what "hoops" means there. That noun must be
    the noun of at least half of the titles holding the word (else it describes too many kinds).

    A word the taxonomy places on its own (`asked`, as the merchant wrote it) is a product of its own,
    and a title that only uses it before another product noun names what that product is *for*: a
    home shop's "Wooden Jacket Hanger" is a hanger, and "How many jackets?" counted it as a jacket.
    "hoops", "studs" or "drops" have no one place (hula, basketball or embroidery hoops), so the shop's
    titles may say what they mean there."""
    from agent.analysis import scoping
    from agent.catalog.categorise import name_match

    if "title" not in own.column_names or name_match(asked, None, None) is not None:
        return None
    titles = pc.unique(pc.cast(own["title"], pa.string()))
    pattern = scoping._whole_word([scoping._word_forms(word)])
    held = titles.filter(pc.fill_null(pc.match_substring_regex(titles, pattern), False)).to_pylist()
    if not held:
        return None
    nouns = Counter(scoping._noun_of(t, None) for t in held)
    noun, n = nouns.most_common(1)[0]
    if not noun or noun == word or n * 2 < len(held):
        return None
    return noun, word, next(t for t in held if scoping._noun_of(t, None) == noun)


def _another_sense(own: pa.Table, scope: Scope, taxonomy: Taxonomy, found: tuple[tuple[str, int], ...]) -> bool:
    """Is the taxonomy node the wrong sense of the merchant's word: nothing is filed in it, and the
    products whose titles name the word are all placed under another top-level branch?

    "Which of my creams are out of stock?" on a skincare shop (tests/corpus/shopify/ayonne-skincare.csv)
    named Food > Dairy Products > Cream, the one taxonomy node called Cream, while the three creams its
    titles name are filed under Health & Beauty: the counts were right, the label was a dairy product.
    Filed by the merchant under Skin Care, the same creams were no creams at all (a title never moves a
    product filed elsewhere into a node's scope). Then the scope is the titles' alone, labelled with the
    merchant's word. Titles no category places leave the node standing (a dairy shop with unmapped
    titles means dairy cream)."""
    from agent.analysis import scoping

    counts = dict(found)
    if scope.taxonomy_id is None or counts.get("own", 0) or counts.get("taxonomy", 0):
        return False
    terms = (
        ((scope.title_terms,) if scope.title_terms else ())
        + tuple(scope.title_subterms)
        + tuple(scope.title_subterms_alone)
    )
    if not terms or "google_category_id" not in own.column_names:
        return False
    node = taxonomy.node(scope.taxonomy_id)
    while node is not None and node.parent_id is not None:
        node = taxonomy.node(node.parent_id)
    if node is None:
        return False
    # the titles' own hits, before the rule that keeps products filed elsewhere out of a node's scope:
    # filed under Skin Care, a skincare shop's creams are all "elsewhere" to dairy cream
    named = scoping.title_mask(own, terms, taxonomy)
    gids = {g for g in own["google_category_id"].filter(pa.array(named)).to_pylist() if g is not None}
    if not gids or any(taxonomy.is_within(g, node.id) for g in gids):
        return False
    return _sense_where_filed(scope.title_terms[0] if scope.title_terms else terms[0][0], gids, taxonomy)


SENSE_DEPTH = (
    2  # the branch a product's category sits in, for the word's other sense: "Health & Beauty > Personal Care"
)


def _sense_where_filed(noun: str, gids: set[int], taxonomy: Taxonomy) -> bool:
    """Does the noun name a taxonomy node in the branch (second level) of each category the titled
    products are filed in: is it a product word *there*?

    A title names a word without being one: on a Spanish electrical shop (tests/corpus/shopify/
    fluke-electrical-es.csv) 17 switches of the "Black Mirror" finish, filed under Electrical Switches,
    answered "Where are the gaps in mirrors?" as 17 mirrors; "Anchor Hoodie"s filed under Outerwear
    were anchors (lake-erie-apparel.tsv), "CAMISETA ... BASIC" t-shirts were basics. The creams of a
    skincare shop are creams: Personal Care has creams of its own (Shaving Cream, Cuticle Cream & Oil).
    Where the word names nothing in the products' branch, the node of the word's own sense stands."""
    from agent.analysis.vocabulary import taxonomy_index

    holders = taxonomy_index(taxonomy).by_token.get(noun, set())
    if not holders:
        return False
    for g in gids:
        branch = taxonomy.node(g)
        while branch is not None and branch.depth > SENSE_DEPTH and branch.parent_id is not None:
            branch = taxonomy.node(branch.parent_id)
        if branch is None or not any(taxonomy.is_within(h, branch.id) for h in holders):
            return False
    return True


def _only_a_modifier(own: pa.Table, scope: Scope, taxonomy: Taxonomy, phrase: tuple[str, ...]) -> bool:
    """Does the node hold the merchant's one word only as a modifier of another noun, while the
    catalog's titles name it as their own noun and place those products elsewhere?

    "How many facials do I have?" on a beauty salon's export named Facial Cleansers, the one sold node
    whose name holds "facial": its products are cleansers (and treatments the salon filed there), while
    the fifteen treatments called "… Facial" sit under Facial Cleansing Kits, Skin Care or nowhere.
    Then the scope is the titles' alone, labelled with the merchant's word. A word the node names as a
    product noun (Cakes of Cakes & Dessert Bars) keeps it, and so does a domain word whose titled
    products are mostly filed inside the node ("hair": Hair Care holding the hair oils and masks)."""
    from agent.analysis import scoping

    if len(phrase) != 1 or scope.taxonomy_id is None or scope.own_paths or not scope.title_terms:
        return False
    name = taxonomy.nodes[scope.taxonomy_id].name
    if phrase[0] not in name_tokens(name) or _names_its_noun(phrase[0], name):
        return False
    if "google_category_id" not in own.column_names or "product_key" not in own.column_names:
        return False
    named = scoping.title_mask(own, (scope.title_terms,), taxonomy)
    if not named.any():
        return False
    rows = own.filter(pa.array(named)).select(["product_key", "google_category_id"]).to_pylist()
    inside = {
        r["product_key"]
        for r in rows
        if r["google_category_id"] is not None and taxonomy.is_within(r["google_category_id"], scope.taxonomy_id)
    }
    return len(inside) * 2 < len({r["product_key"] for r in rows})


def _is_product_noun(word: str, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> bool:
    """Does some taxonomy name hold the word as a product noun ("light": Flood & Spot Lights)?
    Memoised per taxonomy index (a pure function of the bundled taxonomy)."""
    memo = _PRODUCT_NOUN_MEMO.setdefault(id(tax_idx), {})
    if word not in memo:
        memo[word] = any(_names_its_noun(word, taxonomy.nodes[i].name) for i in tax_idx.by_token.get(word, ()))
    return memo[word]


_PRODUCT_NOUN_MEMO: dict[int, dict[str, bool]] = {}


def names_a_product(word: str, taxonomy: Taxonomy, tax_idx: TaxonomyIndex) -> bool:
    """Do most of the Google names holding the word hold it as their product noun (the last word of a
    part)? "jackets" (7 of 8: Life Jackets, Coats & Jackets…), "bags", "helmets", "goggles" name things;
    "horse" (5 of 22: Horse Tack, Horse Care…) and "bird" (Bird & Wildlife Feeders) mostly say what
    products are for, so a lone one names no product the shop could lack (`planner._say_none_held`)."""
    ids = tax_idx.by_token.get(word, ())
    nouns = sum(1 for i in ids if _names_its_noun(word, taxonomy.nodes[i].name))
    return bool(ids) and nouns * 2 >= len(ids)


def _names_its_noun(word: str, name: str) -> bool:
    """The word is one of the name's product nouns (the last word of a part): "pots" in Pots &
    Planters, "cakes" in Cakes & Dessert Bars, but not "facial" in Facial Cleansers."""
    return any(part[-1] == word for part in _name_parts(name))


_LEADING = {"my", "the", "our", "your", "all", "of"}


def own_claim(seq: list[str], own: OwnIndex) -> Span | None:
    """An own category named whole after a scope preposition, even when its name holds question or
    intent words ("gaps in Tools for the Garden", "stock in Picture Frames"): its span, longest first.

    Right after "how many" too: what follows is what is counted. "How many Health & Beauty do I have?"
    read "health" as content quality's word and counted the taxonomy's Beauty instead of the merchant's
    37 products, "How many Fabric-by-the-Yard do I have?" dropped "by the" and matched nothing, "How
    many Winter Collection do I have?" dropped "collection" and counted 72 hoodies titled "winter".
    There a name made only of intent words is not claimed ("how many brands" stays brand coverage,
    even in a shop with a category called Brands)."""
    if not own.own_levels:
        return None
    best = None
    for i in range(1, len(seq)):
        counted = tuple(seq[max(0, i - 2) : i]) == COUNTED
        if seq[i - 1] not in PREPOSITION_TOKENS and not counted:
            continue
        starts = [i]  # the name as written ("All Disposables"), then without "my/the/all…" before it
        while starts[-1] < len(seq) and seq[starts[-1]] in _LEADING:
            starts.append(starts[-1] + 1)
        for start in starts:
            for j in range(min(len(seq), start + MAX_PHRASE_WORDS + 2), start, -1):
                if j < len(seq) and seq[j] not in STOPWORDS:  # "garden" of "garden furniture" is no name
                    continue
                if _cuts_an_and(seq, j):  # "shirts" of "shirts and tops" is no name either
                    continue
                phrase = phrase_at(seq, start, j)
                if counted and all(t in INTENT_VOCAB or t in STOPWORDS for t in phrase):
                    continue
                if phrase and (phrase in own.own_levels or "".join(phrase) in own.own_joined):
                    if best is None or j - start > best[1] - best[0]:
                        best = (start, j)
                    break
            if best is not None and best[0] == start:
                break
    return best


def _cuts_an_and(seq: list[str], j: int) -> bool:
    """Whether a phrase ending before `j` stops at an "and" that joins two content words: the run goes on
    ("watering and irrigation", word_runs), and a phrase always ends where its run ends.

    "How many shirts and tops do I have?" on a held-out print-on-demand shop with a product type "Shirt"
    claimed that type (8 products) and dropped "and tops", while the Google category the words name,
    Shirts & Tops, holds 59 of its products."""
    return j + 1 < len(seq) and seq[j] == "and" and seq[j + 1] not in STOPWORDS


def scope_for(
    toks: tuple[str, ...],
    display: str,
    own: pa.Table | None,
    own_idx: OwnIndex,
    taxonomy: Taxonomy,
    tax_idx: TaxonomyIndex,
) -> Scope | None:
    """A remembered scope phrase (already corrected) resolved again, by the rules the first turn used:
    categories first, then titles — and a category found for only part of the phrase ("suits" of
    "night suits") gives way to titles naming the whole phrase, as it did when the question was asked,
    so "and pricing?" stays on the 97 night suits instead of moving to every suit."""
    m, span, _ = resolve(list(toks), set(), own_idx, taxonomy, tax_idx)
    if m is not None:
        m = as_written(m, display, own_idx, taxonomy, tax_idx)
        content = [t for t in toks if t not in STOPWORDS and t != "and"]
        partial = m.shortened or (
            span is not None and len([t for t in toks[span[0] : span[1]] if t != "and"]) < len(content)
        )
        if partial:
            by_title = placed(Scope(label=display, phrase=display), own, own_idx, taxonomy, toks, title_only=True)
            if by_title is not None and not by_title.widened:
                return by_title
        m.phrase = display
        return placed(to_scope(m, taxonomy), own, own_idx, taxonomy, toks)
    by_title = placed(Scope(label=display, phrase=display), own, own_idx, taxonomy, toks, title_only=True)
    return by_title or none_held(display, own, own_idx, taxonomy, tax_idx, toks)


def none_held(
    label: str,
    own: pa.Table | None,
    own_idx: OwnIndex,
    taxonomy: Taxonomy,
    tax_idx: TaxonomyIndex,
    phrase: tuple[str, ...],
) -> Scope | None:
    """The empty scope of a product the taxonomy names (`names_a_product`) that the shop holds no trace
    of — no own category or title has its noun or a word made from it, no Google category it has
    products in names it (`resolve` found none) — labelled with the words as written; None otherwise. No node is guessed:
    the scope is the words, by title, and the answer says nothing is there.

    Held-out shops (vintage lighting, a food shop, electronics parts, motorbike luggage, helmets) asked
    "How many jackets do I have?" and heard "No category matches “jackets”; nearest: Baskets, Tea
    Sets…" with the whole catalog counted: "jackets" is half of Google's Coats & Jackets and the noun
    of narrower names (Life Jackets), so no node is its own; "helmets", "goggles", "gloves", "frames"
    and "bags" alike."""
    noun = phrase[-1:]
    if not label or not noun or own is None or own.num_rows == 0 or not names_a_product(noun[0], taxonomy, tax_idx):
        return None
    if noun[0] in own_idx.vocab or any(w.startswith(noun[0]) for w in own_idx.vocab) or _titles_derive(own, noun[0]):
        return None  # "photographs" beside a type Photography and "Photographic Print" titles: a trace
    scope = placed(Scope(label=label, phrase=label), own, own_idx, taxonomy, phrase)
    return scope if scope is not None and not any(n for _, n in scope.found) else None
