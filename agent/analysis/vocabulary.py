"""The planner's words: how a question is tokenised, and the words that name skills, scopes and follow-ups.

Split out of `planner.py` (issue 13) so the vocabulary can be read and extended on its own: the
English intent words per skill (`INTENTS`, `WEAK_INTENTS`), the verb uses read as no intent
(`NEUTRAL`), follow-up, whole-catalog, reference and preposition words, the question words that are
never a scope (`STOPWORDS`), the outdoor/patio/garden equivalents, and the taxonomy's category names
as the same tokens (`taxonomy_index`: the words a scope can be made of). Other languages map their
words onto these tokens in `lexicon.py`. Every table is built from the phrases once, at import, with
the same `tokens` the question goes through, so both sides are stemmed alike.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agent.catalog.taxonomy import Taxonomy

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


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Light, symmetric stemming: applied to the question and to every category name alike.

    Accents are folded first ("Gartenmöbel" ~ "gartenmobel"), on both sides; the English endings below
    touch only words that end like English ones. Other languages' endings: `lexicon.stem`. Cached:
    the taxonomy's 5,595 names hold ~16,000 words but only a few thousand distinct ones.
    """
    w = word if word.isascii() else _fold(word)
    if not w.isascii() and _CYRILLIC.search(w):
        return _ru_stem(w)  # Cyrillic words (titles, own names, words a Russian question leaves as written)
    w = _SPELLING.get(w, w)
    if w in _KEEP or len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ie") and len(w) > 4:  # "hoodie" is one word with "hoodies" (→ hoody), "cookie" with "cookies"
        return w[:-2] + "y"
    if w.endswith(("ches", "shes", "xes", "sses", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 6:
        w = w[:-3]
    return w


_CYRILLIC = re.compile("[\u0400-\u04ff]")


def _ru_stem(word: str) -> str:
    """A Cyrillic word stemmed by the Russian rules (`lexicon.stem`), so that the English planner meets a
    Russian shop's titles and own names in any case: "кроссовок" (how many sneakers) is the titles'
    "кроссовки". Without it, a Russian question's word that the lexicon passes through as written met
    only titles in the same case and number."""
    from agent.analysis.lexicon import stem as stem_in

    return stem_in(word, "ru")


def _fold(word: str) -> str:
    from agent.analysis.lexicon import fold

    return fold(word)


# Letters of any script (case folded); "d'extérieur", "l'assortimento": the elided article is dropped.
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_HYPHENATED = re.compile(r"(\w)-(\w)")  # compiled once: raw_tokens runs on every taxonomy name on a cold start
_ELISION = {"l", "d", "j", "m", "n", "s", "t", "c", "qu", "dell", "all", "dall", "nell", "sull", "un"}


def tokens(text: str) -> list[str]:
    return [stem(t) for t in raw_tokens(text)]


def raw_tokens(text: str) -> list[str]:
    """Lower-cased words as written (what notes quote back); `tokens` is the same list, stemmed."""
    text = text.casefold().replace("&", " and ").replace("e-commerce", "ecommerce").replace("in-stock", "in stock")
    text = text.replace("out-of-stock", "out of stock")
    text = _HYPHENATED.sub(r"\1 \2", text) if "-" in text else text
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
    "collections inventory goods listing listings entry entries kind kinds type types sort sorts "
    # a verb after the noun ("what colours do my dresses come in?") ended the noun's run of words, so no
    # phrase ended on the noun and the question was answered for the whole catalog
    "come comes came coming".split()
)
STOPWORDS = {stem(w) for w in STOPWORDS} | STOPWORDS

INTENT_TOKENS: dict[str, list[tuple[str, ...]]] = {
    skill: sorted({tuple(tokens(p)) for p in phrases}, key=len, reverse=True) for skill, phrases in INTENTS.items()
}
WEAK_GAP_TOKENS = {tuple(tokens(p)) for p in WEAK_GAPS}
INTENT_VOCAB = frozenset(t for ps in INTENT_TOKENS.values() for p in ps for t in p if len(t) >= 3)
WEAK_INTENT_TOKENS = {
    skill: sorted({tuple(tokens(p)) for p in ps}, key=len, reverse=True) for skill, ps in WEAK_INTENTS.items()
}
NEUTRAL_TOKENS = sorted({tuple(tokens(p)) for p in NEUTRAL}, key=len, reverse=True)
FOLLOW_UP_TOKENS = sorted({tuple(tokens(p)) for p in FOLLOW_UP}, key=len, reverse=True)
WHOLE_CATALOG_TOKENS = {tuple(tokens(p)) for p in WHOLE_CATALOG}
PREPOSITION_TOKENS = {stem(p) for p in SCOPE_PREPOSITIONS}
REFERENCE_TOKENS = {tuple(tokens(p)) for p in REFERENCE_WORDS}


# --- the taxonomy's names as tokens ---------------------------------------------------------------------------------------------
EQUIVALENT = ("outdoor", "patio", "garden", "yard", "backyard", "exterior")


@dataclass
class TaxonomyIndex:
    by_tokens: dict[tuple[str, ...], list[int]]
    by_joined: dict[str, list[int]]
    by_token: dict[str, set[int]]  # word -> nodes whose name holds it (candidates for partial matches)
    vocab: frozenset[str]
    names: dict[int, tuple[str, ...]]


_TAX_CACHE: dict[int, TaxonomyIndex] = {}


@functools.lru_cache(maxsize=65536)
def name_tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in tokens(name) if t != "and")


def taxonomy_index(taxonomy: Taxonomy) -> TaxonomyIndex:
    """The index of `taxonomy`, once per taxonomy object: for the bundled taxonomy from the table
    `make data` precomputes (vocabulary_table; ~5 ms instead of ~40 ms on a cold start) when that is
    current, else computed."""
    from agent.analysis import vocabulary_table

    key = id(taxonomy)
    cached = _TAX_CACHE.get(key)
    if cached is not None:
        return cached
    parts = vocabulary_table.bundled_parts() if vocabulary_table.is_bundled(taxonomy) else None
    idx = TaxonomyIndex(*parts) if parts is not None else compute_index(taxonomy)
    _TAX_CACHE.clear()
    _TAX_CACHE[key] = idx
    return idx


def compute_index(taxonomy: Taxonomy) -> TaxonomyIndex:
    """The index from the taxonomy's names, every name tokenised (what the bundled table holds)."""
    by_tokens: dict[tuple[str, ...], list[int]] = {}
    by_joined: dict[str, list[int]] = {}
    vocab: set[str] = set()
    names: dict[int, tuple[str, ...]] = {}
    for node in taxonomy.nodes.values():
        toks = name_tokens(node.name)
        names[node.id] = toks
        by_tokens.setdefault(toks, []).append(node.id)
        by_joined.setdefault("".join(toks), []).append(node.id)
        vocab.update(toks)
    by_token: dict[str, set[int]] = {}
    for node_id, toks in names.items():
        for t in toks:
            by_token.setdefault(t, set()).add(node_id)
    return TaxonomyIndex(by_tokens, by_joined, by_token, frozenset(vocab), names)
