"""Name matcher: a product phrase -> a Google category, built from the taxonomies' own names only.

No hand-written keyword table. The vocabulary is what Google and Shopify publish:

* the 5,595 Google node names (en-US), and the parts of names joined by `&` / `,`
  ("Pots & Planters" also names "Pots" and "Planters", at a lower tier);
* Shopify's ~14.5k Standard Product Taxonomy names, each standing for the Google id Shopify maps it to
  (so "T-Shirts", "Hoodies", "Outdoor Furniture Covers" are known words);
* Google's localised names (13 locales), matched as whole names ("Gartenmöbel") and, when no English
  name fits, word by word with the noun first or last ("Floreros", "Bulbos de plantas y flores").

How a phrase matches (English word order: the product noun is the last word, "Patio Chair **Cover**"):

1. Words are lower-cased, `&` / `and` dropped, hyphenated words joined ("T-Shirt" = "Tshirts"), a
   compound written apart joined when the taxonomy knows it ("Key Chain" = "Keychains"), sizes
   after the noun dropped, and reduced to a light singular stem ("Hoodies" = "Hoodie", "Boxes" = "Box").
   A joined phrase ("Food & Beverage") names what its parts share.
2. Candidates are the names whose last word is the phrase's noun. A candidate matches when every other
   word of its name is in the phrase's context (the phrase, the merchant's type and category words,
   and words the taxonomy itself implies: a modifier that is mostly a furniture noun in the taxonomy
   ("chair") brings "furniture"; "patio" / "garden" / "deck" bring "outdoor").
3. The most specific match wins (more matched words); ties go to the candidate whose taxonomy path
   shares most words with the context, then to the id the name stands for most often, then to the
   least specialised place (the shortest path: bare "T-Shirt" is Clothing > Shirts & Tops, not Baby &
   Children's Tops).

Confidence (`Match.confident`): a multi-word name that matched whole is confident; a bare noun is
confident only when it is a whole taxonomy name (or, inside a joined name, a noun of one place only)
and the phrase carries no *foreign* modifier — a word that is itself a product noun whose places the
taxonomy mostly files under other words than the winner's path ("Pump Filter **Bag**" is no luggage;
"Cast Iron Skillet" is a skillet, irons being scattered over five verticals).
A title noun is read `strict`ly: beside other words, a bare noun also needs one of them to agree with
the winner's path. An unconfident match is never used: the row stays unmapped (counted and said).
`categorise` adds the catalog-level rule (`within`: the shop's own branches). Inside them, a type
whose noun has no place there is read by the closed compound a modifier begins ("Ear stud" in a
jewellery shop is an earring: `_compound_within`).
"""

from __future__ import annotations

import functools
import gc
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import cast

from agent.catalog import taxonomy

_STOP = frozenset({"and", "the", "a", "an", "of", "n", "other", "misc", "miscellaneous", "general"})
# Words merchants use where the taxonomy says "Outdoor" (the taxonomy never says "patio").
_SYNONYMS = {
    "patio": ("outdoor",),
    "garden": ("outdoor",),
    "deck": ("outdoor",),
    "yard": ("outdoor",),
    "lawn": ("outdoor",),
    "balcony": ("outdoor",),
    "tee": ("tshirt", "shirt"),
    "couch": ("sofa",),
    # Google files Christmas things under "Holiday" (Holiday Ornaments, Seasonal & Holiday
    # Decorations): a "Christmas Ornament" is no aquarium ornament (Shopify's bare "Ornaments")
    "christma": ("holidai",),
    "xma": ("holidai",),
}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])", re.UNICODE)
_TIER_NAME, _TIER_SHOPIFY, _TIER_PART = 0, 1, 2
# A tie between places of one noun settles on their common ancestor when that still says something
# (level 3 or deeper: "Clothing Accessories > Scarves & Shawls", not "Apparel & Accessories").
_TIE_MIN_DEPTH = 3
PET_SUPPLIES = 2  # Animals & Pet Supplies > Pet Supplies: the place the word "pet" names


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English singular stem, applied alike to names and merchant text (consistency is what
    counts, not linguistics): hoodies/hoodie -> hoodi, boxes/box -> box, accessories/accessory -> accessori,
    vases/vase -> vase, scarves/scarf -> scarve, knives/knife -> knive (an -f or -ife singular meets its
    -ves plural)."""
    stemmed = word
    if not stemmed.isascii() or not stemmed.isalpha() or len(stemmed) <= 3:
        return stemmed
    if stemmed.endswith("ies"):
        stemmed = stemmed[:-3] + "i"
    elif stemmed.endswith(("sses", "xes", "zes", "ches", "shes")):
        stemmed = stemmed[:-2]
    elif stemmed.endswith("s") and not stemmed.endswith(("ss", "us", "is")):
        stemmed = stemmed[:-1]
    if len(stemmed) > 3 and stemmed.endswith("ie"):
        stemmed = stemmed[:-1]
    elif len(stemmed) > 3 and stemmed.endswith("y"):
        stemmed = stemmed[:-1] + "i"
    elif len(stemmed) > 3 and stemmed.endswith("f") and not stemmed.endswith("ff"):  # scarf/scarves, shelf/shelves
        stemmed = stemmed[:-1] + "ve"
    elif len(stemmed) > 4 and stemmed.endswith("ife"):  # knife/knives
        stemmed = stemmed[:-2] + "ve"
    return stemmed  # a final -e stays: "plans" is no "planes", "houses" is "house"


def words(text: str | None) -> list[str]:
    """Normalised stems of a phrase, stop words dropped."""
    return list(_words(str(text))) if text else []


# The taxonomies write American English; a British (Commonwealth) spelling is the same word, not
# another one: an Indian or Australian shop's "Jewellery" type is Jewelry. Only spellings whose US form
# is a word of the taxonomies' names (and no other word is spelled the British way).
_US_SPELLING = {
    "jewellery": "jewelry",
    "jewelleries": "jewelries",
    "colour": "color",
    "colours": "colors",
    "tyre": "tire",
    "tyres": "tires",
    "mould": "mold",
    "moulds": "molds",
    "pyjama": "pajama",
    "pyjamas": "pajamas",
    "theatre": "theater",
    "fibre": "fiber",
    "fibres": "fibers",
    "centre": "center",
    "centres": "centers",
}


@functools.lru_cache(maxsize=1 << 17)
def _words(text: str) -> tuple[str, ...]:
    normalised = unicodedata.normalize("NFKC", text).casefold().replace("&", " ")
    normalised = _HYPHEN.sub("", normalised).replace("'", "").replace("’", "")
    return tuple(stem(_US_SPELLING.get(word, word)) for word in _WORD.findall(normalised) if word not in _STOP)


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("&", " ").split())


@dataclass(frozen=True)
class Entry:
    tokens: tuple[str, ...]  # stems of the name; the last one is its noun
    google_id: int
    tier: int
    depth: int  # levels of the path the name stands at (Google's or Shopify's)
    path_words: frozenset[str]  # stems of the whole path(s): what a context can agree with


@dataclass(frozen=True)
class Match:
    google_id: int
    confident: bool
    specificity: int  # matched words besides the noun
    other_kind: bool = False  # the word before the noun makes it another product: the row is unsure


class Index:
    """What the matcher reads of the taxonomies, behind one face with two builds: `FullIndex` (every
    name of every file at once: ~3.7 s on this machine, and what runs without a current derived
    table) and `LazyIndex` (a noun's or a word's entries built when first asked, from the lines the
    derived table points at: a cold instance's first send pays for the few words its catalog uses).
    Both give the same entries in the same order (tests/test_namematch_lazy.py)."""

    def entries(self, head: str) -> list[Entry]:
        """The names whose last word (their noun) is `head`: Google's, their parts, Shopify's."""
        raise NotImplementedError

    def is_head(self, word: str) -> bool:
        raise NotImplementedError

    def sorted_heads(self) -> list[str]:
        raise NotImplementedError

    def implied_by(self, word: str) -> frozenset[str]:
        """The level-1/2 words most places of a noun stand under (nothing for a word that is no noun)."""
        raise NotImplementedError

    def localised_id(self, key: str) -> int | None:
        """The one id a whole localised leaf name (`_key`) stands for, else None."""
        raise NotImplementedError

    def local_entries(self, word: str) -> list[Entry]:
        """The localised names holding a folded word (`local_words`)."""
        raise NotImplementedError


@dataclass
class FullIndex(Index):
    by_head: dict[str, list[Entry]]
    localised: dict[str, int]  # casefolded localised leaf name -> id (only names with one id)
    implied: dict[str, frozenset[str]]  # noun stem -> words the taxonomy places it under
    local_by_word: dict[str, list[Entry]] = field(
        default_factory=dict
    )  # folded localised stem -> localised names holding it

    def entries(self, head: str) -> list[Entry]:
        return self.by_head.get(head, [])

    def is_head(self, word: str) -> bool:
        return word in self.by_head

    def sorted_heads(self) -> list[str]:
        return sorted(self.by_head)

    def implied_by(self, word: str) -> frozenset[str]:
        return self.implied.get(word, frozenset())

    def localised_id(self, key: str) -> int | None:
        return self.localised.get(key)

    def local_entries(self, word: str) -> list[Entry]:
        return self.local_by_word.get(word, [])


class LazyIndex(Index):
    """Entries built per noun and per word from the derived table's pointers: "h:<noun>" lists
    Google names (id × 32 + the entry's place among the node's own) and Shopify lines (-(byte offset + 1)),
    "w:<word>" the localised lines holding the word (locale number × 10⁸ + the line's byte offset),
    "k:<hash>" the lines whose leaf is a whole localised name of that hash (checked against the name). The dicts only grow, and each value is what `FullIndex` holds
    for the key, so two threads building one key at once store equal values."""

    def __init__(self) -> None:
        self._heads = tuple(taxonomy.derived_header()["heads"])
        self._head_set = frozenset(self._heads)
        self._entries: dict[str, list[Entry]] = {}
        self._implied: dict[str, frozenset[str]] = {}
        self._local: dict[str, list[Entry]] = {}

    def entries(self, head: str) -> list[Entry]:
        got = self._entries.get(head)
        if got is None:
            got = self._entries[head] = _head_entries(head) if head in self._head_set else []
        return got

    def is_head(self, word: str) -> bool:
        return word in self._head_set

    def sorted_heads(self) -> list[str]:
        return list(self._heads)

    def implied_by(self, word: str) -> frozenset[str]:
        got = self._implied.get(word)
        if got is None:
            got = self._implied[word] = _implied(word, self.entries(word)) if word in self._head_set else frozenset()
        return got

    def localised_id(self, key: str) -> int | None:
        locales = taxonomy.available_locales()
        ids = set()
        for ref in cast("tuple[int, ...]", taxonomy.derived(taxonomy.hashed_key("k:", key)) or ()):
            row = taxonomy.locale_line(locales[ref // _LOCALE_REF], ref % _LOCALE_REF)
            if row is not None and _local_entries(locales[ref // _LOCALE_REF], *row)[0] == key:
                ids.add(row[0])
        return next(iter(ids)) if len(ids) == 1 else None

    def local_entries(self, word: str) -> list[Entry]:
        got = self._local.get(word)
        if got is None:
            got = self._local[word] = _word_entries(word)
        return got


_GOOGLE_REF = 32  # a Google name's pointer: id × 32 + its place among the node's entries
_LOCALE_REF = taxonomy.LOCALE_REF


def _head_entries(head: str) -> list[Entry]:
    refs = taxonomy.derived("h:" + head) or ()
    out: list[Entry] = []
    for ref in cast("tuple", refs):
        if ref >= 0:
            out.append(_google_entries(ref // _GOOGLE_REF)[ref % _GOOGLE_REF])
        else:
            row = taxonomy.shopify_line(-ref - 1)
            shop = _shopify_entry(*row) if row is not None else None
            assert shop is not None  # the table lists only lines that make one
            out.append(shop)
    return out


def _word_entries(word: str) -> list[Entry]:
    refs = taxonomy.derived("w:" + word) or ()
    locales = taxonomy.available_locales()
    out: list[Entry] = []
    for ref in cast("tuple", refs):
        locale_no, offset = divmod(ref, _LOCALE_REF)
        row = taxonomy.locale_line(locales[locale_no], offset)
        assert row is not None  # the table points at lines that hold a path
        out.extend(e for e in _local_entries(locales[locale_no], *row)[1] if word in e.tokens)
    return out


# Linking words of the bundled locales: "Camisetas de tirantes", "Housses pour meubles", "Мебель для сада",
# Danish "Havemøbler og tilbehør" ("og" and "til" are the da-DK names' two most frequent short words).
_LOCAL_STOP = frozenset(
    """de del la las el los para y con sin en a al por et pour avec des du le les
di della delle dei per il lo e do da dos das com em und fur mit der die das von voor met van het
i z dla w na и для с в на och for med av og til af pro s ve ile icin""".split()
)


# An elided article or preposition glued to the next word (French d' l' qu', Italian dell' all' un'):
# no part of the noun, so "Plante d'intérieur" holds the word "intérieur" of "Plantes d'extérieur et d'intérieur".
_ELIDED = re.compile(r"^(?:[dljnsctm]|qu|dell|dall|nell|sull|all|un)['’]")


# Each locale's own "and" in joined names ("Plantes d'extérieur et d'intérieur"); Italian "i" and
# Spanish "a" are no "and".
_LOCAL_AND = {
    "fr": "et",
    "es": "y|e",
    "pt": "e",
    "it": "e|ed",
    "de": "und",
    "nl": "en",
    "pl": "i|oraz",
    "ru": "и",
    "tr": "ve",
    "sv": "och",
    "da": "og",
    "cs": "a",
}
_TIER_SHARED = 3  # a localised part built by distributing a shared noun: matched only as a whole phrase
# A Shopify leaf that is its joined parent's part said short ("Activewear Vests & Jackets > Jackets"). It
# counts as a whole name, except against a Google name's part of the same words: there it ranks as a
# part too (`_ranked_best`), so it does not outrank it by being Shopify's. Before, a bare "Jackets" was
# read as Activewear over Google's Coats & Jackets (a held-out boot maker's 23 jackets); now the two
# tie on rank and the bare noun is unsure, as any noun only a joined name holds ("Luggage & Bags").
_TIER_SHORT = 4


def _shared_noun_parts(name: str, locale: str) -> tuple[str, ...]:
    """The parts of a localised joined name that share its noun ("Plantes d'extérieur et
    d'intérieur" also names "Plantes d'intérieur"): only parts the distribution builds."""
    conj = _LOCAL_AND.get(locale.split("-")[0])
    if not conj:
        return ()
    parts = _split_parts(re.sub(rf"\s+(?:{conj})\s+", " & ", name))
    return tuple(part for part in parts if part.casefold() not in name.casefold() and len(part.split()) > 1)


class _CombiningMarks(dict):
    """{code point: None} for every combining mark, for str.translate: one C-level pass per text
    instead of a Python test per character (the full index folds ~165,000 localised names). Filled
    as characters are met (a code point that is no mark maps to itself), not for the whole plane up
    front: a cold instance folds a few names and would otherwise test 65,536 code points first."""

    def __missing__(self, codepoint: int) -> int | None:
        found = None if unicodedata.combining(chr(codepoint)) else codepoint
        self[codepoint] = found
        return found


_MARKS = _CombiningMarks()


def _fold_accents(text: str) -> str:
    """`text` (NFKD) without its combining marks: "é" is "e"; a text beyond the BMP takes the slow road."""
    if text.isascii():
        return text
    if max(text) > "\uffff":
        return "".join(char for char in text if not unicodedata.combining(char))
    return text.translate(_MARKS)


def local_words(text: str | None) -> list[str]:
    """Localised names and merchant text alike: accents folded, a light plural stem (final -s, then
    -e, for Latin script; a final vowel for Cyrillic), linking words dropped."""
    if not text:
        return []
    folded = _fold_accents(unicodedata.normalize("NFKD", str(text).casefold())).replace("&", " ")
    out = []
    for word in _WORD.findall(folded):
        word = _ELIDED.sub("", word)  # "d'intérieur" is "intérieur", "l'eau" is "eau"
        if word in _LOCAL_STOP or word in _STOP or word.isdigit():
            continue
        if len(word) > 4 and word.isascii():
            word = word[:-1] if word.endswith("s") else word
            word = word[:-1] if word.endswith("e") and len(word) > 4 else word
        elif len(word) > 4 and word[-1] in "ыиаяеоуь":
            word = word[:-1]
            if len(word) > 3 and word[-1] == "ь" and word[-2] not in "ыиаяеоуь":
                word = word[:-1]  # "стулья" and "стул", "платья" and "платье" meet
        out.append(word)
    return out


@functools.lru_cache(maxsize=1 << 16)
def _split_parts(name: str) -> tuple[str, ...]:
    """The things a joined name names. A shared noun or modifier distributes: "Pot & Pan Handles" is
    "Pot Handles" and "Pan Handles"; "Wall Plates & Covers" is "Wall Plates" and "Wall Covers";
    "Pots & Planters" is "Pots" and "Planters"."""
    parts = [part.strip() for part in re.split(r"\s*&\s*|\s*,\s*|\s+and\s+", name) if part.strip()]
    if len(parts) < 2:
        return ()
    first, last = parts[0].split(), parts[-1].split()
    singles = all(len(part.split()) == 1 for part in parts[:-1])
    if singles and len(last) > 1:  # "Pot & Pan Handles"
        tail = " ".join(last[1:])
        return tuple(f"{part} {tail}" for part in parts[:-1]) + (parts[-1],)
    if len(first) > 1 and all(len(part.split()) == 1 for part in parts[1:]):  # "Wall Plates & Covers"
        lead = " ".join(first[:-1])
        return (parts[0],) + tuple(f"{lead} {part}" for part in parts[1:])
    return tuple(parts)


@functools.lru_cache(maxsize=1)
def index() -> Index:
    """The index, once per process: lazy over the derived table when that is current, else built
    whole from the files (only catalogs with unplaced rows need either)."""
    return LazyIndex() if taxonomy.derived_table_current() else full_index()


def full_index() -> FullIndex:
    """Every entry of every file, built at once: the fallback, the table's source and the reference
    the lazy index is held to.

    The build makes a few hundred thousand small objects that all live on, so the cyclic collector
    is paused for it: its passes over them were more than a third of the build (3.5 → 2.2 s here)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _build_index()
    finally:
        if paused:
            gc.enable()


@functools.lru_cache(maxsize=None)
def _google_words(cid: int) -> frozenset[str]:
    return frozenset(words(taxonomy.load().nodes[cid].path))


@functools.lru_cache(maxsize=1 << 14)
def _names_noun(e: Entry) -> bool:
    """Whether the place an entry stands for is one Google itself names by the entry's noun.

    Every Google name does. A Shopify name does when Google's own name of the place Shopify maps it to
    holds its noun unqualified: Shopify "Wallets" at "Wallets & Money Clips", "Pots" at "Pots &
    Planters". It does not when Shopify's mapping had no such place and filed the name under the
    nearest one: the hydroponics leaf "Nutrients & Supplements > Supplements" at Gardening, "Soda Maker
    Accessories > Chargers" at Soda Maker Accessories, "Trimmers" (pet grooming) at "Pet Hair Clippers
    & Trimmers", whose Google name qualifies them. Such a name is the noun of a narrower kind, read in
    its Shopify path; alone, the noun is what Google names by it ("Supplements" are Vitamins &
    Supplements)."""
    if e.tier not in (_TIER_SHOPIFY, _TIER_SHORT):
        return True
    own = _google_entries(e.google_id)
    if any(g.tokens == e.tokens for g in own):
        return True
    noun = e.tokens[-1]
    return bool(own) and noun in own[0].tokens and not any(len(g.tokens) > 1 and g.tokens[-1] == noun for g in own)


@functools.lru_cache(maxsize=None)
def _google_entries(cid: int) -> tuple[Entry, ...]:
    """A Google node's entries: its name, then the parts of a joined name."""
    node = taxonomy.load().nodes[cid]
    out = []
    for tier, name in [(_TIER_NAME, node.name), *((_TIER_PART, part) for part in _split_parts(node.name))]:
        toks = tuple(words(name))
        if toks:
            out.append(Entry(toks, cid, tier, node.depth, _google_words(cid)))
    return tuple(out)


def _shopify_entry(path: str, cid: int) -> Entry | None:
    """A Shopify category's name, standing at the Google place Shopify maps it to.

    Not where Shopify's mapping kept only a bare top level for a category three or more levels down
    (Media > Printables > Wall Art, > Planners, > Activity Sheets → "Media"): the mapping lost the
    place, so the name would send every framed "Wall Art" and paper planner to Media, a top level
    that says nothing of it; the Google names ("Calendars, Organizers & Planners") decide instead."""
    levels = path.split(taxonomy.SEPARATOR)
    toks = tuple(words(levels[-1]))
    if not toks or (len(levels) >= 3 and taxonomy.load().nodes[cid].depth == 1):
        return None
    tier = _TIER_SHORT if len(levels) >= 2 and _elliptical(toks, levels[-2]) else _TIER_SHOPIFY
    return Entry(toks, cid, tier, len(levels), _google_words(cid) | frozenset(words(path)))


def _elliptical(toks: tuple[str, ...], parent: str) -> bool:
    """Whether a Shopify leaf is its joined parent's part said short ("Activewear Vests & Jackets >
    Jackets" is the activewear jacket): the tail of a longer one of the parent's distributed parts."""
    return any(
        len(part) > len(toks) and part[-len(toks) :] == toks
        for part in (tuple(words(name)) for name in _split_parts(parent))
    )


def _implied(head: str, head_entries: list[Entry]) -> frozenset[str]:
    """Implied words: the level-1/2 words shared by most of the places a noun stands (the top level
    most of its places share, at least a third of them and more than any other top level; level-2
    words most share)."""
    tax = taxonomy.load()
    ids = {e.google_id for e in head_entries}
    tops: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    for cid in ids:
        levels = tax.nodes[cid].path.split(taxonomy.SEPARATOR)
        tops[levels[0]] += 1
        if len(levels) > 1:
            seconds.update(set(words(levels[1])))
    (top, top_count), *rest = tops.most_common(2)
    # a noun whose places split evenly between top levels implies none of them: "Vitamins" stand once
    # under pets, once under health, once under horses, and Counter's first of a tie is the taxonomy's
    # order, not a reading ("Vitamin D3 Supplements" is no pet product)
    tied = bool(rest) and rest[0][1] == top_count
    got = set(words(top)) if top_count * 3 >= len(ids) and not tied else set()
    got.update(word for word, second_count in seconds.items() if second_count * 2 > len(ids))
    got.discard(head)
    return frozenset(got)


@functools.lru_cache(maxsize=1 << 16)
def _local_entries(locale: str, cid: int, path: str) -> tuple[str, tuple[Entry, ...]]:
    """A localised path's whole-name key and entries: its leaf, the leaf's parts, and the parts a
    shared noun distributes to (those last match only a whole phrase)."""
    leaf = path.split(taxonomy.SEPARATOR)[-1]
    names = [leaf, *_split_parts(leaf)]
    shared = _shared_noun_parts(leaf, locale)
    path_words = _path_words(path)
    depth = taxonomy.load().nodes[cid].depth
    out = []
    for k, name in enumerate(names + list(shared)):
        toks = tuple(local_words(name))
        if toks:
            tier = _TIER_SHARED if k >= len(names) else _TIER_PART if k else _TIER_NAME
            out.append(Entry(toks, cid, tier, depth, path_words))
    return _key(leaf), tuple(out)


def _build_index() -> FullIndex:
    tax = taxonomy.load()
    by_head: dict[str, list[Entry]] = defaultdict(list)
    for cid in tax.nodes:
        for e in _google_entries(cid):
            by_head[e.tokens[-1]].append(e)
    for path, cid in taxonomy.shopify_mapping().paths:
        shop = _shopify_entry(path, cid)
        if shop is not None:
            by_head[shop.tokens[-1]].append(shop)
    localised: dict[str, set[int]] = defaultdict(set)
    local_by_word: dict[str, list[Entry]] = defaultdict(list)
    for locale in taxonomy.available_locales():
        for cid, path in taxonomy.load_locale(locale).items():
            key, entries = _local_entries(locale, cid, path)
            localised[key].add(cid)
            for e in entries:
                for word in set(e.tokens):
                    local_by_word[word].append(e)
    return FullIndex(
        by_head=dict(by_head),
        localised={k: next(iter(v)) for k, v in localised.items() if len(v) == 1},
        implied={head: _implied(head, head_entries) for head, head_entries in by_head.items()},
        local_by_word=dict(local_by_word),
    )


def build_table() -> bytes:
    """The derived table's bytes, from the files: what `make data` writes to taxonomy.DERIVED_FILE."""
    tax = taxonomy.load()
    heads: dict[str, list[int]] = defaultdict(list)  # Google: id × 32 + entry; Shopify: -(byte offset + 1)
    for cid in tax.nodes:
        for k, e in enumerate(_google_entries(cid)):
            assert k < _GOOGLE_REF
            heads[e.tokens[-1]].append(cid * _GOOGLE_REF + k)
    lines: dict[str, list[int]] = defaultdict(list)  # "w:" word, "k:" / "p:" hashed name or path -> lines
    for offset, gid, path, cid in taxonomy.shopify_rows():
        shop = _shopify_entry(path, cid)
        if shop is not None:
            heads[shop.tokens[-1]].append(-offset - 1)
        for prefix, keys in (("s:", (path.lower(),)), ("g:", (gid, gid.rsplit("/", 1)[-1]))):
            for key in dict.fromkeys(taxonomy.hashed_key(prefix, key) for key in keys):
                lines[key].append(offset)
    for locale_no, locale in enumerate(taxonomy.available_locales()):
        for cid, (offset, path) in taxonomy.locale_rows(locale).items():
            assert offset < _LOCALE_REF
            key, entries = _local_entries(locale, cid, path)
            ref = locale_no * _LOCALE_REF + offset
            for word in dict.fromkeys(word for e in entries for word in e.tokens):
                lines["w:" + word].append(ref)
            lines[taxonomy.hashed_key("k:", key)].append(ref)
            lines[taxonomy.hashed_key("p:", path.lower())].append(ref)
    table: dict[str, tuple[int, ...]] = {"h:" + head: tuple(refs) for head, refs in heads.items()}
    table.update((key, tuple(refs)) for key, refs in lines.items())
    shards: list[dict] = [{} for _ in range(taxonomy.DERIVED_SHARDS)]
    for key in sorted(table):
        shards[taxonomy.shard_of(key)][key] = table[key]
    version, id_paths = taxonomy.rows(taxonomy.TAXONOMY_FILE.read_text(encoding="utf-8"))
    header = {"heads": tuple(sorted(heads)), "taxonomy": (version, tuple(id_paths))}
    return taxonomy.pack_derived(header, shards)


def write_table() -> None:
    """`make data`: (re)write the derived table next to the files it comes from."""
    taxonomy.DERIVED_FILE.write_bytes(build_table())


def _path_words(path: str) -> frozenset[str]:
    """local_words of a whole localised path, built from its levels: a level ("Bekleidung &
    Accessoires") stands in every path below it, so each is folded once (words never span " > ")."""
    return frozenset().union(*(_level_words(level) for level in path.split(taxonomy.SEPARATOR)))


@functools.lru_cache(maxsize=1 << 16)
def _level_words(level: str) -> frozenset[str]:
    return frozenset(local_words(level))


@functools.lru_cache(maxsize=1)
def _local_pets() -> tuple[dict[str, tuple[tuple[str, ...], ...]], dict[str, tuple[tuple[str, ...], ...]]]:
    """The localised form of the animal rule (`_animal_words`), read off each language's own names:
    (animal word -> that language's pet words, pet word -> each animal word). The animals' names
    share a word ("Productos para perros", "Productos para gatos": "producto"); what is left of each
    is the animal, what is left of Pet Supplies' name ("Productos para mascotas") the pet words, kept
    only where the pet names of the branch use them too ("Champús y acondicionadores para mascotas";
    French "Articles" is no pet word). A language that writes them as one compound ("Hundebedarf"),
    or whose names share nothing, has no such words and is left out."""
    tax = taxonomy.load()
    animal_ids = [
        cid
        for cid in tax.children_of(PET_SUPPLIES)
        if words(tax.nodes[cid].name)[:1] and words(tax.nodes[cid].name)[0] in _animals()
    ]
    pet_kids = [cid for cid in tax.children_of(PET_SUPPLIES) if words(tax.nodes[cid].name)[0] == "pet"]
    to_pet: dict[str, tuple[tuple[str, ...], ...]] = {}  # a word of two languages ("gato") has the pet words of each
    to_animals: dict[str, tuple[tuple[str, ...], ...]] = {}
    for locale in taxonomy.available_locales():
        toks = functools.partial(_local_leaf_words, locale)
        shared = set.intersection(*(toks(cid) for cid in animal_ids))
        kids = Counter(word for cid in pet_kids for word in toks(cid))
        pet = tuple(sorted(w for w in toks(PET_SUPPLIES) - shared if kids[w] * 2 >= len(pet_kids)))
        animals = [toks(cid) - shared for cid in animal_ids]
        if not shared or not pet or any(len(animal) != 1 for animal in animals):
            continue
        for animal in animals:
            word = next(iter(animal))
            to_pet[word] = (*to_pet.get(word, ()), pet)
        to_animals[" ".join(pet)] = tuple((next(iter(animal)),) for animal in animals)
    return to_pet, to_animals


@functools.lru_cache(maxsize=None)
def _local_branch_leaves(locale: str) -> dict[int, str]:
    """{id: localised leaf name} of Pet Supplies and the places below it in one language, read from
    the branch's own lines: a file holds a place's descendants right after its line (the files are
    sorted by path), so only that block is decoded — parsing the 13 whole files for these few dozen
    names cost half a second on a cold process, finding each line 0.1 s. A later line of an id wins,
    as in `taxonomy.locale_rows`."""
    data = taxonomy._locale_file(locale)
    at = data.find(b"\n%d - " % PET_SUPPLIES)
    row = taxonomy.locale_line(locale, at + 1) if at >= 0 else None
    if row is None or row[0] != PET_SUPPLIES:
        return {}
    out = {PET_SUPPLIES: row[1].split(taxonomy.SEPARATOR)[-1]}
    inside = row[1] + taxonomy.SEPARATOR
    offset = data.find(b"\n", at + 1) + 1
    while 0 < offset < len(data):
        line = taxonomy.locale_line(locale, offset)
        if line is None or not line[1].startswith(inside):
            break
        out[line[0]] = line[1].split(taxonomy.SEPARATOR)[-1]
        offset = data.find(b"\n", offset) + 1
    return out


def _local_leaf_words(locale: str, cid: int) -> set[str]:
    """The words of one pet-branch id's localised leaf name (none when the language lacks it)."""
    return set(local_words(_local_branch_leaves(locale).get(cid, "")))


def _local_pet_readings(toks: list[str]) -> list[list[str]]:
    """The phrase read with its animal word as the pet words ("Champú para perros" as "champú
    mascota"), or its pet words as each animal ("Juguetes para mascotas" as "juguete perro", "juguete
    gato", …): readings of what it names, tried only when the phrase as written names nothing of
    more than one word (its bare noun alone, "Juguetes", is Toys & Games)."""
    to_pet, to_animals = _local_pets()
    out = []
    for k, word in enumerate(toks):
        for pet_words in to_pet.get(word, ()):
            out.append([*toks[:k], *pet_words, *toks[k + 1 :]])
    for pet, animals in to_animals.items():
        said = pet.split()
        if set(said) <= set(toks):
            rest = [w for w in toks if w not in said]
            out.extend([*rest, *animal] for animal in animals)
    return out


def _local_reading(idx: Index, toks: list[str], within: tuple[int, ...]) -> tuple[tuple, set[int], Entry] | None:
    """(best rank, its ids, a winner) among the localised names of one reading of a phrase."""
    have = set(toks)
    tax = taxonomy.load()
    best: tuple | None = None
    ids: set[int] = set()
    winner: Entry | None = None
    for anchor in dict.fromkeys((toks[0], toks[-1])):
        for e in idx.local_entries(anchor):
            if not set(e.tokens) <= have or (e.tier == _TIER_SHARED and set(e.tokens) != have):
                continue  # a distributed part names the merchant's whole phrase ("Plante d'intérieur") or nothing
            if within and not any(tax.is_within(e.google_id, root) for root in within):
                continue
            rank = (len(e.tokens), anchor == toks[0], -(e.tier == _TIER_PART), -e.depth)
            if best is None or rank > best:
                best, ids, winner = rank, {e.google_id}, e
            elif rank == best:
                ids.add(e.google_id)
    if best is None or winner is None:
        return None
    return best, ids, winner


def _match_localised(idx: Index, phrase: str, within: tuple[int, ...] = (), strict: bool = False) -> Match | None:
    """A phrase in one of the bundled languages: the localised names all of whose words it holds and
    that hold its first word (Romance and Slavic names put the noun first: "Camisetas de tirantes") or
    its last (German and Dutch compounds); the most words win, a tie between places is unsure.

    A phrase naming the pet branch by another animal word than the names use is read again with the
    words the names use (`_local_pet_readings`) when the phrase's own noun and animal together name
    nothing; a tie those readings make settles on what they share (Pet Supplies for "mascotas")."""
    toks = local_words(phrase)
    if not toks:
        return None
    found = _local_reading(idx, toks, within)
    if found is None or found[0][0] < 2:
        spread = [got for reading in _local_pet_readings(toks) if (got := _local_reading(idx, reading, within))]
        top = max((got[0][0] for got in spread), default=0)
        if top >= 2 and (found is None or top > found[0][0]):
            best_of = [got for got in spread if got[0][0] == top]
            ids = {cid for got in best_of for cid in got[1]}
            if len(ids) == 1:
                return Match(next(iter(ids)), True, top - 1)
            common = _common_ancestor(taxonomy.load(), sorted(ids))
            if common is not None and _inside(common, PET_SUPPLIES):
                return Match(common, True, top - 1)
            return Match(min(ids), False, top - 1)
    if found is None:
        return None
    best, ids, winner = found
    have = set(toks)
    if (
        strict
        and not within
        and best[0] == 1
        and len(have) > 1
        and not ((have - set(winner.tokens)) & winner.path_words)
    ):
        return Match(winner.google_id, False, 0)  # one word beside others that say nothing about it
    return Match(min(ids), len(ids) == 1, best[0] - 1)


def _latin(word: str) -> bool:
    """Whether a word's letters are all Latin (ASCII or Latin-1/Extended-A/B), and it has some."""
    letters = [char for char in word if char.isalpha()]
    return bool(letters) and all(ord(char) < 0x250 for char in letters)


def _other_script(phrase: str) -> bool:
    """Whether a phrase holds a word of letters in a non-Latin script (Cyrillic, Greek, Arabic, …)."""
    return any(
        any(char.isalpha() for char in word) and not _latin(word) and any(ord(char) >= 0x250 for char in word)
        for word in phrase.split()
    )


# The "and" of merchant phrases in other languages that no other word is spelled as: a joined type
# "Столы и стулья", "Стол-и-стулья" (a Russian shop's table-and-chairs category) names what its parts
# share, as "Tables & Chairs" does. One-letter Latin "and"s (Spanish "y", Italian "e", Polish "i") and
# Dutch "en" (Spanish and French "in") are left out: they are other words elsewhere.
_PHRASE_AND = re.compile(r"\s+(?:и|et|und|oraz|och|og)\s+|(?<=[^\W\d_])-и-(?=[^\W\d_])", re.I)


def _local_parts(phrase: str) -> tuple[str, ...]:
    """The parts of a phrase joined by another language's "and" (`_PHRASE_AND`), else ()."""
    parts = [part.strip() for part in _PHRASE_AND.split(phrase) if part.strip()]
    return tuple(parts) if len(parts) > 1 else ()


def context_words(*texts: str | None) -> set[str]:
    """Every stem of the given texts plus their synonyms."""
    out: set[str] = set()
    for text in texts:
        if text:
            out |= _context_of(str(text))
    return out


@functools.lru_cache(maxsize=1 << 17)
def _context_of(text: str) -> frozenset[str]:
    out = set(_words(text))
    for word in list(out):
        out.update(_SYNONYMS.get(word, ()))
    return frozenset(out)


def match(
    phrase: str | None,
    context: set[str] | frozenset[str] = frozenset(),
    strict: bool = False,
    within: tuple[int, ...] = (),
) -> Match | None:
    """The Google category a product phrase names, or None when no taxonomy name fits.

    `strict` (for title nouns, which are free text): a bare noun with other words beside it is only
    confident when some context word agrees with the winner's path ("Drift Brown **Table**" says
    nothing about where the table stands; "Happy Birthday **Topper**" is no pinball part).
    `within` (the catalog's own branches, see categorise): only places inside those ids compete, and
    the branch stands for the agreeing context (its words do not complete names: "lounge set" in a
    jewellery shop is no Jewelry Set)."""
    if not phrase or not phrase.strip():
        return None
    idx = index()
    parts = _split_parts(phrase) or _local_parts(phrase)
    if parts:  # a joined phrase ("Food & Beverage", "Стол-и-стулья"): what its parts share
        read = [match(part, context, strict, within) for part in parts]
        got = [part_match for part_match in read if part_match is not None]
        if len(got) < len(read):
            return None
        tax = taxonomy.load()
        common = _common_ancestor(tax, [part_match.google_id for part_match in got])
        if common is None:
            return Match(got[0].google_id, False, 0)
        return Match(
            common, all(part_match.confident for part_match in got), min(part_match.specificity for part_match in got)
        )
    foreign = _other_script(phrase)
    # a phrase in another script is no English phrase, whatever Latin words it holds: "Диван Velvet"
    # is a sofa named Velvet, not the fabric its last word would name in English word order
    found = None if foreign else _match_english(idx, phrase, context, strict, within)
    if found is None and not foreign and "-" in phrase:  # a slug ("frying-pans"), not a compound ("t-shirt")
        found = _match_english(idx, phrase.replace("-", " "), context, strict, within)
    if found is None:  # a whole localised name ("Gartenmöbel", "Мебель для сада"), else its words
        if foreign:  # ...read in its own script: the Latin words are names and materials ("Velvet диван")
            phrase = " ".join(word for word in phrase.split() if not _latin(word)) or phrase
        loc = idx.localised_id(_key(phrase))
        if loc is not None:
            return Match(loc, True, 0)
        local = _match_localised(idx, phrase, within, strict)
        if local is not None and (_false_friend(idx, phrase, local.google_id) or _english_compound(idx, phrase, local)):
            return None
        return local
    return found


def whole_name_places(phrase: str | None) -> tuple[tuple[int, ...], int | None]:
    """The Google places an English phrase names as a whole Shopify name filed under them, and the
    matcher's own pick among them (None unless it is confident and one of them); ((), None) when none.

    For the planner's last try at a phrase that no category, Google name or title holds: a merchant's
    everyday word that only Shopify's taxonomy names ("t-shirts", "hoodies", "sneakers", "leggings")
    stands for the Google place Shopify maps it to. Only a whole name counts (every word of the phrase,
    no more: no part of a joined name, no localised look-alike such as French "couches"), and only a
    place the Shopify path itself names above the leaf: "Clothing Tops > T-Shirts" is filed under
    Google's Shirts & Tops, "Shoes > Sneakers" under Shoes, but Shopify's nearest Google place for a
    category Google lacks ("Fire Pits" → Outdoor Tables, a toy "Horses" → Scale Models) is no reading of
    the word. A name with several places ("Bikinis": Swimwear and Underwear) gives them all: which one
    a shop means is the planner's call (the one it holds products in)."""
    toks = tuple(words(phrase))
    if not toks:
        return (), None
    tax = taxonomy.load()
    places = tuple(
        sorted(
            {
                cid
                for path, cid in _shopify_names(toks)
                if cid in tax.nodes
                and _words(tax.nodes[cid].name)
                and set(_words(tax.nodes[cid].name)) & _path_above(path)
            }
        )
    )
    if not places:
        return (), None
    found = _match_english(index(), str(phrase), frozenset(), False)
    pick = found.google_id if found is not None and found.confident and found.google_id in places else None
    return places, pick


def _shopify_names(toks: tuple[str, ...]) -> list[tuple[str, int]]:
    """(Shopify path, Google id) of the Shopify categories whose leaf is the whole name `toks`: from the
    derived table's pointers for the noun when it is current (a cold instance reads a few lines), else
    from the whole mapping."""
    if isinstance(index(), LazyIndex):
        rows = [
            taxonomy.shopify_line(-ref - 1) for ref in cast("tuple", taxonomy.derived("h:" + toks[-1]) or ()) if ref < 0
        ]
    else:
        rows = list(taxonomy.shopify_mapping().paths)
    return [row for row in rows if row is not None and tuple(words(row[0].split(taxonomy.SEPARATOR)[-1])) == toks]


def _path_above(path: str) -> frozenset[str]:
    """The stems of a Shopify path's levels above its leaf."""
    return frozenset(w for level in path.split(taxonomy.SEPARATOR)[:-1] for w in _words(level))


def _false_friend(idx: Index, phrase: str, cid: int) -> bool:
    """One word that is itself a noun of the English names (which the English reading has just
    declined), read in another language as a place in a branch where none of its English names
    stand: the same letters there are a false friend, not a second reading — the type "Dessert" is
    no French "Dessertes" (serving carts, under Furniture: Desserts are Food), while "Snack" is the
    Dutch "Snacks" (Snack Foods, where the English Fruit Snacks stand too)."""
    toks = words(phrase)
    if len(toks) != 1 or not idx.is_head(toks[0]):
        return False
    tax = taxonomy.load()
    top = tax.nodes[cid].path.split(taxonomy.SEPARATOR)[0]
    return all(tax.nodes[e.google_id].path.split(taxonomy.SEPARATOR)[0] != top for e in idx.entries(toks[0]))


def _english_compound(idx: Index, phrase: str, local: Match) -> bool:
    """An English compound the English reading has declined — its first and last words both nouns of
    the English names — read in another language by its modifier alone, at a place none of those two
    nouns' English names stand at or above: that word is the English modifier, not a foreign name of
    the thing. "Sport-Touring Helmets" (a motorcycle shop's type) is no German "Sport" (Athletics,
    where no English "sport" or "helmet" name stands), while "Vase 'Óscar' Bone Gloss" is still the
    Vases its first word names in English too, and "Rice Pudding" the pudding snack its own noun
    names in German."""
    toks = words(phrase.replace("-", " "))
    if local.specificity or len(toks) < 2 or not (idx.is_head(toks[0]) and idx.is_head(toks[-1])):
        return False
    english = {e.google_id for word in (toks[0], toks[-1]) for e in idx.entries(word)}
    if any(_inside(local.google_id, cid) for cid in english):
        return False
    noun = _match_localised(idx, phrase.replace("-", " ").split()[-1])
    return noun is None or noun.google_id != local.google_id


@functools.lru_cache(maxsize=1 << 16)
def _inside(cid: int, root: int) -> bool:
    return cid == root or taxonomy.load().is_within(cid, root)


def _common_ancestor(tax: taxonomy.Taxonomy, ids: list[int]) -> int | None:
    paths = [tax.nodes[i].path.split(taxonomy.SEPARATOR) for i in ids]
    depth = 0
    while all(len(path) > depth for path in paths) and len({path[depth] for path in paths}) == 1:
        depth += 1
    return tax.id_for_path(taxonomy.SEPARATOR.join(paths[0][:depth])) if depth else None


_CACHE: dict[tuple, Match | None] = {}
_CACHE_MAX = 200_000
_MISSING = object()


@functools.lru_cache(maxsize=None)
def _vocabulary(head: str) -> frozenset[str]:
    """Every word that can decide among the places of one noun: the words of its names and paths."""
    out: set[str] = set()
    for e in index().entries(head):
        out.update(e.tokens)
        out.update(e.path_words)
    return frozenset(out)


def _match_english(idx: Index, phrase: str, context, strict: bool, within: tuple[int, ...] = ()) -> Match | None:
    """Prepare the phrase's words, then decide on only the words that can matter for its noun — so
    "Classic Teak Lounger" and "Modern Oak Lounger" are one decision (cached per process)."""
    toks = words(phrase)
    while toks and any(char.isdigit() for char in toks[-1]):  # "Concrete Pot 30cm": sizes trail the noun
        toks.pop()
    if len(toks) > 1 and idx.is_head(stem(toks[-2] + toks[-1])):  # "Key Chain" is a keychain
        toks[-2:] = [stem(toks[-2] + toks[-1])]
    if within and not strict and toks and not _has_place_within(idx, toks[-1], within):
        return _compound_within(idx, toks[:-1], within)
    if not toks or not idx.is_head(toks[-1]):
        return None
    head, mods = toks[-1], toks[:-1]
    ctx = set(toks) | set(context)
    for word in toks:
        ctx.update(_SYNONYMS.get(word, ()))
    plain = frozenset(ctx & _vocabulary(head))  # what the merchant wrote (and its synonyms)
    for modifier in mods:
        ctx.update(idx.implied_by(modifier))
    animal = _animal_words(mods)
    ctx.update(animal)
    # the word right before the noun, when it is itself a product noun of the taxonomies (it may change the kind)
    before = mods[-1] if mods and _closed_compounds(mods[-1]) else None
    key = (
        head,
        frozenset(ctx & _vocabulary(head)),
        tuple(sorted({modifier for modifier in mods if idx.implied_by(modifier)})),
        bool(mods),
        strict,
        within,
        plain,
        before,
        bool(animal),
    )
    got = _CACHE.get(key, _MISSING)  # one lookup: another ingest thread may clear the cache meanwhile
    if got is _MISSING:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        got = _CACHE[key] = _decide(idx, *key)
    return cast("Match | None", got)


@functools.lru_cache(maxsize=1)
def _animals() -> frozenset[str]:
    """The animals the taxonomy keeps pet supplies for, read off its own names: the children of Pet
    Supplies named "<animal> Supplies" in one word (dog, cat, bird, fish). Left out: an animal of
    two words ("Small Animal Supplies": "small" alone names no animal), and a joined one ("Reptile &
    Amphibian Supplies"): spread from "pet", its names would need two animal words and so outrank
    every one-animal name ("Pet Food" is no Reptile & Amphibian Food)."""
    tax = taxonomy.load()
    head = words(tax.nodes[PET_SUPPLIES].name)[-1]
    out: set[str] = set()
    for cid in tax.children_of(PET_SUPPLIES):
        toks = words(tax.nodes[cid].name)
        if len(toks) < 2 or toks[-1] != head:
            continue
        if len(toks) == 2 and not _split_parts(tax.nodes[cid].name):
            out.add(toks[0])
    return frozenset(out)


def _animal_words(mods: list[str]) -> tuple[str, ...]:
    """What the word right before the noun says about the pet branch, as words its names use.

    A Dog X is a Pet X ("Dog Shampoo" is Pet Shampoo & Conditioner, not the human shampoo), and a
    Pet X is whichever animal's X the taxonomy has ("Pet Toys": Dog, Cat and Bird Toys, whose tie
    settles on Pet Supplies). Only the word right before the noun: there the animal is whom the thing
    is for; further off it is a motif or a wearer ("Cat Eye Sunglasses", "Dog Mom Shirt", "Bird Print
    Dress" stay where they are). The words are implied, not written, so they complete a pet name but
    never win a tie against the merchant's own words ("Bird Feeder" is still the garden's)."""
    if not mods:
        return ()
    word = mods[-1]
    pet = words(taxonomy.load().nodes[PET_SUPPLIES].name)[0]
    if word == pet:
        return tuple(sorted(_animals()))
    if word in _animals():
        return (pet,)
    return ()


def _has_place_within(idx: Index, head: str, within: tuple[int, ...]) -> bool:
    return any(_inside(e.google_id, root) for e in idx.entries(head) for root in within)


_COMPOUND_MIN_WORD = 3  # "ear" begins "earring"; shorter words begin too many nouns to say anything


def _compound_within(idx: Index, mods: list[str], within: tuple[int, ...]) -> Match | None:
    """Inside the shop's own branches, a phrase whose noun has no place there ("Ear hoop", "Ear stud"
    in a jewellery shop: hoops and studs stand elsewhere) names the one noun of the branch that a
    modifier is or begins as a closed compound ("ear" begins "earring" — and inside Jewelry nothing
    else). The last such modifier decides; two places, or none, inside the branches leave it unsure."""
    for modifier in reversed(mods):
        if len(modifier) < _COMPOUND_MIN_WORD or not modifier.isalpha():
            continue
        keys = _sorted_heads()
        import bisect

        if idx.is_head(modifier):  # a noun itself says what the thing is for ("Woodworking Plans"), not its kind
            continue
        heads = []
        for k in keys[bisect.bisect_left(keys, modifier) :]:
            if not k.startswith(modifier):
                break
            if len(k) - len(modifier) >= 3:
                heads.append(k)
        ids = {
            e.google_id
            for head in heads
            for e in idx.entries(head)
            if e.tier != _TIER_PART and len(e.tokens) == 1 and any(_inside(e.google_id, root) for root in within)
        }
        if len(ids) == 1:
            return Match(next(iter(ids)), True, 0)
        if ids:
            return None
    return None


_NARROW_SHARE = 6  # a place holding under one in six of a noun's names is one use of it, not its kind
_NARROW_BELOW = 2  # ...unless it is a level-1 or level-2 place ("Boots" are Shoes, whatever skis wear)


def _narrow_use(winner: Entry, cands: list[Entry]) -> bool:
    """Whether a Shopify name filed where Google names it not stands at a place holding under
    1/_NARROW_SHARE of the noun's names, deeper than level _NARROW_BELOW: the leaf is the noun as one
    product's part or accessory ("Soda Maker Accessories > Chargers", "Coffee Maker Replacement Parts
    > Lids"), while the noun's names say it is mostly other things (Power Adapters & Chargers, Camera
    Battery Chargers, …). Read alone, the noun then names none of them surely."""
    if winner.tier != _TIER_SHOPIFY or taxonomy.load().nodes[winner.google_id].depth <= _NARROW_BELOW:
        return False
    inside = sum(_inside(e.google_id, winner.google_id) for e in cands)
    return inside * _NARROW_SHARE < len(cands)


def _agrees_elsewhere(mods: tuple[str, ...], winner: Entry, cands: list[Entry]) -> bool:
    """Whether a modifier's implied words, some of which the winner's path holds, agree more with
    another place of the noun (all of what they share with the winner's path and more): the modifier
    says which kind of the noun this is, and the winner is not that kind. A modifier sharing nothing
    with the winner is the foreign-modifier rule's (`_bare_noun`); its implied words are often noise
    ("hair" implies Sporting Goods, by horse-care names)."""
    idx = index()
    for modifier in mods:
        implied = idx.implied_by(modifier)
        agreed = implied & winner.path_words
        if agreed and any(
            (implied & e.path_words) > agreed for e in cands if not _inside(e.google_id, winner.google_id)
        ):
            return True
    return False


@functools.lru_cache(maxsize=None)
def _votes(head: str) -> Counter:
    """How often each (name, id) stands under one noun: a name Shopify files in two places of one id."""
    return Counter((e.tokens, e.google_id) for e in index().entries(head))


@functools.lru_cache(maxsize=1 << 14)
def _closed_compounds(word: str) -> tuple[str, ...]:
    """The taxonomy nouns a word is or begins: "pajama" is Pajamas; "night" begins "nightgown",
    "swim" "swimwear", "body" "bodysuit" — a word that starts a closed compound names a kind of
    product itself."""
    if len(word) < 4 or not word.isalpha():
        return (word,) if index().is_head(word) else ()
    keys = _sorted_heads()
    import bisect

    out = []
    for k in keys[bisect.bisect_left(keys, word) :]:
        if not k.startswith(word):
            break
        if k == word or len(k) - len(word) >= 3:
            out.append(k)
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _sorted_heads() -> list[str]:
    return index().sorted_heads()


_KIND_MIN_OUTSIDE = 3  # a noun with one odd compound ("Popcorn Seasoning") is no kind-changing noun


def _changes_kind(idx: Index, cands: list[Entry], winner: Entry, before: str) -> bool:
    """Whether the product noun `before` the head makes it another product: the head's compound
    names mostly stand outside its bare place ("Flight Suit", "Ghillie Suit", "Hazmat Suit" are no
    Suits), and `before` is itself a whole name beside the winner — under the winner's parent but
    nowhere inside the winner ("Pajama" is Sleepwear, a Clothing word beside Suits): a sibling
    product, not a kind. A noun of another branch is what the thing holds or tastes of: "Plant Pot"
    stays a pot, "Pineapple Cake" a cake (Pineapples stand outside Bakery)."""
    compound = {e.google_id for e in cands if len(e.tokens) > 1}
    outside = {cid for cid in compound if not _inside(cid, winner.google_id)}
    if len(outside) < _KIND_MIN_OUTSIDE or len(outside) * 2 <= len(compound):
        return False
    parent = _parent_of(winner.google_id)
    own = {
        e.google_id
        for head in _closed_compounds(before)
        for e in idx.entries(head)
        if e.tier != _TIER_PART and len(e.tokens) == 1
    }
    return (
        parent is not None
        and any(_inside(cid, parent) for cid in own)
        and not any(_inside(cid, winner.google_id) for cid in own)
    )


@functools.lru_cache(maxsize=1 << 14)
def _parent_of(cid: int) -> int | None:
    """The place holding a place (Clothing for Suits), None at the top."""
    tax = taxonomy.load()
    levels = tax.nodes[cid].path.split(taxonomy.SEPARATOR)
    return tax.id_for_path(taxonomy.SEPARATOR.join(levels[:-1])) if len(levels) > 1 else None


def _decide(
    idx: Index,
    head: str,
    ctx: frozenset[str],
    mods: tuple[str, ...],
    has_mods: bool,
    strict: bool,
    within: tuple[int, ...],
    plain: frozenset[str] = frozenset(),
    before: str | None = None,
    animal: bool = False,
) -> Match | None:
    """The choice among one noun's places; `ctx` holds only words that can matter, `mods` the
    phrase's modifiers that are themselves product nouns (the only ones the foreign rule reads).

    In three steps: the names whose words the context holds are ranked (`_ranked_best`); a tie between
    places is settled by what they share (`_tied`); a winner named by its noun alone is judged on what
    stands beside it (`_bare_noun`)."""
    title = strict  # a title noun (free text): the merchant's own type is trusted to name a kind as it is
    cands = idx.entries(head)
    if cands and within:
        tax = taxonomy.load()
        cands = [e for e in cands if any(tax.is_within(e.google_id, root) for root in within)]
        strict = False
    if not cands:
        return None
    votes = _votes(head) if not within else Counter((e.tokens, e.google_id) for e in cands)
    best, best_entries = _ranked_best(cands, ctx, plain, votes)
    if best is None:
        return None
    ids = {e.google_id for e in best_entries}
    if len(ids) > 1:
        return _tied(ids, best[0], plain)
    winner = best_entries[0]
    if best[0] >= 1:
        return Match(winner.google_id, True, best[0])
    if animal and not _inside(winner.google_id, PET_SUPPLIES):
        # "Dog Clothing", "Pet Clothing": the thing is for an animal, and the noun's bare place is
        # the people's (the pet branch calls it "Apparel"); no place named, rather than the wrong one
        return Match(winner.google_id, False, 0)
    return _bare_noun(
        idx, head, cands, winner, ctx, mods, has_mods=has_mods, strict=strict, title=title, within=within, before=before
    )


def _ranked_best(
    cands: list[Entry], ctx: frozenset[str], plain: frozenset[str], votes: Counter
) -> tuple[tuple | None, list[Entry]]:
    """(the best rank, the entries holding it, in index order) among the names all of whose other words
    stand in `ctx`; (None, []) when none does."""
    best: tuple | None = None
    best_entries: list[Entry] = []
    google_parts = {e.tokens for e in cands if e.tier == _TIER_PART}
    for e in cands:
        need = e.tokens[:-1]
        if any(needed_word not in ctx for needed_word in need):
            continue
        # ties between names go to the path sharing most words the merchant wrote — not words a
        # modifier merely implies ("Old Rose Hoodie": roses are mostly gifts, the hoodie is no fan article)
        rank = (
            len(set(need)),
            # a bare noun: a place Google names by it before a Shopify name filed where Google does not
            not need and _names_noun(e),
            -(e.tier == _TIER_PART or (e.tier == _TIER_SHORT and e.tokens in google_parts)),
            len(e.path_words & plain),
            votes[(e.tokens, e.google_id)],
            -e.depth,
        )
        if best is None or rank > best:
            best, best_entries = rank, [e]
        elif rank == best:
            best_entries.append(e)
    return best, best_entries


def _tied(ids: set[int], specificity: int, plain: frozenset[str] = frozenset()) -> Match:
    """A true tie between places: no honest pick of one, but what they share may be — when it is
    deep enough to say something, or when the merchant's own words name it ("Pet Toys" ties Dog,
    Cat and Bird Toys; "pet" names Pet Supplies, so that is the place, though only level 2)."""
    common = _common_ancestor(taxonomy.load(), sorted(ids))
    if common is not None and (taxonomy.load().nodes[common].depth >= _TIE_MIN_DEPTH or _named(common, plain)):
        return Match(common, True, specificity)  # "Scarf": Scarves & Shawls, whichever of its leaves
    return Match(min(ids), False, specificity)


def _named(cid: int, plain: frozenset[str]) -> bool:
    """Whether the merchant's words hold every modifier of one of a place's own Google names (its
    last word aside): "pet" of "Pet Supplies". A name of one word has no modifier to hold."""
    return any(len(e.tokens) > 1 and set(e.tokens[:-1]) <= plain for e in _google_entries(cid))


def _bare_noun(
    idx: Index,
    head: str,
    cands: list[Entry],
    winner: Entry,
    ctx: frozenset[str],
    mods: tuple[str, ...],
    *,
    has_mods: bool,
    strict: bool,
    title: bool,
    within: tuple[int, ...],
    before: str | None,
) -> Match:
    """The winner when it is named by its noun alone: sure only when nothing beside the noun points
    elsewhere (`strict` after `_decide` has cleared it inside the shop's branch; `title` as passed)."""
    if (
        before is not None
        and (title or within)
        and before not in winner.path_words
        and _changes_kind(idx, idx.entries(head), winner, before)
    ):
        # a compound head that is no name ("Night Suit", "Pajama Suit"): the first word changes the
        # kind, so the bare noun's place ("Suits") is unsure, even inside the shop's own branch
        return Match(winner.google_id, False, 0, other_kind=True)
    whole = any(e.tier != _TIER_PART and e.google_id == winner.google_id and len(e.tokens) == 1 for e in cands)
    # ...or the one place Google names by the noun alone (even inside a joined name, "Vitamins &
    # Supplements") when the noun's other bare names are Shopify's filed where Google names it not:
    # Shopify publishes the noun as a name, so it is a kind, and Google's name says where it stands
    bare = [e for e in cands if len(e.tokens) == 1]
    whole = whole or (
        _names_noun(winner)
        and any(not _names_noun(e) for e in bare)
        and all(e.google_id == winner.google_id for e in bare if _names_noun(e))
    )
    if not whole and len({e.google_id for e in cands}) > 1:
        return Match(
            winner.google_id, False, 0
        )  # a bare noun of many places, only inside a joined name ("Luggage & Bags")
    if not _names_noun(winner) and _narrow_use(winner, cands):
        # "Chargers" alone is Shopify's "Soda Maker Accessories > Chargers", "Straps" its "Pressure
        # Washer Accessories > Straps": one narrow use of a noun whose names stand mostly elsewhere
        return Match(winner.google_id, False, 0)
    if not _names_noun(winner) and any(len(e.tokens) == 1 and _names_noun(e) for e in idx.entries(head)):
        # inside the shop's branch only a Shopify name filed where Google names it not is left (a
        # kitchen shop's "Pot" and Shopify's "Yogurt Maker Accessories > Pots"): that is a narrower
        # kind, and the noun alone is Google's kind, which stands outside the branch
        return Match(winner.google_id, False, 0)
    if not within and winner.tier != _TIER_NAME and _agrees_elsewhere(mods, winner, cands):
        # "Stainless Steel Pot": steel is mostly a kitchen word, and the noun has kitchen places
        # (Stock Pots); that "steel" also shares "home" with Pots & Planters says no garden pot. A
        # whole Google name of the noun alone stands: "Strawberry Milk" is Milk, a beverage, though
        # strawberries are food items, as canned milk is
        return Match(winner.google_id, False, 0)
    foreign = (
        []
        if within
        else [
            modifier
            for modifier in mods
            if modifier not in winner.path_words and not (idx.implied_by(modifier) & winner.path_words)
        ]
    )  # inside the shop's branch it vouches
    # a noun all of whose places lie inside the winner is that place whatever plain words stand
    # beside it; a noun with places elsewhere ("Table": Tables, but also Outdoor Tables; "Clock":
    # Clocks, but also Time & Attendance Clocks) needs a word to agree
    # — only a whole name (Google's or Shopify's): a noun read out of a joined name is not sure
    sole = winner.tier != _TIER_PART and all(_inside(e.google_id, winner.google_id) for e in cands)
    if strict and has_mods and not sole and not ((ctx - {head}) & winner.path_words):
        return Match(winner.google_id, False, 0)
    return Match(winner.google_id, not foreign, 0)
