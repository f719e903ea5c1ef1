"""Question -> skills and scope, deterministically (SPEC §5, issue 4 point 2).

0. Other languages (German, Dutch, Portuguese, Spanish, French, Italian, Polish, Russian): their intent
   words and category names are first mapped onto the English tokens below (`lexicon.to_english`).
1. Normalise: case folded, accents folded, punctuation dropped, light stemming ("chairs" → "chair", "loungers" →
   "lounger", "seating" → "seat"), British/American spellings folded; words of five letters or more
   that are not known are corrected to the closest known word ("avaliability", "furnture").
2. Intents: per skill a vocabulary of words and phrases; every skill whose vocabulary matches runs, in
   the registry's stable order. "missing" alone means gaps only when nothing more specific matched
   ("missing images" is content quality, "missing materials" attribute coverage).
3. Scope: the words left over are matched, longest phrase first, against the merchant's own category
   names (any level of any of a product's own paths, product types included — `own_categories`) and
   the Google taxonomy (names with "patio" / "garden" / "outdoor" / "yard" tried as equivalents; "sun
   loungers" = "Sunloungers"); the most specific matching node wins, preferring nodes the catalog
   actually has products in. An own category named whole after "in" is taken even when its name holds
   question words ("gaps in Tools for the Garden"). Merchant categories whose rows mostly map inside the
   node are included and named. An own category stands for a taxonomy node only when it holds most of
   that node's rows (OWN_NODE_SHARE), never for a top-level node: a scope is not widened silently.
   A node's "<name> Accessories" sibling is included (Outdoor Furniture with Outdoor Furniture
   Accessories), and the answer says so and names their subcategories.
4. Titles are the third place: products whose title's noun (`catalog.nouns`) is the phrase's noun, or
   a subcategory name of the scope's node ("Stock Pot" in Cookware). Words that match no category are
   tried against titles before they are called unmatched ("pond pumps", "how are my loungers priced?").
   The scope's population is every active product any of the three places there, each counted once
   (`agent.analysis.scoping`); `Scope.found` says how many came from each, and an empty scope names the
   nearest own categories and the catalog's unplaced products.
5. A phrase after "in/for/about…" that matches nothing anywhere is reported with the nearest categories
   that exist; the analysis then covers the whole catalog. No intent at all → catalog_overview plus a
   line listing what the agent answers. Question words ("options", "items", "products", "range",
   "stuff", "catalog", "store") are stopwords: never a scope, even when a category is called so.
6. Follow-ups ("and pricing?", "what about lighting?") reuse the previous scope or skills from
   PlanMemory, which the context stores between turns; the memory keeps the phrase as it resolved
   (typos corrected), and "across the whole catalog" / "overall" / "everything" reset the scope.
7. Competitor, market and share words mark the scope `wants_reference`: a skill that needs a
   reference catalog and has none says so first (render.text.MISSING).
"""

from __future__ import annotations

import difflib
import functools
import re
import weakref
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis.result import Scope
from agent.catalog.cache import Cache
from agent.catalog.taxonomy import Taxonomy

CAPABILITIES_NOTE = (
    "I can answer questions like: “Where are the gaps in outdoor furniture?”, “What is out of stock in patio "
    "furniture?”, “Do I have entry-level and premium options in outdoor chairs?”, “Which materials or colours am I "
    "missing in outdoor seating?”, “Which brands do competitors carry that I don't?” and “Is my catalog ready for "
    "Google Shopping?”. Here is an overview of the catalog."
)
# Share of a merchant category's rows that must map inside a taxonomy scope for the category to be included.
MERCHANT_INCLUDE_SHARE = 0.5
# Share of a taxonomy node's rows an own category must hold for the node to stand for it: "Hoodies"
# is not all of Shirts & Tops when the merchant's Tshirts are there too (that would widen the scope).
OWN_NODE_SHARE = 0.8
# ...and when the node is named otherwise ("Deck Box" for Outdoor Storage Boxes), nearly all of them.
OWN_NODE_ALONE_SHARE = 0.95
SKILL_ORDER = (
    "assortment_gaps",
    "price_ladder",
    "attribute_coverage",
    "brand_coverage",
    "availability",
    "content_quality",
    "catalog_overview",
    "demand_gaps",
)
FALLBACK = "catalog_overview"


@dataclass(frozen=True)
class PlanMemory:
    """What a context remembers between turns, so "and pricing?" knows what "it" was. JSON-able."""

    skills: tuple[str, ...] = ()
    scope_phrase: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"skills": list(self.skills), "scope_phrase": self.scope_phrase}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "PlanMemory":
        data = data or {}
        skills = tuple(str(s) for s in data.get("skills") or () if str(s) in SKILL_ORDER)
        phrase = data.get("scope_phrase")
        return cls(skills=skills, scope_phrase=str(phrase) if phrase else None)


@dataclass(frozen=True)
class Plan:
    skills: tuple[str, ...]
    scope: Scope
    notes: tuple[str, ...]
    memory: PlanMemory


# --- normalisation ------------------------------------------------------------------------------------------
_SPELLING = {
    "colour": "color",
    "colours": "colors",
    "grey": "gray",
    "catalogue": "catalog",
    "jewellery": "jewelry",
    "aluminium": "aluminum",
    "sunlounger": "sunlounger",
    "favourite": "favorite",
    "organise": "organize",
    "barbeque": "barbecue",
    "bbq": "barbecue",
    "bbqs": "barbecue",
    "e-commerce": "ecommerce",
}
_KEEP = {
    "glass",
    "grass",
    "mattress",
    "dress",
    "class",
    "gas",
    "canvas",
    "news",
    "this",
    "is",
    "was",
    "has",
    "does",
    "less",
    "series",
    "species",
    "chassis",
    "always",
    "across",
    "plus",
    "bus",
    "status",
    "analysis",
    "gps",
    "ss",
    "us",
    "yes",
    "its",
    "his",
    "process",
    "access",
    "cactus",
    "lotus",
    "compass",
    "boss",
    "moss",
    "press",
    "stress",
}


def stem(word: str) -> str:
    """Light, symmetric stemming: applied to the question and to every category name alike.

    Accents are folded first ("Gartenmöbel" ~ "gartenmobel"), on both sides; the English endings below
    touch only words that end like English ones. Other languages' endings: `lexicon.stem`.
    """
    w = word if word.isascii() else _fold(word)
    w = _SPELLING.get(w, w)
    if w in _KEEP or len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 6:
        w = w[:-3]
    return w


def _fold(word: str) -> str:
    from agent.analysis.lexicon import fold

    return fold(word)


# Letters of any script (case folded); "d'extérieur", "l'assortimento": the elided article is dropped.
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_ELISION = {"l", "d", "j", "m", "n", "s", "t", "c", "qu", "dell", "all", "dall", "nell", "sull", "un"}


def tokens(text: str) -> list[str]:
    return [stem(t) for t in raw_tokens(text)]


def raw_tokens(text: str) -> list[str]:
    """Lower-cased words as written (what notes quote back); `tokens` is the same list, stemmed."""
    text = text.casefold().replace("&", " and ").replace("e-commerce", "ecommerce").replace("in-stock", "in stock")
    text = re.sub(r"out-of-stock", "out of stock", text)
    text = re.sub(r"(\w)-(\w)", r"\1 \2", text)
    out = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0).replace("’", "'")
        if "'" in tok:
            head, tail = tok.split("'", 1)
            tok = tail if head in _ELISION else head if not tok.endswith("n't") else tok.replace("n't", "nt")
        out.append(tok)
    return out


# --- intents -------------------------------------------------------------------------------------------------
INTENTS: dict[str, tuple[str, ...]] = {
    "assortment_gaps": (
        "gap",
        "gaps",
        "assortment",
        "whitespace",
        "white space",
        "under indexed",
        "underindexed",
        "under represented",
        "underrepresented",
        "thin",
        "holes in my range",
        "hole in my range",
        "what don't i sell",
        "what do i not sell",
        "dont sell",
        "don't sell",
        "do not sell",
        "not selling",
        "subcategories",
        "subcategory",
        "category coverage",
        "range coverage",
        "opportunities",
        "opportunity",
        "expand",
        "what should i add",
        "what to add",
        "weak spots",
        "weak spot",
        "share index",
        "missing categories",
        "missing subcategories",
        "empty categories",
        "empty category",
        "breadth",
        "depth of range",
        "weak",
        "weakest",
        "weakness",
        "weaknesses",
        "strengths",
        "where am i light",
        "under-served",
        "underserved",
        "blind spots",
        "blind spot",
        "too few",
        "not enough",
        "few products",
        "stack up",
        "measure up",
        "shortfall",
        "shortfalls",
    ),
    "price_ladder": (
        "price",
        "prices",
        "pricing",
        "priced",
        "cheap",
        "cheapest",
        "expensive",
        "premium",
        "entry level",
        "entry-level",
        "entry price",
        "budget",
        "luxury",
        "tier",
        "tiers",
        "good better best",
        "ladder",
        "price point",
        "price points",
        "discount",
        "discounts",
        "discounted",
        "sale",
        "on sale",
        "markdown",
        "markdowns",
        "affordable",
        "high end",
        "high-end",
        "low end",
        "price range",
        "compare at",
        "msrp",
        "cost",
        "costs",
        "percentile",
        "percentiles",
        "median price",
        "price band",
        "price bands",
        "price gap",
        "price gaps",
        "competitive",
        "price distribution",
    ),
    "attribute_coverage": (
        "attribute",
        "attributes",
        "colour",
        "colours",
        "color",
        "colors",
        "material",
        "materials",
        "size",
        "sizes",
        "sizing",
        "fabric",
        "fabrics",
        "finish",
        "finishes",
        "option values",
        "variant options",
        "option axes",
        "fill rate",
        "fill rates",
        "specs",
        "specification",
        "specifications",
        "dimensions",
    ),
    "brand_coverage": (
        "brand",
        "brands",
        "vendor",
        "vendors",
        "manufacturer",
        "manufacturers",
        "supplier",
        "suppliers",
        "maker",
        "makers",
        "single vendor",
        "label",
        "labels",
        "marques",
        "who makes",
        "made by",
    ),
    "availability": (
        "stock",
        "stocked",
        "out of stock",
        "in stock",
        "inventory",
        "availability",
        "not available",
        "unavailable",
        "sold out",
        "can't be bought",
        "cant be bought",
        "cannot be bought",
        "can not be bought",
        "backorder",
        "backorders",
        "back order",
        "preorder",
        "pre order",
        "oos",
        "restock",
        "restocking",
        "stockout",
        "stockouts",
        "quantity",
        "quantities",
    ),
    "content_quality": (
        "quality",
        "content",
        "google shopping",
        "merchant center",
        "shopping feed",
        "feed",
        "gtin",
        "gtins",
        "barcode",
        "barcodes",
        "ean",
        "upc",
        "image",
        "images",
        "photo",
        "photos",
        "picture",
        "pictures",
        "description",
        "descriptions",
        "title",
        "titles",
        "completeness",
        "complete",
        "incomplete",
        "data quality",
        "errors",
        "error",
        "disapproved",
        "disapprovals",
        "ready for",
        "readiness",
        "seo",
        "listing",
        "listings",
        "duplicate",
        "duplicates",
        "invalid",
        "check digit",
        "missing data",
        "fix",
        "clean up",
        "cleanup",
        "problems",
        "issues",
        "health",
        "wrong",
        "mistakes",
        "broken",
        "disapproval",
        "policy violations",
    ),
    "catalog_overview": (
        "overview",
        "summary",
        "summarise",
        "summarize",
        "summarise",
        "what is in",
        "what's in",
        "whats in",
        "what is this",
        "what's this",
        "describe",
        "tell me about",
        "contents",
        "breakdown",
        "break down",
        "statistics",
        "stats",
        "profile",
        "snapshot",
        "size of my catalog",
        "what do i have",
        "what do i sell",
        "what have i got",
        "overall picture",
        "at a glance",
        "columns",
        "format",
        "look like",
        "how big",
        "what kind of products",
        "how many products and",
        "how many products do",
        "how many products have",
        "how many items do",
        "how many skus do",
    ),
    "demand_gaps": (
        "best sellers",
        "best seller",
        "bestsellers",
        "bestseller",
        "best selling",
        "best-selling",
        "top sellers",
        "top selling",
        "top-selling",
        "popular",
        "most popular",
        "popular brands",
        "popular products",
        "trending",
        "in demand",
        "demand",
        "relative demand",
        "shoppers buying",
        "shoppers buy",
        "shoppers are buying",
        "customers buying",
        "customers buy",
        "people buying",
        "people buy",
        "what sells",
        "what is selling",
        "what's selling",
        "selling well",
        "hot products",
    ),
}
# Words that name a skill only when nothing more specific does ("how many brands" is brand coverage;
# "colours available" is attribute coverage).
WEAK_INTENTS: dict[str, tuple[str, ...]] = {
    "catalog_overview": ("how many", "count", "counts", "number of", "which categories", "what categories"),
    "availability": ("available",),
}
# Verb uses consumed before intents are read: "do I stock", "we stock" are not stock levels.
NEUTRAL = (
    "i stock",
    "we stock",
    "you stock",
    "do i stock",
    "do we stock",
    "i carry",
    "we carry",
    "do i cover",
    "we cover",
    "i cover",
)
WEAK_GAPS = (
    "missing",
    "lack",
    "lacking",
    "competitor",
    "competitors",
    "compare",
    "comparison",
    "versus",
    "vs",
    "benchmark",
    "reference",
    "market",
    "coverage",
    "carry",
    "against",
)
FOLLOW_UP = (
    "and",
    "what about",
    "how about",
    "also",
    "same for",
    "now",
    "then",
    "ok",
    "okay",
    "and what about",
    "and for",
    "what of",
    "and in",
)
# Words that ask for someone else's catalog: brands or shares "competitors carry", "market share".
REFERENCE_WORDS = (
    "competitor",
    "competitors",
    "competition",
    "rival",
    "rivals",
    "market",
    "benchmark",
    "reference",
    "share",
    "shares",
    "share index",
    "other shops",
    "other stores",
    "others carry",
    "vs",
    "versus",
)
WHOLE_CATALOG = (
    "whole catalog",
    "entire catalog",
    "my catalog",
    "the catalog",
    "all products",
    "everything",
    "overall",
    "whole store",
    "my store",
    "my shop",
    "whole range",
    "all categories",
    "full catalog",
    "this catalog",
    "this file",
    "the file",
    "my products",
    "my feed",
    "the feed",
)
SCOPE_PREPOSITIONS = ("in", "for", "about", "within", "across", "among", "on", "of", "regarding", "around", "under")
STOPWORDS = set(
    "a an the my our your their his her its i we you they me us it this that these those is are was were be been being am do does did "
    "doing have has had having can could would should will shall may might must what which who whom whose where when why how "
    "there here in on at for of to from by with about into over under within across among around regarding and or but not no "
    "nor so than too very just also please show tell give list find see let lets let's get got any some all each every "
    "more most less least much many few lot lots other others such only own same both either neither anything something "
    "nothing where's what's whats who's how's i'm im ive i've id i'd dont don't doesnt doesn't isnt isn't arent aren't "
    "cant can't wont won't need want like look looking check analyse analyze analysis report current currently today now "
    "right well good bad ok okay hi hello hey thanks thank yes again still ever already whether if then else "
    "catalog catalogue store shop range product products item items sku skus variant variants line lines "
    "category categories section sections department departments stuff things thing one ones them they're "
    "carry carrying sell selling offer offering stock stocking have having got exist exists available "
    "where which would compare comparison against versus vs competitor competitors reference market rival rivals "
    "whole entire full overall everything total across business merchant file data snapshot question questions "
    "help doing going go are there here do status level levels right now currently show me "
    "option options choice choices selection selections offering offerings assortment assortments collection "
    "collections inventory goods listing listings entry entries kind kinds type types sort sorts".split()
)
STOPWORDS = {stem(w) for w in STOPWORDS} | STOPWORDS

_INTENT_TOKENS: dict[str, list[tuple[str, ...]]] = {
    skill: sorted({tuple(tokens(p)) for p in phrases}, key=len, reverse=True) for skill, phrases in INTENTS.items()
}
_WEAK_TOKENS = {tuple(tokens(p)) for p in WEAK_GAPS}
_INTENT_VOCAB = frozenset(t for ps in _INTENT_TOKENS.values() for p in ps for t in p if len(t) >= 3)
_WEAK_INTENT_TOKENS = {
    skill: sorted({tuple(tokens(p)) for p in ps}, key=len, reverse=True) for skill, ps in WEAK_INTENTS.items()
}
_NEUTRAL_TOKENS = sorted({tuple(tokens(p)) for p in NEUTRAL}, key=len, reverse=True)
_FOLLOW_TOKENS = sorted({tuple(tokens(p)) for p in FOLLOW_UP}, key=len, reverse=True)
_WHOLE_TOKENS = {tuple(tokens(p)) for p in WHOLE_CATALOG}
_PREP_TOKENS = {stem(p) for p in SCOPE_PREPOSITIONS}
_REFERENCE_TOKENS = {tuple(tokens(p)) for p in REFERENCE_WORDS}


def _find(seq: list[str], phrase: tuple[str, ...], used: set[int]) -> list[int] | None:
    n = len(phrase)
    for i in range(len(seq) - n + 1):
        if tuple(seq[i : i + n]) == phrase and not any(j in used for j in range(i, i + n)):
            return list(range(i, i + n))
    return None


def _intents(seq: list[str], claimed: set[int] | None = None) -> tuple[list[str], set[int]]:
    """Skills named by the question (stable order) and the token positions their words used.

    `claimed` positions (an own category named after "in": "gaps in Picture Frames") are no intent words."""
    found: set[str] = set()
    used: set[int] = set(claimed or ())
    for phrase in _NEUTRAL_TOKENS:
        hit = _find(seq, phrase, used)
        while hit is not None:
            used.update(hit)
            hit = _find(seq, phrase, used)
    # longest phrases first across all skills, so "out of stock" beats "stock", "price range" beats "range"
    candidates = sorted(((p, s) for s, ps in _INTENT_TOKENS.items() for p in ps), key=lambda x: -len(x[0]))
    for phrase, skill in candidates:
        while True:
            hit = _find(seq, phrase, used)
            if hit is None:
                break
            used.update(hit)
            found.add(skill)
    weak_found = set()
    for skill, phrases in _WEAK_INTENT_TOKENS.items():
        for phrase in phrases:
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
                weak_found.add(skill)
    if not found and weak_found:
        found = weak_found
    if not found:
        for phrase in _WEAK_TOKENS:
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
                found.add("assortment_gaps")
    else:
        for phrase in _WEAK_TOKENS:  # consume the words so they are not read as a scope
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
    return [s for s in SKILL_ORDER if s in found], used


# --- scope index ---------------------------------------------------------------------------------------------
_EQUIV = ("outdoor", "patio", "garden", "yard", "backyard", "exterior")


@dataclass
class _Index:
    by_tokens: dict[tuple[str, ...], list[int]]
    by_joined: dict[str, list[int]]
    by_token: dict[str, set[int]]  # word -> nodes whose name holds it (candidates for partial matches)
    vocab: frozenset[str]
    names: dict[int, tuple[str, ...]]


_TAX_CACHE: dict[int, _Index] = {}


@functools.lru_cache(maxsize=65536)
def _name_tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in tokens(name) if t != "and")


def _taxonomy_index(taxonomy: Taxonomy) -> _Index:
    key = id(taxonomy)
    cached = _TAX_CACHE.get(key)
    if cached is not None:
        return cached
    by_tokens: dict[tuple[str, ...], list[int]] = {}
    by_joined: dict[str, list[int]] = {}
    vocab: set[str] = set()
    names: dict[int, tuple[str, ...]] = {}
    for node in taxonomy.nodes.values():
        toks = _name_tokens(node.name)
        names[node.id] = toks
        by_tokens.setdefault(toks, []).append(node.id)
        by_joined.setdefault("".join(toks), []).append(node.id)
        vocab.update(toks)
    by_token: dict[str, set[int]] = {}
    for node_id, toks in names.items():
        for t in toks:
            by_token.setdefault(t, set()).add(node_id)
    idx = _Index(by_tokens, by_joined, by_token, frozenset(vocab), names)
    _TAX_CACHE.clear()
    _TAX_CACHE[key] = idx
    return idx


@dataclass
class _OwnIndex:
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


# Per table object (its identity checked through a weak reference): the package's one cache type.
_OWN_CACHE: Cache[tuple[Any, int, _OwnIndex]] = Cache(max_entries=8)


def _own_index(own: pa.Table | None, taxonomy: Taxonomy) -> _OwnIndex:
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


def _build_own_index(own: pa.Table | None, taxonomy: Taxonomy) -> _OwnIndex:
    node_rows: Counter = Counter()
    categories: dict[str, Counter] = {}
    level_names: dict[tuple[str, ...], set[str]] = {}
    if own is None or own.num_rows == 0:
        return _OwnIndex(node_rows, categories, level_names, {}, {}, {})
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
                level_names.setdefault(_name_tokens(level), set()).add(c)
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
        toks = _name_tokens(prefix.rsplit(" > ", 1)[-1])
        if toks and not all(t in STOPWORDS for t in toks):  # "Products", "All" are no scope
            own_levels.setdefault(toks, set()).add(prefix)
    own_joined: dict[str, list[tuple[str, ...]]] = {}
    for toks in own_levels:
        own_joined.setdefault("".join(toks), []).append(toks)
    names = tuple(sorted(set(categories) | set(own_prefix_ids)))
    return _OwnIndex(node_rows, categories, level_names, own_levels, own_prefix_ids, own_joined, names)


def _variants(phrase: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The phrase and its patio/garden/outdoor equivalents (original first)."""
    out = [phrase]
    for i, tok in enumerate(phrase):
        if tok in _EQUIV:
            for alt in _EQUIV:
                if alt != tok:
                    v = phrase[:i] + (alt,) + phrase[i + 1 :]
                    if v not in out:
                        out.append(v)
    if phrase and phrase[0] in _EQUIV and len(phrase) > 1:
        out.append(phrase[1:])  # "patio chairs" may be just "chairs" in a merchant's words (tried last)
    return out


@dataclass
class _Match:
    taxonomy_id: int | None
    merchant: tuple[str, ...]
    phrase: str
    label: str
    own_paths: tuple[str, ...] = ()  # own category path prefixes the phrase names
    own_label: str | None = None  # the own level name as the merchant wrote it
    shortened: bool = False  # found without one of the phrase's words ("garden lighting" as "Lighting")
    note: str | None = None  # the sentence that says the match is a broader reading of the words


def _best_node(ids: Iterable[int], own: _OwnIndex, taxonomy: Taxonomy) -> int | None:
    ids = list(ids)
    if not ids:
        return None
    # prefer nodes with products, then more products, then shallower (the broader reading of a name)
    return sorted(
        ids, key=lambda i: (-(own.node_rows.get(i, 0) > 0), -own.node_rows.get(i, 0), taxonomy.nodes[i].depth, i)
    )[0]


def _merchant_inside(node_id: int, own: _OwnIndex, taxonomy: Taxonomy) -> tuple[str, ...]:
    """Merchant categories whose rows mostly map inside the node's subtree (memoised on the index)."""
    key = (node_id, id(taxonomy))
    found = own.inside_memo.get(key)
    if found is None:
        found = own.inside_memo[key] = _merchant_inside_now(node_id, own, taxonomy)
    return found


def _merchant_inside_now(node_id: int, own: _OwnIndex, taxonomy: Taxonomy) -> tuple[str, ...]:
    inside = []
    for c, counter in own.categories.items():
        total = sum(counter.values())
        n_in = sum(n for g, n in counter.items() if g is not None and taxonomy.is_within(g, node_id))
        if total and n_in / total >= MERCHANT_INCLUDE_SHARE:
            inside.append(c)
    return tuple(sorted(inside))


def _match_phrase(
    phrase: tuple[str, ...], own: _OwnIndex, taxonomy: Taxonomy, tax_idx: _Index, with_data: bool = True
) -> _Match | None:
    """Exact matches (merchant level names, taxonomy names, joined spellings), equivalents tried in order.

    with_data=True accepts only names the catalog has rows in; False accepts any taxonomy name as written.
    """
    text = " ".join(phrase)
    # a lone "outdoor"/"patio"/"garden" matches only a category of that very name, never an equivalent
    variants = [phrase] if len(phrase) == 1 and phrase[0] in _EQUIV else _variants(phrase)
    for variant in variants:
        joined = "".join(variant)
        if with_data:
            prefixes = set(own.own_levels.get(variant, ()))
            for toks in own.own_joined.get(joined, ()):  # "Sunloungers" and a type "Sun Lounger" alike
                prefixes |= own.own_levels[toks]
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
                m = _from_own(tuple(sorted(prefixes)), variant, text, own, taxonomy)
                m.shortened = len(variant) < len(phrase)
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
            node = _best_node(ids, own, taxonomy)
            assert node is not None  # ids is not empty
            return _Match(node, _merchant_inside(node, own, taxonomy), text, taxonomy.nodes[node].name)
    return None


def _own_kinds(phrase: tuple[str, ...], own: _OwnIndex) -> _Match | None:
    """Own categories that are kinds of the phrase when no category has its very name: "bikes" holds
    "Road Bikes" and "Track Bikes" (the level ends with the phrase's words)."""
    if len(phrase) == 1 and phrase[0] in _EQUIV:
        return None
    prefixes: set[str] = set()
    n = len(phrase)  # the words as asked: "garden beds" are no "outdoor beds"
    for toks, found in own.own_levels.items():
        if len(toks) > n and toks[-n:] == phrase:
            prefixes |= found
    if not prefixes:
        return None
    text = " ".join(phrase)
    levels = sorted({p.rsplit(" > ", 1)[-1] for p in prefixes})
    return _Match(
        None, (), text, text, own_paths=tuple(sorted(prefixes)), own_label=levels[0] if len(levels) == 1 else None
    )


def _from_own(
    prefixes: tuple[str, ...], variant: tuple[str, ...], text: str, own: _OwnIndex, taxonomy: Taxonomy
) -> _Match:
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
    if len(named) == 1 and (m.taxonomy_id is None or taxonomy.is_within(m.taxonomy_id, named[0])):
        # the merchant's path is a taxonomy path ("Furniture > Chairs", as Shopify writes categories):
        # that node is the scope, not the narrower one its few products happen to sit in
        node = named[0]
        m = _Match(
            node, tuple(sorted(set(cats) | set(_merchant_inside(node, own, taxonomy)))), text, taxonomy.nodes[node].name
        )
    if m.taxonomy_id is not None and not (len(named) == 1 and m.taxonomy_id == named[0]):
        held = sum(n for g, n in counter.items() if g is not None and taxonomy.is_within(g, m.taxonomy_id))
        node_words = {w for v in _variants(_name_tokens(taxonomy.nodes[m.taxonomy_id].name)) for w in v}
        node_rows = own.node_rows.get(m.taxonomy_id, 0)
        related = set(variant) <= node_words
        if not related and held >= OWN_NODE_ALONE_SHARE * node_rows:
            m.label = level  # "Deck Box" is all of Outdoor Storage Boxes: the node, under the merchant's name
        elif held < OWN_NODE_SHARE * node_rows or not related:
            # the level is finer than the taxonomy node ("Teak Loungers" under Sunloungers), or the
            # node is named otherwise ("Clothing Tops" whose products sit across Clothing, "DIY
            # Blueprint" mapped to Craft Paint): the scope stays the merchant's own category rather
            # than being widened to, or renamed as, the node
            m = _Match(None, cats, text, level)
    if m.taxonomy_id is None:
        m.label = level
    m.own_paths, m.own_label = prefixes, level
    return m


def _from_merchant(cats: tuple[str, ...], text: str, own: _OwnIndex, taxonomy: Taxonomy, counter: Counter) -> _Match:
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
        return _Match(node_id, tuple(sorted(set(cats) | inside)), text, taxonomy.nodes[node_id].name)
    return _Match(None, cats, text, last_level)


def _shared_level(cats: tuple[str, ...], text: str) -> str:
    """The level name (original spelling) that the matched categories share, for the answer's title."""
    want = tuple(text.split())
    for level in re.split(r"\s*(?:>|/|\|)\s*", cats[0]):
        if _name_tokens(level) in _variants(want) or "".join(_name_tokens(level)) == "".join(want):
            return level.strip()
    return cats[0].split(">")[-1].strip() if len(cats) == 1 else text


def _partial(
    phrase: tuple[str, ...], own: _OwnIndex, taxonomy: Taxonomy, tax_idx: _Index, with_data: bool = True
) -> _Match | None:
    """Nodes whose name contains every word of the phrase (fewest extra words wins); with_data limits
    the search to nodes the catalog has products in."""
    if len(phrase) == 1 and phrase[0] in _EQUIV:
        return None  # "outdoor" is in too many names to pick one
    best = None
    for variant in [v for v in _variants(phrase) if len(v) == len(phrase)]:  # dropping "patio" is for exact names only
        want = set(variant)
        posting = set.intersection(*(tax_idx.by_token.get(t, set()) for t in want)) if want else set()
        candidates = [(i, own.node_rows.get(i, 0)) for i in posting if not with_data or own.node_rows.get(i, 0)]
        for node_id, n in candidates:
            name = tax_idx.names.get(node_id, ())
            if want <= set(name):
                key = (len(name) - len(want), -n, taxonomy.nodes[node_id].depth)
                if best is None or key < best[0]:
                    best = (key, node_id)
        if best:
            break
    if best is None:
        return None
    node = best[1]
    return _Match(node, _merchant_inside(node, own, taxonomy), " ".join(phrase), taxonomy.nodes[node].name)


MAX_TOKENS = 80  # a question longer than this is read by its first words (bounded work per turn)
MAX_PHRASE_WORDS = 6  # category names are short; longer word runs are tried in windows of this size
MAX_CORRECTIONS = 12  # unknown words looked up for typos per question


def _correct(
    seq: list[str], intent_vocab: frozenset[str], scope_vocab: frozenset[str], own_vocab: frozenset[str]
) -> list[str]:
    """Unknown words replaced by the closest known word (typos): "avaliability", "outdor furnture".

    Intent words are corrected from five letters at similarity 0.8; category words only from six letters
    at 0.85, so nonsense ("dolor") does not turn into a category ("door"). Candidates share the first
    letter and differ in length by at most two; lookups against the fixed vocabularies are cached, and at
    most MAX_CORRECTIONS words per question are looked up.
    """
    out = []
    budget = MAX_CORRECTIONS
    for tok in seq:
        known = tok in intent_vocab or tok in scope_vocab or tok in own_vocab or tok in STOPWORDS
        if budget and len(tok) >= 5 and not known and not tok.isdigit():
            budget -= 1
            fixed = _close(tok, intent_vocab, 0.8)
            if fixed is None and len(tok) >= 6:
                fixed = _close(tok, scope_vocab, 0.85) or _close_in(tok, sorted(own_vocab), 0.85)
            out.append(fixed or tok)
        else:
            out.append(tok)
    return out


@functools.lru_cache(maxsize=4096)
def _close(tok: str, vocab: frozenset[str], cutoff: float) -> str | None:
    return _close_in(tok, _bucket(vocab, tok[0]), cutoff)


@functools.lru_cache(maxsize=256)
def _bucket(vocab: frozenset[str], first: str) -> tuple[str, ...]:
    return tuple(sorted(w for w in vocab if w[:1] == first))


def _close_in(tok: str, words, cutoff: float) -> str | None:
    pool = [w for w in words if w[:1] == tok[:1] and abs(len(w) - len(tok)) <= 2]
    close = difflib.get_close_matches(tok, pool, n=1, cutoff=cutoff)
    return close[0] if close else None


def _runs(seq: list[str], used: set[int]) -> list[tuple[int, int]]:
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


def _phrase(seq: list[str], i: int, j: int) -> tuple[str, ...]:
    return tuple(t for t in seq[i:j] if t != "and")


Span = tuple[int, int]


def _resolve(
    seq: list[str], used: set[int], own: _OwnIndex, taxonomy: Taxonomy, tax_idx: _Index
) -> tuple[_Match | None, Span | None, Span | None]:
    """(match, its token span, unmatched span).

    Passes, most specific first:
      A. for each phrase length, longest first: exact names the catalog has products in (merchant
         category levels, taxonomy nodes), then taxonomy nodes with products whose name holds every word;
      B. the node with products sharing the most words (two or more) with a whole run of words
         ("outdoor dining sets" → Outdoor Furniture Sets);
      C. exact taxonomy names without products (an honest empty scope: a subcategory not sold);
      D. taxonomy nodes without products whose name holds every word of a phrase of two or more words;
      E. own categories whose name ends with the phrase ("Road Bikes", "Track Bikes" for "bikes");
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
    runs = _runs(seq, used)
    spans = []
    for start, end in runs:
        for length in range(min(end - start, MAX_PHRASE_WORDS), 0, -1):
            for i in range(start, end - length + 1):
                if i + length != end:  # a phrase keeps its run's last word, the product noun ("sofa covers" is no sofa)
                    continue
                phrase = _phrase(seq, i, i + length)
                if phrase and phrase[-1] != "and" and seq[i] != "and":
                    after_prep = i > 0 and (
                        seq[i - 1] in _PREP_TOKENS or (i == start and start > 0 and seq[start - 1] in _PREP_TOKENS)
                    )
                    spans.append((len(phrase), i, i + length, phrase, after_prep))
    spans.sort(key=lambda x: (-x[0], not x[4], -x[1]))
    seen: set[tuple[str, ...]] = set()
    kept = []
    for sp in spans:  # a repeated phrase is tried once
        if sp[3] not in seen:
            seen.add(sp[3])
            kept.append(sp)
    spans = kept
    by_len: dict[int, list] = {}
    for sp in spans:
        by_len.setdefault(sp[0], []).append(sp)
    for length in sorted(by_len, reverse=True):
        for _, i, j, phrase, _ in by_len[length]:
            m = _match_phrase(phrase, own, taxonomy, tax_idx, True)
            if m:
                return m, (i, j), None
        if length >= 2:
            for _, i, j, phrase, _ in by_len[length]:
                m = _partial(phrase, own, taxonomy, tax_idx)
                if m:
                    return m, (i, j), None
            for _, i, j, phrase, _ in by_len[length]:  # the full name, even unsold, before a shorter one
                m = _match_phrase(phrase, own, taxonomy, tax_idx, False)
                if m:
                    return m, (i, j), None
    for start, end in runs:
        m = _overlap(_phrase(seq, start, end), own, taxonomy, tax_idx)
        if m:
            return m, (start, end), None
    for _, i, j, phrase, _ in by_len.get(1, []):
        m = _partial(phrase, own, taxonomy, tax_idx)
        if m:
            return m, (i, j), None
    for length in sorted(by_len, reverse=True):  # C and D, longest phrase first ("pond pumps" before "pond")
        for _, i, j, phrase, _ in by_len[length]:
            m = _match_phrase(phrase, own, taxonomy, tax_idx, False)
            if m:
                return m, (i, j), None
        if length >= 2:
            for _, i, j, phrase, _ in by_len[length]:
                m = _partial(phrase, own, taxonomy, tax_idx, with_data=False)
                if m:
                    return m, (i, j), None
        for _, i, j, phrase, _ in by_len[length]:  # own categories that are kinds of it ("Road Bikes" for bikes)
            m = _own_kinds(phrase, own)
            if m:
                return m, (i, j), None
    for _, i, j, phrase, _ in by_len.get(1, []):  # F. "dog" → Dog Supplies: the name its word leads
        m = _leading(phrase, taxonomy, tax_idx)
        if m:
            return m, (i, j), None
    # an unmatched phrase only counts when introduced as a scope ("in spaceships", "for spaceships")
    for start, end in runs:
        if start > 0 and seq[start - 1] in _PREP_TOKENS:
            return None, None, (start, end)
    return None, None, None


def _leading(phrase: tuple[str, ...], taxonomy: Taxonomy, tax_idx: _Index) -> _Match | None:
    """The head of the taxonomy names a single noun leads: "dog" → Dog Supplies, "cat" → Cat Supplies.

    Taken only when it is unambiguous: the shallowest node whose name starts with the word is the only
    one at its depth, its name's first word is the noun as written ("Dog", not "Filling" for "filled"),
    and it holds every other node whose name starts with it (Dog Beds, Dog Toys…) — so
    "horse" (Horse Care beside Horse Tack) or "bird" pick nothing, and a lone "outdoor"/"patio"/
    "garden" never does. Tried last, after every closer reading (exact names, own categories)."""
    if len(phrase) != 1 or phrase[0] in _EQUIV or phrase[0] in STOPWORDS:
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
    return _Match(node.id, (), word, node.name, note=note)


def _overlap(phrase: tuple[str, ...], own: _OwnIndex, taxonomy: Taxonomy, tax_idx: _Index) -> _Match | None:
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
    return _Match(node, _merchant_inside(node, own, taxonomy), " ".join(phrase), taxonomy.nodes[node].name)


def _nearness(phrase: str, name: str) -> tuple:
    """Sort key of a category name (tokens joined) as a suggestion for a phrase: names that share a word
    with it first ("dog" → "Dog Beds" before "Outdoor Seating", which only looks alike), then spelling."""
    shared = len(set(phrase.split()) & set(name.split()))
    return (-shared, -difflib.SequenceMatcher(None, phrase, name).ratio(), name)


def _nearest(phrase: str, own: _OwnIndex, taxonomy: Taxonomy, limit: int = 5) -> tuple[str, ...]:
    """Closest existing categories: merchant level names and taxonomy nodes with products."""
    names: dict[str, str] = {}
    for toks, cats in own.level_names.items():
        for c in cats:
            last = c.split(">")[-1].strip()
            names.setdefault(" ".join(toks), last)
    for node_id in own.node_rows:
        node = taxonomy.nodes.get(node_id)
        if node is not None and node.depth >= 2:
            names.setdefault(" ".join(_name_tokens(node.name)), node.name)
    if not names:
        for node in taxonomy.nodes.values():
            if node.depth <= 2:
                names.setdefault(" ".join(_name_tokens(node.name)), node.name)
    scored = sorted(names, key=lambda k: _nearness(phrase, k))
    out: list[str] = []
    for k in scored:
        if names[k] not in out:
            out.append(names[k])
    return tuple(out[:limit])


def _scope(match: _Match | None, taxonomy: Taxonomy) -> Scope:
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
    if not words or (len(words) == 1 and words[0] in _EQUIV) or words[-1].isdigit():
        return ()
    return (words[-1],) + words[:-1]


MAX_TITLE_TRIES = 2  # word runs without "in" tried against titles, last first (bounded work per question)
MAX_SUBCATEGORY_TERMS = 400  # a broad scope ("Home & Garden") is left to the mapping, not to title words


def _name_parts(name: str) -> list[tuple[str, ...]]:
    """A taxonomy name's product names: "Skillets & Frying Pans" → (skillet,), (frying, pan)."""
    out = []
    for part in re.split(r"\s*(?:&|,|\band\b)\s*", name):
        toks = _name_tokens(part)
        if toks:
            out.append(toks)
    return out


def _with_subcategories(scope: Scope, own: _OwnIndex, taxonomy: Taxonomy) -> Scope:
    """The scope's taxonomy subcategories named by the merchant's own categories or product titles:
    a type "frying-pans" or a title "Cast Iron Frying Pan" is in Cookware (Skillets & Frying Pans),
    whatever the mapping made of it. Both count as found through the taxonomy, not as the category
    the merchant named. Only for scopes of a few hundred subcategory names."""
    from agent.analysis.scoping import subtree_ids

    ids = subtree_ids(scope, taxonomy)
    if not ids:
        return scope
    names = [p for i in ids for p in _name_parts(taxonomy.nodes[i].name)]
    if len(names) > MAX_SUBCATEGORY_TERMS:
        return scope
    sub_paths: set[str] = set()
    for toks in names:
        sub_paths |= own.own_levels.get(toks, set())
        for alt in own.own_joined.get("".join(toks), ()):
            sub_paths |= own.own_levels[alt]
    sub = tuple(sorted({(t[-1],) + t[:-1] for t in names if not t[-1].isdigit()}))
    return replace(scope, own_subpaths=tuple(sorted(sub_paths - set(scope.own_paths))), title_subterms=sub)


def _nearest_own(phrase: str, own: _OwnIndex, limit: int = 5) -> tuple[str, ...]:
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


def _placed(
    scope: Scope,
    own: pa.Table | None,
    own_idx: _OwnIndex,
    taxonomy: Taxonomy,
    phrase: tuple[str, ...],
    title_only: bool = False,
) -> Scope | None:
    """The scope with its accessories, title terms and counts of how its products were found.

    Title-only (no category named the phrase): None when no title names it either. When nothing
    holds the strict phrase but titles name its noun, the noun alone is used and the scope says so.
    An empty scope names the nearest own categories and the catalog's unplaced products."""
    from agent.analysis import scoping

    extra = _accessories_of(scope.taxonomy_id, taxonomy) if scope.taxonomy_id is not None else ()
    widened = None
    if extra and scope.taxonomy_id is not None:  # extra is () when taxonomy_id is None
        inside = set(scope.merchant_categories)
        for e in extra:
            inside |= set(_merchant_inside(e, own_idx, taxonomy))
        parts = [f"{taxonomy.nodes[i].name} ({_subcategory_names(i, taxonomy)})" for i in (scope.taxonomy_id, *extra)]
        widened = (
            f"{taxonomy.nodes[extra[0]].name} is counted with {taxonomy.nodes[scope.taxonomy_id].name}: the "
            f"accessories belong to the range. Covered: " + "; ".join(parts) + "."
        )
        scope = replace(
            scope,
            extra_taxonomy_ids=extra,
            extra_taxonomy_paths=tuple(taxonomy.nodes[e].path for e in extra),
            merchant_categories=tuple(sorted(inside)),
            widened=_sentences(scope.widened, widened),
        )
    terms = _title_terms(phrase)
    scope = replace(scope, title_terms=terms)
    scope = _with_subcategories(scope, own_idx, taxonomy)
    if own is None or own.num_rows == 0:
        return None if title_only else scope
    found = scoping.found(own, scope, taxonomy)
    total = sum(n for _, n in found)
    if total == 0 and len(terms) > 1:  # "pond pumps" whose titles only say "pump"
        loose = replace(scope, title_terms=terms[:1])
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
    if title_only and total == 0:
        return None
    scope = replace(scope, found=found)
    if total == 0:
        scope = replace(scope, nearest=_nearest_own(" ".join(phrase), own_idx), unplaced=scoping.unplaced(own))
    return scope


def _starts_with(seq: list[str], options) -> bool:
    return any(tuple(seq[: len(o)]) == o for o in options if o)


def _has(seq: list[str], phrases) -> bool:
    return any(_find(seq, p, set()) is not None for p in phrases)


_LEADING = {"my", "the", "our", "your", "all", "of"}


def _own_claim(seq: list[str], own: _OwnIndex) -> Span | None:
    """An own category named whole after a scope preposition, even when its name holds question or
    intent words ("gaps in Tools for the Garden", "stock in Picture Frames"): its span, longest first."""
    if not own.own_levels:
        return None
    best = None
    for i in range(1, len(seq)):
        if seq[i - 1] not in _PREP_TOKENS:
            continue
        starts = [i]  # the name as written ("All Disposables"), then without "my/the/all…" before it
        while starts[-1] < len(seq) and seq[starts[-1]] in _LEADING:
            starts.append(starts[-1] + 1)
        for start in starts:
            for j in range(min(len(seq), start + MAX_PHRASE_WORDS + 2), start, -1):
                if j < len(seq) and seq[j] not in STOPWORDS:  # "garden" of "garden furniture" is no name
                    continue
                phrase = _phrase(seq, start, j)
                if phrase and (phrase in own.own_levels or "".join(phrase) in own.own_joined):
                    if best is None or j - start > best[1] - best[0]:
                        best = (start, j)
                    break
            if best is not None and best[0] == start:
                break
    return best


def _scope_for(
    toks: tuple[str, ...], display: str, own: pa.Table | None, own_idx: _OwnIndex, taxonomy: Taxonomy, tax_idx: _Index
) -> Scope | None:
    """A remembered scope phrase (already corrected) resolved again: categories first, then titles."""
    m, _, _ = _resolve(list(toks), set(), own_idx, taxonomy, tax_idx)
    if m is not None:
        m.phrase = display
        return _placed(_scope(m, taxonomy), own, own_idx, taxonomy, toks)
    return _placed(Scope(label=display, phrase=display), own, own_idx, taxonomy, toks, title_only=True)


# words after which a question names the merchant's products: a phrase there, ending in a plural
# ("my sweatshirts", "our hoodies"; "my top vendors" names none), that no category and no title holds
# is said ("No category matches…"), never answered silently for the whole catalog
_POSSESSIVE = frozenset({"my", "our"})
_PRODUCT_WORDS = frozenset({"product", "item", "thing", "stuff", "listing"})


def _for_phrase(seq: list[str], words: list[str]) -> tuple[list[str], list[str]]:
    """ "toys for dogs" → "dogs toys", "food for cats" → "cats food": a category phrase written with
    "for" names the same category as the phrase written the other way round (Dog Toys, Cat Food).

    Without this the words after "for" were a separate phrase and dropped silently, so "gaps in toys
    for dogs" was answered for all of Toys. Only content words on both sides are swapped (no intent
    word: "what's for sale" stays), and the first "for" only; what does not name a category then is
    shortened as any phrase is, with a note."""
    for k, tok in enumerate(seq):
        if tok != "for" or k == 0 or k + 1 >= len(seq):
            continue

        def content(i: int) -> bool:
            return 0 <= i < len(seq) and seq[i] not in STOPWORDS and seq[i] not in _INTENT_VOCAB

        a = k
        while content(a - 1):
            a -= 1
        b = k + 1
        while content(b):
            b += 1
        if a == k or b == k + 1:
            continue
        order = list(range(k + 1, b)) + list(range(a, k))
        return (seq[:a] + [seq[i] for i in order] + seq[b:], words[:a] + [words[i] for i in order] + words[b:])
    return seq, words


def _read(seq: list[str], own_idx: _OwnIndex, taxonomy: Taxonomy, tax_idx):
    """The question's claim on an own category, skills, used tokens, whole-catalog words and the
    category match (match, span, miss) for one token sequence."""
    claim = _own_claim(seq, own_idx)
    skills, used = _intents(seq, set(range(*claim)) if claim else None)
    if claim and not skills:  # the words named the question, not a category ("what's on sale?")
        claim = None
        skills, used = _intents(seq)
    whole = _has(seq, _WHOLE_TOKENS)
    match: _Match | None
    span: Span | None
    miss: Span | None
    if claim:
        match, span, miss = _match_phrase(_phrase(seq, *claim), own_idx, taxonomy, tax_idx, True), claim, None
    else:
        match, span, miss = (
            (None, None, None) if whole and not _runs(seq, used) else _resolve(seq, used, own_idx, taxonomy, tax_idx)
        )
    return claim, skills, used, whole, match, span, miss


def _correct_in_run(seq: list[str], miss: Span, scope_vocab: frozenset[str], own_vocab: frozenset[str]) -> list[str]:
    """Short unknown words (three to five letters once stemmed: "sut", "blnd") of a phrase that matched
    nothing, corrected to the closest category word at the same similarity as long words.

    `_correct` leaves words under six letters alone so that nonsense never becomes a category on its
    own; here a correction is anchored twice: the phrase also holds a known category word ("pajama",
    "vertical"), and the caller keeps the corrected words only when the whole phrase then names a
    category. So "pajama suts" is the own category "pajama suits", exactly as spelled correctly."""
    start, end = miss
    run = seq[start:end]
    known = [t in scope_vocab or t in own_vocab for t in run]
    if len(run) < 2 or not any(known):
        return seq
    out = list(seq)
    for i, tok in enumerate(run):
        if known[i] or tok in STOPWORDS or tok.isdigit() or not 3 <= len(tok) < 6:
            continue
        fixed = _close(tok, scope_vocab, 0.85) or _close_in(tok, sorted(own_vocab), 0.85)
        if fixed:
            out[start + i] = fixed
    return out


def plan(question: str, own: pa.Table | None, taxonomy: Taxonomy, memory: PlanMemory | None = None) -> Plan:
    """Skills, scope and notes for one question; `memory` is the previous turn's PlanMemory in this context.

    The memory keeps the scope phrase as it *resolved* (typos corrected, words stemmed), so a
    follow-up after "gaps in outdor furnture" keeps Outdoor Furniture exactly as after the correctly
    spelled question. A follow-up without a category phrase keeps the previous scope; "across the
    whole catalog", "overall", "everything" reset it."""
    tax_idx = _taxonomy_index(taxonomy)
    own_idx = _own_index(own, taxonomy)
    words = raw_tokens(question or "")[:MAX_TOKENS]
    raw = [stem(w) for w in words]
    from agent.analysis import lexicon  # other languages → English tokens; English passes unchanged

    words, raw = lexicon.to_english(words, raw, own_idx.lexicon_names, own_idx.node_rows, taxonomy)
    own_vocab = own_idx.vocab  # every own path and product type
    seq = _correct(raw, _INTENT_VOCAB, tax_idx.vocab, own_vocab)
    seq, words = _for_phrase(seq, list(words))
    claim, skills, used, whole, match, span, miss = _read(seq, own_idx, taxonomy, tax_idx)
    if match is None and miss is not None:  # "pajama suts", "vertcal blnds": short typos inside a name
        fixed = _correct_in_run(seq, miss, tax_idx.vocab, own_vocab)
        if fixed != seq:
            again = _read(fixed, own_idx, taxonomy, tax_idx)
            if again[4] is not None:
                seq = fixed
                claim, skills, used, whole, match, span, miss = again
    unmatched = " ".join(words[miss[0] : miss[1]]) if miss else None
    notes: list[str] = []
    follow = _starts_with(seq, _FOLLOW_TOKENS) or len([t for t in seq if t not in STOPWORDS]) <= 2
    display = " ".join(words[span[0] : span[1]]) if span else None
    resolved = " ".join(_phrase(seq, *span)) if span else None  # what the memory keeps
    scope: Scope | None = None
    if match is not None:
        match.phrase = display
        if match.taxonomy_id is None and match.label == resolved:  # named by the question's own words
            match.label = display
        scope = _placed(_scope(match, taxonomy), own, own_idx, taxonomy, _phrase(seq, *span))
    elif unmatched:  # no category has the words: perhaps the titles do ("pond pumps")
        scope = _placed(
            Scope(label=unmatched, phrase=unmatched), own, own_idx, taxonomy, _phrase(seq, *miss), title_only=True
        )
        if scope is not None:
            resolved, unmatched = " ".join(_phrase(seq, *miss)), None
    elif not whole and own is not None:  # words left without "in": "how are my loungers priced?"
        for start, end in list(reversed(_runs(seq, used)))[:MAX_TITLE_TRIES]:
            written = " ".join(words[start:end])
            scope = _placed(
                Scope(label=written, phrase=written), own, own_idx, taxonomy, _phrase(seq, start, end), title_only=True
            )
            if scope is not None:
                resolved = " ".join(_phrase(seq, start, end))
                break
        if scope is None:  # "which of my sweatshirts…": the merchant named products nothing holds
            owned = next(
                (
                    (a, b)
                    for a, b in _runs(seq, used)
                    if a > 0
                    and seq[a - 1] in _POSSESSIVE
                    and (
                        words[b - 1].lower() != seq[b - 1]  # a plural: "my sweatshirts", not "my top"
                        or (b < len(seq) and seq[b] in _PRODUCT_WORDS)
                    )
                ),
                None,
            )  # "my dog products"
            if owned is not None:
                written = " ".join(words[owned[0] : owned[1]])
                phrase = " ".join(_phrase(seq, *owned))
                scope = _scope_for(tuple(_phrase(seq, *owned)), phrase, own, own_idx, taxonomy, tax_idx)
                if scope is not None:  # "my dog products": the category the words name (Dog Supplies)
                    resolved = phrase
                else:
                    miss, unmatched = owned, written

    if memory and follow and not whole:
        if skills and scope is None and unmatched is None and memory.scope_phrase:
            # "and pricing?" — same scope, new skill
            again = _scope_for(tuple(tokens(memory.scope_phrase)), memory.scope_phrase, own, own_idx, taxonomy, tax_idx)
            if again is not None:
                scope, resolved = again, memory.scope_phrase
        if not skills and (scope is not None or unmatched is not None) and memory.skills:
            # "what about lighting?" — same skills, new scope
            skills = list(memory.skills)
    if memory and follow and whole and not skills and scope is None and memory.skills:
        # "and across the whole catalog?" — same skills, the scope reset
        skills = list(memory.skills)

    near: tuple[str, ...] = ()
    if unmatched:
        near = _nearest(" ".join(seq[miss[0] : miss[1]]), own_idx, taxonomy)
        near_text = ", ".join(near) if near else "none"
        notes.append(f"No category matches “{unmatched}”; nearest: {near_text}. The answer covers the whole catalog.")
    if scope is not None and span is not None and not claim:
        run = next(((a, b) for a, b in _runs(seq, used) if a <= span[0] and span[1] <= b), None)
        dropped = [w for w in seq[run[0] : span[0]] if w not in STOPWORDS and w != "and"] if run else []
        if (dropped or (match is not None and match.shortened)) and run:
            asked = " ".join(words[run[0] : run[1]])
            by_title = _placed(
                Scope(label=asked, phrase=asked), own, own_idx, taxonomy, _phrase(seq, *run), title_only=True
            )
            if by_title is not None and not by_title.widened:  # titles name the whole phrase: "tote bags"
                scope, resolved = by_title, " ".join(_phrase(seq, *run))
            else:
                notes.append(
                    f"No category is called “{asked}”; the scope is {scope.label}, the closest broader category."
                )
    if scope is not None and scope.widened:
        notes.append(scope.widened)
    if not skills:
        skills = [FALLBACK]
        if not (memory and follow and scope is not None):
            notes.append(
                CAPABILITIES_NOTE
                if scope is None
                else CAPABILITIES_NOTE.replace(
                    "Here is an overview of the catalog.", "Here is an overview of this category."
                )
            )
    if unmatched:
        scope = Scope(unmatched=unmatched, nearest=near)
    scope = scope or Scope()
    if _has(seq, _REFERENCE_TOKENS):
        scope = replace(scope, wants_reference=True)
    skills_t = tuple(s for s in SKILL_ORDER if s in skills)
    return Plan(
        skills=skills_t,
        scope=scope,
        notes=tuple(notes),
        memory=PlanMemory(skills=skills_t, scope_phrase=resolved if not scope.is_whole_catalog else None),
    )
