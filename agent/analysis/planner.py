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
   reference catalog and has none says so first (render.text.MISSING). A size word with a word of
   lacking ("What sizes am I missing in dresses?", "missing sizes in tops", "size gaps") marks it
   `wants_missing_sizes`: attribute coverage then answers with the broken size runs, not fill rates.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import pyarrow as pa

from agent.analysis.result import Scope
from agent.analysis.scope_resolution import (
    Match,
    OwnIndex,
    Span,
    as_written,
    best_node,
    match_phrase,
    nearest,
    none_held,
    own_claim,
    own_index,
    partial_sold,
    phrase_at,
    placed,
    resolve,
    scope_for,
    to_scope,
    word_runs,
)
from agent.analysis.vocabulary import (
    FOLLOW_UP_TOKENS,
    INTENT_TOKENS,
    INTENT_VOCAB,
    NEUTRAL_TOKENS,
    REFERENCE_TOKENS,
    STOPWORDS,
    WEAK_GAP_TOKENS,
    WEAK_INTENT_TOKENS,
    WHOLE_CATALOG_TOKENS,
    TaxonomyIndex,
    raw_tokens,
    stem,
    taxonomy_index,
    tokens,
)
from agent.catalog.taxonomy import Taxonomy

CAPABILITIES_NOTE = (
    "I can answer questions like: “Where are the gaps in outdoor furniture?”, “What is out of stock in patio "
    "furniture?”, “Do I have entry-level and premium options in outdoor chairs?”, “Which materials or colours am I "
    "missing in outdoor seating?”, “Which brands do competitors carry that I don't?” and “Is my catalog ready for "
    "Google Shopping?”. Here is an overview of the catalog."
)
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
_SIZE_WORDS = frozenset(stem(w) for w in ("size", "sizes", "sizing"))
_LACKING_WORDS = frozenset(stem(w) for w in ("missing", "miss", "lack", "lacking", "gap", "gaps", "broken"))


@dataclass(frozen=True)
class PlanMemory:
    """What a context remembers between turns, so "and pricing?" knows what "it" was. JSON-able."""

    skills: tuple[str, ...] = ()
    scope_phrase: str | None = None
    # the turn asked for missing sizes: a follow-up that keeps its skills ("and in t-shirts?") asks so too
    missing_sizes: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"skills": list(self.skills), "scope_phrase": self.scope_phrase, "missing_sizes": self.missing_sizes}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "PlanMemory":
        data = data or {}
        skills = tuple(str(s) for s in data.get("skills") or () if str(s) in SKILL_ORDER)
        phrase = data.get("scope_phrase")
        return cls(
            skills=skills, scope_phrase=str(phrase) if phrase else None, missing_sizes=bool(data.get("missing_sizes"))
        )


@dataclass(frozen=True)
class Plan:
    skills: tuple[str, ...]
    scope: Scope
    notes: tuple[str, ...]
    memory: PlanMemory


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
    for phrase in NEUTRAL_TOKENS:
        hit = _find(seq, phrase, used)
        while hit is not None:
            used.update(hit)
            hit = _find(seq, phrase, used)
    # longest phrases first across all skills, so "out of stock" beats "stock", "price range" beats "range"
    candidates = sorted(((p, s) for s, ps in INTENT_TOKENS.items() for p in ps), key=lambda x: -len(x[0]))
    for phrase, skill in candidates:
        while True:
            hit = _find(seq, phrase, used)
            if hit is None:
                break
            used.update(hit)
            found.add(skill)
    weak_found = set()
    for skill, phrases in WEAK_INTENT_TOKENS.items():
        for phrase in phrases:
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
                weak_found.add(skill)
    if not found and weak_found:
        found = weak_found
    if not found:
        for phrase in WEAK_GAP_TOKENS:
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
                found.add("assortment_gaps")
    else:
        for phrase in WEAK_GAP_TOKENS:  # consume the words so they are not read as a scope
            hit = _find(seq, phrase, used)
            if hit is not None:
                used.update(hit)
    return [s for s in SKILL_ORDER if s in found], used


MAX_TOKENS = 80  # a question longer than this is read by its first words (bounded work per turn)
MAX_CORRECTIONS = 12  # unknown words looked up for typos per question


def _correct(
    seq: list[str],
    intent_vocab: frozenset[str],
    scope_vocab: frozenset[str],
    own_vocab: frozenset[str],
    guessed: dict[str, str] | None = None,
    real: Callable[[str], bool] | None = None,
) -> list[str]:
    """Unknown words replaced by the closest known word (typos): "avaliability", "outdor furnture".

    Intent words are corrected from five letters at similarity 0.8; category words only from six letters
    at 0.85, so nonsense ("dolor") does not turn into a category ("door"). Candidates share the first
    letter and differ in length by at most two; lookups against the fixed vocabularies are cached, and at
    most MAX_CORRECTIONS words per question are looked up. Each category word so guessed is put in
    `guessed` (the guess → the word as written), for `_say_empty_guess`. A word `real` says is a word of
    its own (the shop's titles hold it, or the product taxonomies publish it) is no category typo.
    """
    out = []
    budget = MAX_CORRECTIONS
    for tok in seq:
        known = tok in intent_vocab or tok in scope_vocab or tok in own_vocab or tok in STOPWORDS
        if budget and len(tok) >= 5 and not known and not tok.isdigit():
            budget -= 1
            fixed = _close(tok, intent_vocab, 0.8)
            if fixed is not None and tok.startswith(fixed):
                # the word written is an intent word and more ("wellies" → "well"): a word of its own,
                # no typo; read as "well" it vanished, and the question was answered for the whole
                # catalog without a word
                fixed = None
            if fixed is None and len(tok) >= 6:
                fixed = _close(tok, scope_vocab, 0.85) or _close_in(tok, sorted(own_vocab), 0.85)
                if fixed is None and tok.endswith("ing"):
                    fixed = _close_cut_ing(tok, scope_vocab) or _close_cut_ing(tok, own_vocab)
                if fixed is not None and real is not None and real(tok):
                    fixed = None  # "sneakers" is no typo of the shop's "Speaker"
                if fixed is not None and guessed is not None:
                    guessed[fixed] = tok
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


@functools.lru_cache(maxsize=1024)
def _close_cut_ing(tok: str, vocab: frozenset[str]) -> str | None:
    """The stem whose "-ing" word the typo is closest to: "earings" (stemmed "earing", too short for the
    stemmer's "-ing" rule) is "earrings", whose stem is "earr".

    `stem` cuts "-ing" only from words of seven letters or more, so a typo that drops a letter from
    one ("earrings" → "earings") keeps the ending its correct spelling loses, and its stem ("earing")
    is compared with "earr" (similarity 0.8, under the cutoff): a jewellery shop's "How many earings
    do I have?" was said unmatched, with Earrings second among the nearest. The word is compared
    with the stems put back into their "-ing" form (those the stemmer would have cut), at the same
    cutoff as any category word."""
    forms = {w + "ing": w for w in _bucket(vocab, tok[0]) if len(w) >= 4 and not w.endswith("ing")}
    close = _close_in(tok, sorted(forms), 0.85)
    return forms[close] if close else None


def _close_in(tok: str, words, cutoff: float) -> str | None:
    pool = [w for w in words if w[:1] == tok[:1] and abs(len(w) - len(tok)) <= 2]
    close = difflib.get_close_matches(tok, pool, n=1, cutoff=cutoff)
    return close[0] if close else None


MAX_TITLE_TRIES = 2  # word runs without "in" tried against titles, last first (bounded work per question)


def _starts_with(seq: list[str], options) -> bool:
    return any(tuple(seq[: len(o)]) == o for o in options if o)


def _has(seq: list[str], phrases) -> bool:
    return any(_find(seq, p, set()) is not None for p in phrases)


# words after which a question names the merchant's products: a phrase there, ending in a plural
# ("my sweatshirts", "our hoodies"; "my top vendors" names none), that no category and no title holds
# is said ("No category matches…"), never answered silently for the whole catalog
_POSSESSIVE = frozenset({"my", "our"})
_PRODUCT_WORDS = frozenset({"product", "item", "thing", "stuff", "listing"})
# ...and after a verb of selling or a counting word ("do I sell pizzas?", "do you carry fountains?",
# "how many pizzas do I have?", "do I have any lamps?"); after a selling verb a lone last word too
# ("do I sell pizza?"): what the merchant asks to have is a scope, never the whole catalog unsaid
_SELLING = frozenset({"sell", "carry", "offer"})  # not "stock": "estoque baixo" is low stock
_COUNTING = frozenset({"any"})  # "how many" is resolve's (scope_resolution.COUNTED): one rule owns it


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
            return 0 <= i < len(seq) and seq[i] not in STOPWORDS and seq[i] not in INTENT_VOCAB

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


@dataclass(frozen=True)
class _Indexes:
    """What one question is read against, built once per `plan` call: the merchant's table and its index,
    the taxonomy and its index (every step needs some of the four)."""

    own: pa.Table | None
    own_idx: OwnIndex
    taxonomy: Taxonomy
    tax_idx: TaxonomyIndex

    def by_title(self, label: str, phrase: tuple[str, ...]) -> Scope | None:
        """The scope the products' titles give `phrase` (labelled `label`), or None: the third place."""
        return placed(Scope(label=label, phrase=label), self.own, self.own_idx, self.taxonomy, phrase, title_only=True)


class _Reading(NamedTuple):
    """What one token sequence says (`_read`): the span of an own category named after "in", the skills and
    the token positions their words used, whether whole-catalog words are there, and the category match
    with the span it matched and the span of a phrase that matched nothing."""

    claim: Span | None
    skills: list[str]
    used: set[int]
    whole: bool
    match: Match | None
    span: Span | None
    miss: Span | None


def _read(seq: list[str], idx: _Indexes) -> _Reading:
    """The question's claim on an own category, skills, used tokens, whole-catalog words and the
    category match (match, span, miss) for one token sequence."""
    claim = own_claim(seq, idx.own_idx)
    skills, used = _intents(seq, set(range(*claim)) if claim else None)
    if claim and not skills:  # the words named the question, not a category ("what's on sale?")
        claim = None
        skills, used = _intents(seq)
    whole = _has(seq, WHOLE_CATALOG_TOKENS)
    match: Match | None
    span: Span | None
    miss: Span | None
    if claim:
        match = match_phrase(phrase_at(seq, *claim), idx.own_idx, idx.taxonomy, idx.tax_idx, True)
        span, miss = claim, None
    elif whole and not word_runs(seq, used):
        match, span, miss = None, None, None
    else:
        match, span, miss = resolve(seq, used, idx.own_idx, idx.taxonomy, idx.tax_idx)
    return _Reading(claim, skills, used, whole, match, span, miss)


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


def _run_around(seq: list[str], used: set[int], span) -> tuple[int, int] | None:
    """The word run of the question that holds a matched span (the whole phrase the merchant wrote)."""
    if span is None:
        return None
    return next(((a, b) for a, b in word_runs(seq, used) if a <= span[0] and span[1] <= b), None)


OWN_NAME_WORD_CUTOFF = 0.75  # each word of a mistyped own name, against the name's word
OWN_NAME_CUTOFF = 0.8  # the words' mean similarity


def _correct_to_own_name(seq: list[str], miss: tuple[int, int], own: OwnIndex) -> list[str]:
    """A phrase of two or more words that matched nothing, read as the one own category name it is a
    typo of, word for word: "sweats & snaks" is "Sweets & Snacks" although "sweats" is a word of its own
    (so the word-by-word corrections, which only touch unknown words, leave it).

    Anchored three ways, so that no real question is bent into a category: the name has as many words
    as the phrase, each word pair shares its first letter and is similar on its own
    (OWN_NAME_WORD_CUTOFF, or one letter apart in a short word: "nats" for "nuts"), and the words' mean similarity clears OWN_NAME_CUTOFF for exactly one best
    name; the caller uses the correction only when no category, taxonomy node or title holds the phrase
    as written. Own names only: they are the merchant's few hundred categories, not the taxonomy's
    thousands, and a typo of a Google name is already corrected word by word."""
    start, end = miss
    pos = [i for i in range(start, end) if seq[i] != "and" and seq[i] not in STOPWORDS]
    if len(pos) < 2:
        return seq
    words = [seq[i] for i in pos]
    best: list[tuple[float, tuple[str, ...]]] = []
    for name in own.own_levels:
        if len(name) != len(words) or name == tuple(words):
            continue
        scores = []
        for w, n in zip(words, name):
            if w[:1] != n[:1] or abs(len(w) - len(n)) > 2:
                break
            r = 1.0 if w == n else difflib.SequenceMatcher(None, w, n).ratio()
            one_letter = len(w) == len(n) >= 3 and sum(a != b for a, b in zip(w, n)) == 1  # "nats" for "nuts"
            if r < OWN_NAME_WORD_CUTOFF and not one_letter:
                break
            r = max(r, OWN_NAME_WORD_CUTOFF) if one_letter else r
            scores.append(r)
        else:
            best.append((sum(scores) / len(scores), name))
    best.sort(reverse=True)
    if not best or best[0][0] < OWN_NAME_CUTOFF or (len(best) > 1 and best[1][0] == best[0][0]):
        return seq
    out = list(seq)
    for i, w in zip(pos, best[0][1]):
        out[i] = w
    return out


@dataclass
class _Draft:
    """One question while `plan` decides: its words as written (for labels and notes), the token sequence
    as finally read and its `_Reading`, and what the steps have settled so far. Mutable on purpose: each
    step of `plan` reads what the earlier ones set, in the order the module docstring gives."""

    words: list[str]
    seq: list[str]
    reading: _Reading
    skills: list[str]
    miss: Span | None
    scope: Scope | None = None
    resolved: str | None = None  # the scope phrase as resolved: what the memory keeps
    unmatched: str | None = None
    near: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    guessed: dict[str, str] = field(default_factory=dict)  # category words guessed for typos → as written
    kept_missing_sizes: bool = False  # a follow-up kept the previous turn's skills, which asked for missing sizes


def plan(question: str, own: pa.Table | None, taxonomy: Taxonomy, memory: PlanMemory | None = None) -> Plan:
    """Skills, scope and notes for one question; `memory` is the previous turn's PlanMemory in this context.

    The memory keeps the scope phrase as it *resolved* (typos corrected, words stemmed), so a
    follow-up after "gaps in outdor furnture" keeps Outdoor Furniture exactly as after the correctly
    spelled question. A follow-up without a category phrase keeps the previous scope; "across the
    whole catalog", "overall", "everything" reset it."""
    tax_idx = taxonomy_index(taxonomy)
    idx = _Indexes(own=own, own_idx=own_index(own, taxonomy), taxonomy=taxonomy, tax_idx=tax_idx)
    draft = _read_question(question, idx)
    _place_scope(draft, idx)
    follow = _starts_with(draft.seq, FOLLOW_UP_TOKENS) or len([t for t in draft.seq if t not in STOPWORDS]) <= 2
    if memory and follow:
        _follow_up(draft, memory, idx)
    _note_unmatched(draft, idx)
    _keep_whole_phrase(draft, idx)
    _say_empty_guess(draft, idx)
    _say_titles_outside(draft, idx)
    _say_joined_google_name(draft, idx)
    if draft.scope is not None and draft.scope.widened:
        draft.notes.append(draft.scope.widened)
    if not draft.skills:
        _fall_back(draft, bool(memory and follow))
    return _finish(draft)


def _read_question(question: str, idx: _Indexes) -> _Draft:
    """Steps 0–3 up to the match: the question's tokens in English, typos corrected, read (`_read`), and
    read again where a corrected typo makes a phrase name a category."""
    words = raw_tokens(question or "")[:MAX_TOKENS]
    raw = [stem(w) for w in words]
    from agent.analysis import lexicon  # other languages → English tokens; English passes unchanged

    words, raw = lexicon.to_english(words, raw, idx.own_idx.lexicon_names, idx.own_idx.node_rows, idx.taxonomy)
    raw, words, said = _read_synonyms(list(raw), list(words), idx)
    guessed: dict[str, str] = {}
    seq = _correct(raw, INTENT_VOCAB, idx.tax_idx.vocab, idx.own_idx.vocab, guessed, lambda w: _real_word(w, idx))
    seq, words = _for_phrase(seq, list(words))
    seq, reading = _retyped_own_name(seq, _read(seq, idx), idx)
    seq, reading = _retyped_short_words(seq, reading, idx)
    draft = _Draft(words=words, seq=seq, reading=reading, skills=reading.skills, miss=reading.miss, guessed=guessed)
    draft.notes.extend(said)
    return draft


def _real_word(word: str, idx: _Indexes) -> bool:
    """Is an unknown (stemmed) word a real product word rather than a typo of a category word: a whole
    name the product taxonomies publish ("sneakers"), or a word the shop's titles hold?

    A clothing shop's "How many sneakers do I have?" (held-out abdulkayium/csv_product, 13 sneakers by
    title) was corrected to its own category "Speaker" (two Bluetooth speakers) and answered so: the
    guess found products, so nothing said it was a guess. Asked only for the few words a typo guess
    would replace."""
    from agent.analysis import scope_resolution
    from agent.catalog import namematch

    if namematch.whole_name_places(word)[0]:
        return True
    return idx.own is not None and scope_resolution.titles_say(idx.own, word)


def _read_synonyms(seq: list[str], words: list[str], idx: _Indexes) -> tuple[list[str], list[str], list[str]]:
    """Everyday names no taxonomy publishes ("cutlery", "jumpers", "bathing suits") replaced by the name
    that is published (`agent.analysis.synonyms`), with a sentence for each: (tokens, words, notes).

    A name is replaced only where it ends a run of content words (the product noun is last: "jumper
    cables" keep their words) and only when the shop does not hold it as written — no own category,
    no Google name it has products under, no title names it; then the words as written stand."""
    from agent.analysis import synonyms

    table = synonyms.by_tokens()
    if not any(t in {k[-1] for k in table} for t in seq):
        return seq, words, []
    notes: list[str] = []
    i = 0
    while i < len(seq):
        for phrase, (entry, published) in sorted(table.items(), key=lambda kv: -len(kv[0])):
            j = i + len(phrase)
            if tuple(seq[i:j]) != phrase or (j < len(seq) and seq[j] not in STOPWORDS | INTENT_VOCAB):
                continue
            if _holds_as_written(phrase, " ".join(words[i:j]), idx):
                break
            notes.append(
                f"“{' '.join(words[i:j])}” is read as “{' '.join(published)}”, the name the product taxonomies "
                f"publish: {entry.why}."
            )
            seq = seq[:i] + [stem(w) for w in published] + seq[j:]
            words = words[:i] + list(published) + words[j:]
            i += len(published) - 1
            break
        i += 1
    return seq, words, notes


def _holds_as_written(phrase: tuple[str, ...], written: str, idx: _Indexes) -> bool:
    """Does the shop hold the words as written: an own category of that name, a Google name it has
    products under, or titles naming the product (the whole phrase: titles naming only its noun, a
    "suit" for "bathing suits", are a loosened reading, not the words as written)?"""
    own = idx.own_idx
    if phrase in own.own_levels or "".join(phrase) in own.own_joined or phrase in own.own_content:
        return True
    if match_phrase(phrase, own, idx.taxonomy, idx.tax_idx, True) is not None:
        return True
    if partial_sold(phrase, own, idx.taxonomy, idx.tax_idx) is not None:
        return True
    if idx.own is None:
        return False
    by_title = idx.by_title(written, phrase)
    return by_title is not None and not by_title.widened  # "a suit" alone is no bathing suit


def _retyped_own_name(seq: list[str], reading: _Reading, idx: _Indexes) -> tuple[list[str], _Reading]:
    """ "sweats & snaks": a whole own name mistyped — matching nothing, or only by one of its words — is read
    as that name (`_correct_to_own_name`), unless the titles hold the phrase as written or the corrected
    phrase still matches only shortened."""
    match, span = reading.match, reading.span
    typo_run = reading.miss if match is None else _run_around(seq, reading.used, span)
    if match is not None and typo_run is not None and span is not None and tuple(typo_run) == tuple(span):
        if not match.shortened:
            return seq, reading  # the whole phrase matched as written
    if typo_run is None or idx.own is None:
        return seq, reading
    fixed = _correct_to_own_name(seq, typo_run, idx.own_idx)
    if fixed == seq or idx.by_title("", phrase_at(seq, *typo_run)) is not None:
        return seq, reading
    again = _read(fixed, idx)
    if again.match is not None and not again.match.shortened:
        return fixed, again
    return seq, reading


def _retyped_short_words(seq: list[str], reading: _Reading, idx: _Indexes) -> tuple[list[str], _Reading]:
    """ "pajama suts", "vertcal blnds": short typos inside a phrase that matched nothing, kept only when the
    corrected phrase then matches (`_correct_in_run`)."""
    if reading.match is not None or reading.miss is None:
        return seq, reading
    fixed = _correct_in_run(seq, reading.miss, idx.tax_idx.vocab, idx.own_idx.vocab)
    if fixed == seq:
        return seq, reading
    again = _read(fixed, idx)
    return (fixed, again) if again.match is not None else (seq, reading)


def _place_scope(draft: _Draft, idx: _Indexes) -> None:
    """Steps 3–4: the scope from the category match, else from the titles for the phrase that matched
    nothing ("pond pumps"), else from words left without "in" (`_place_leftover_words`)."""
    reading, seq, words, miss = draft.reading, draft.seq, draft.words, draft.miss
    span, match = reading.span, reading.match
    draft.unmatched = " ".join(words[miss[0] : miss[1]]) if miss else None
    draft.resolved = " ".join(phrase_at(seq, *span)) if span else None
    if match is not None and span is not None:
        display = " ".join(words[span[0] : span[1]])
        written = as_written(match, display, idx.own_idx, idx.taxonomy, idx.tax_idx)
        if written is not match:  # "diapers" is Diapers, not Diapering: the memory keeps the words as written
            match, draft.resolved = written, display.casefold()
        match.phrase = display
        if match.taxonomy_id is None and match.label == draft.resolved:  # named by the question's own words
            match.label = display
        draft.scope = placed(to_scope(match, idx.taxonomy), idx.own, idx.own_idx, idx.taxonomy, phrase_at(seq, *span))
    elif draft.unmatched and miss is not None:  # no category has the words: perhaps the titles do
        draft.scope = idx.by_title(draft.unmatched, phrase_at(seq, *miss))
        if draft.scope is not None:
            draft.resolved, draft.unmatched = " ".join(phrase_at(seq, *miss)), None
        elif not _read_as_published_name(draft, draft.unmatched, idx):
            _say_none_held(draft, phrase_at(seq, *miss), idx)
    elif not reading.whole and idx.own is not None:
        _place_leftover_words(draft, idx)


def _say_none_held(draft: _Draft, phrase: tuple[str, ...], idx: _Indexes) -> None:
    """A product noun the shop holds no trace of: the empty scope of the words as written
    (`scope_resolution.none_held`), not "No category matches" and the whole catalog."""
    scope = none_held(draft.unmatched or "", idx.own, idx.own_idx, idx.taxonomy, idx.tax_idx, phrase)
    if scope is not None:
        draft.scope, draft.resolved, draft.unmatched = scope, " ".join(phrase), None


def _place_leftover_words(draft: _Draft, idx: _Indexes) -> None:
    """Words left without "in" ("how are my loungers priced?"): the last word runs tried against titles
    (MAX_TITLE_TRIES); failing that, products the merchant named ("my dog products") are the category the
    words name, or said unmatched — never answered silently for the whole catalog."""
    seq, words = draft.seq, draft.words
    for start, end in list(reversed(word_runs(seq, draft.reading.used)))[:MAX_TITLE_TRIES]:
        draft.scope = idx.by_title(" ".join(words[start:end]), phrase_at(seq, start, end))
        if draft.scope is not None:
            draft.resolved = " ".join(phrase_at(seq, start, end))
            return
    owned = _possessive_run(draft)
    if owned is None:
        return
    phrase = " ".join(phrase_at(seq, *owned))
    # labelled with the words as the merchant wrote them ("helmets"), not their stems ("helmet"), as
    # "How many helmets do I have?" is when its words go to the titles first
    written = " ".join(words[owned[0] : owned[1]])
    draft.scope = scope_for(tuple(phrase_at(seq, *owned)), written, idx.own, idx.own_idx, idx.taxonomy, idx.tax_idx)
    if draft.scope is not None:  # "my dog products": the category the words name (Dog Supplies)
        draft.resolved = phrase
    else:
        draft.miss, draft.unmatched = owned, " ".join(words[owned[0] : owned[1]])
        _read_as_published_name(draft, draft.unmatched, idx)


def _possessive_run(draft: _Draft) -> Span | None:
    """The word run after "my"/"our", a selling verb or "any"/"many" that names the merchant's products:
    a plural ("my sweatshirts", not "my top"), followed by a product word ("my dog products"), or the
    lone last word after a selling verb ("do I sell pizza?")."""
    seq, words = draft.seq, draft.words
    return next(
        (
            (a, b)
            for a, b in word_runs(seq, draft.reading.used)
            if a > 0
            and seq[a - 1] in _POSSESSIVE | _SELLING | _COUNTING
            and (
                words[b - 1].lower() != seq[b - 1]
                or (b < len(seq) and seq[b] in _PRODUCT_WORDS)
                or (seq[a - 1] in _SELLING and b == len(seq) and b - a == 1)
            )
        ),
        None,
    )


def _follow_up(draft: _Draft, memory: PlanMemory, idx: _Indexes) -> None:
    """Step 6: a follow-up takes from the memory what it does not say — the scope ("and pricing?"), the
    skills ("what about lighting?", "and across the whole catalog?")."""
    if not draft.reading.whole:
        if draft.skills and draft.scope is None and draft.unmatched is None and memory.scope_phrase:
            phrase = memory.scope_phrase  # "and pricing?" — same scope, new skill
            again = scope_for(tuple(tokens(phrase)), phrase, idx.own, idx.own_idx, idx.taxonomy, idx.tax_idx)
            if again is not None:
                draft.scope, draft.resolved = again, phrase
        if not draft.skills and (draft.scope is not None or draft.unmatched is not None) and memory.skills:
            draft.skills = list(memory.skills)  # "what about lighting?" — same skills, new scope
            draft.kept_missing_sizes = memory.missing_sizes
    elif not draft.skills and draft.scope is None and memory.skills:
        draft.skills = list(memory.skills)  # "and across the whole catalog?" — same skills, the scope reset
        draft.kept_missing_sizes = memory.missing_sizes


def _note_unmatched(draft: _Draft, idx: _Indexes) -> None:
    """Step 5: a phrase that matched nothing anywhere is said, with the nearest categories that exist."""
    if not draft.unmatched or draft.miss is None:
        return
    draft.near = nearest(" ".join(draft.seq[draft.miss[0] : draft.miss[1]]), idx.own_idx, idx.taxonomy)
    near_text = ", ".join(draft.near) if draft.near else "none"
    draft.notes.append(
        f"No category matches “{draft.unmatched}”; nearest: {near_text}. The answer covers the whole catalog."
    )


def _keep_whole_phrase(draft: _Draft, idx: _Indexes) -> None:
    """A scope matched by only part of the phrase written ("tote bags" → Bags): the titles' scope for the
    whole phrase when they hold it, else a note that the scope is the closest broader category."""
    reading, seq, scope = draft.reading, draft.seq, draft.scope
    if scope is None or reading.span is None or reading.claim:
        return
    run = _run_around(seq, reading.used, reading.span)
    if run is None:
        return
    dropped = [w for w in seq[run[0] : reading.span[0]] if w not in STOPWORDS and w != "and"]
    if not (dropped or (reading.match is not None and reading.match.shortened)):
        return
    asked = " ".join(draft.words[run[0] : run[1]])
    by_title = idx.by_title(asked, phrase_at(seq, *run))
    if by_title is not None and not by_title.widened:  # titles name the whole phrase: "tote bags"
        draft.scope, draft.resolved = by_title, " ".join(phrase_at(seq, *run))
    else:
        draft.notes.append(
            f"No category is called “{asked}”; the scope is {scope.label}, the closest broader category."
        )


def _say_empty_guess(draft: _Draft, idx: _Indexes) -> None:
    """A scope reached only through a typo guess that holds no active product: the titles' scope for the
    word as written when they hold it, else a note that says the word was read as another.

    "How many sneakers do I have?" on a French shoe shop (no category, taxonomy name or title has
    "sneakers") corrected the real word to "speakers" and answered "Catalog overview: Speakers … No
    active products", a category the merchant never named. A guess is not evidence: when it finds
    nothing, what the merchant wrote is tried against the titles, and otherwise the answer says how the
    word was read. Decision: the empty guessed scope stays (a merchant who typed "outdor furnture" in a
    shop without outdoor furniture is told there is none), with the sentence; a guess that finds
    products is not remarked on (the typo's correction is then the evidence)."""
    scope, span = draft.scope, draft.reading.span
    if scope is None or span is None or not scope.found or any(n > 0 for _, n in scope.found):
        return
    phrase = phrase_at(draft.seq, *span)
    if not any(t in draft.guessed for t in phrase):
        return
    written = tuple(draft.guessed.get(t, t) for t in phrase)
    asked = " ".join(draft.words[span[0] : span[1]])
    by_title = idx.by_title(asked, written)
    if by_title is not None:
        draft.scope, draft.resolved = by_title, " ".join(written)
        return
    if _read_as_published_name(draft, asked, idx):
        return
    draft.notes.append(
        f"No category and no title is called “{asked}”; it is read as {scope.label}, the category name "
        "closest to how it is written."
    )


def _read_as_published_name(draft: _Draft, asked: str, idx: _Indexes) -> bool:
    """A phrase no category, Google name or title holds, read as the Google category its whole published
    name stands for (`namematch.whole_name_places`: "t-shirts" → Shirts & Tops, "sneakers" → Shoes), with
    a sentence saying so; False, and the draft unchanged, when it names none. A name with several places
    is read as the one the shop holds products in, else as the matcher reads it. Only for a noun that no
    Google name holds: where Google's names hold it ("horse", "fountain") the planner's reading of them
    (unmatched, when no single family leads) stands.

    "Where are the gaps in t-shirts?" on a swimwear shop said "No category matches “t shirts”" and
    answered for the whole catalog; "How many sneakers do I have?" on a shop without them was read as
    Speakers. Shopify's taxonomy publishes these everyday names and maps each to a Google place, which
    is what the catalog layer files such products under, so the question is answered there (none, here:
    a gap) and says how the word was read."""
    from agent.catalog import namematch

    places, pick = namematch.whole_name_places(asked)
    if not places and " " in asked:  # the question's words split "t-shirts" into "t shirts"
        places, pick = namematch.whole_name_places(asked.replace(" ", "-"))
        asked = asked.replace(" ", "-") if places else asked
    noun = tokens(asked.replace("-", ""))[-1:] or [""]
    if noun[0] in idx.tax_idx.vocab:  # a word of Google's own names: the planner's reading stands
        return False
    held = [g for g in places if idx.own_idx.node_rows.get(g, 0) > 0]
    gid = best_node(held, idx.own_idx, idx.taxonomy) if held else pick
    if gid is None or gid not in idx.taxonomy.nodes:
        return False
    name = idx.taxonomy.nodes[gid].name
    scope = scope_for(tuple(tokens(name)), name, idx.own, idx.own_idx, idx.taxonomy, idx.tax_idx)
    if scope is None or (scope.taxonomy_id != gid and tokens(scope.own_label or "") != tokens(name)):
        return False  # ...unless the shop's own category has the place's very name ("SHOES" for Shoes)
    draft.scope, draft.resolved, draft.unmatched = scope, name, None
    where = (
        f"{scope.label}, the Google category"
        if scope.taxonomy_id == gid
        else f"your category {scope.label}, named as {name}, the Google category"
    )
    draft.notes.append(
        f"No category and no title is called “{asked}”; it is read as {where} the product taxonomies file it under."
    )
    return True


def _say_titles_outside(draft: _Draft, idx: _Indexes) -> None:
    """A scope of titles alone (no category has the words), or an empty one: how many more active
    products name the words in their title without being that product, with an example.

    "How many diamonds do I have?" on a jewellery shop (held-out otwd-srb/olt-jewellery) counted 7
    while some 300 titles say "… Diamond Ring" or "… Ring with Diamonds": those were left out unsaid.
    Decision: a Diamond Ring is a ring, not a diamond — the scope stays the products the title names
    as the product (the one rule for titles, `catalog.nouns`), and the answer says how many more name
    the word and how to ask for them ("diamond rings"). The same sentence tells an empty scope ("foil"
    on a gift-box shop) that its titles name the word. Single words only: a title holding a phrase of
    several words ("cocktail ring") is that product, and the noun rule's misses are no feature."""
    from agent.analysis import scoping

    scope, own = draft.scope, idx.own
    if scope is None or own is None or not draft.resolved or not scope.found:
        return
    total = sum(n for _, n in scope.found)
    if total and (scope.taxonomy_id is not None or scope.own_paths or scope.merchant_categories):
        return
    _say_titled_elsewhere(draft, idx, total)
    words = tuple(t for t in draft.resolved.split() if t not in STOPWORDS and t != "and")
    if len(words) != 1:  # a phrase of several words in a title is that product, whatever its noun rule says
        return
    n, example = scoping.named_outside(own, scope, idx.taxonomy, words)
    if not n or example is None:
        return
    from agent.catalog.nouns import head_noun

    asked = scope.phrase or draft.resolved
    one = n == 1
    text = (
        f"{'Another ' if total else ''}{n:,} active {'product has' if one else 'products have'} “{asked}” in "
        f"{'its' if one else 'their'} title without the title or {'its' if one else 'their'} category making "
        f"{'it' if one else 'them'} {asked} (as “{example}”)"
    )
    text = text[0].upper() + text[1:]
    noun = head_noun(example).casefold()
    stems = tokens(noun)
    if stems and stems[-1] not in words and stems[-1] not in STOPWORDS and len(noun) > 2:
        text += f"; ask for “{' '.join(words)} {noun if noun.endswith('s') else _plural(noun)}” to count those"
    draft.notes.append(text + ".")


def _say_titled_elsewhere(draft: _Draft, idx: _Indexes, total: int) -> None:
    """Products whose title names the scope's product but that the merchant filed in another Google
    category: said as such, with that category to ask for (scoping.titled_elsewhere), never as titles
    that merely mention the word."""
    from agent.analysis import scoping

    scope = draft.scope
    assert scope is not None and idx.own is not None
    out = scoping.titled_elsewhere(idx.own, scope, idx.taxonomy)
    if not out.products or out.example is None:
        return
    asked = scope.phrase or draft.resolved or ""
    one = out.products == 1
    where = f" under {out.category}" if out.category else " in another category"
    text = (
        f"{'Another ' if total else ''}{out.products:,} active {'product is' if one else 'products are'} titled as "
        f"{asked} (as “{out.example}”) but filed{where}: a title does not move a product out of the Google "
        f"category it is filed in, so {'it is' if one else 'they are'} not counted here"
    )
    if out.category:
        text += f"; ask for “{out.category.split(' > ')[-1].lower()}” to count {'it' if one else 'them'}"
    draft.notes.append(text[0].upper() + text[1:] + ".")


def _say_joined_google_name(draft: _Draft, idx: _Indexes) -> None:
    """An own category asked for by a word that is also one part of a joined Google name holding more of
    the shop's products: that name and its count are said, with how to ask for it.

    "How many shirts do I have?" on a held-out print-on-demand shop counted its product type "Shirt"
    (8 products) and said nothing of Google's Shirts & Tops, where it files 59: a merchant who meant
    the shirts and tops together was not told. The own category stays the scope (a name the merchant
    wrote is counted exactly); the sentence gives the joined name and its number."""
    from agent.analysis import scoping
    from agent.analysis.scope_resolution import to_scope

    scope, own = draft.scope, idx.own
    if scope is None or own is None or scope.taxonomy_id is not None or not scope.found:
        return
    if not (scope.own_paths or scope.title_terms) or scope.widened:  # an own category or titles, unwidened
        return
    words = tuple(t for t in (draft.resolved or "").split() if t not in STOPWORDS and t != "and")
    if len(words) != 1:
        return
    total = sum(n for _, n in scope.found)
    best: tuple[int, int] | None = None
    for node_id in idx.tax_idx.by_token.get(words[0], ()):
        name = idx.taxonomy.nodes[node_id].name
        parts = [tuple(tokens(p)) for p in name.replace(",", "&").split("&") if p.strip()]
        if len(parts) < 2 or words not in parts or not idx.own_idx.node_rows.get(node_id, 0):
            continue
        m = Match(node_id, (), name, name)
        n = sum(c for _, c in scoping.found(own, to_scope(m, idx.taxonomy), idx.taxonomy))
        if n > total and (best is None or n > best[1]):
            best = (node_id, n)
    if best is None:
        return
    name = idx.taxonomy.nodes[best[0]].name
    asked = name.lower().replace(" & ", " and ").replace(", ", " and ")
    draft.notes.append(
        f"The scope is {_what_scope_is(scope)} ({total:,} active "
        f"{'product' if total == 1 else 'products'}); Google's {name}, which holds {scope.phrase or words[0]} "
        f"together with the rest of its name, has {best[1]:,} of your active products: ask for “{asked}” to "
        "count them."
    )


def _what_scope_is(scope: Scope) -> str:
    """An own or title scope named in a sentence: "your category Jacket", "your categories Bomber Jackets
    and Trucker Jackets", "the products whose title names jackets"."""
    if scope.own_label:
        return f"your category {scope.own_label}"
    levels = sorted({p.rsplit(" > ", 1)[-1] for p in scope.own_paths})
    if len(levels) == 1:
        return f"your category {levels[0]}"
    if levels:
        return f"your categories {', '.join(levels[:-1])} and {levels[-1]}"
    return f"the products whose title names {scope.phrase or scope.label}"


def _plural(noun: str) -> str:
    """An English plural for a suggested question ("box" → "boxes", "accessory" → "accessories")."""
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


def _fall_back(draft: _Draft, follow_up: bool) -> None:
    """No intent at all: the catalog overview, with the line listing what the agent answers (not on a
    follow-up that kept its scope)."""
    draft.skills = [FALLBACK]
    if follow_up and draft.scope is not None:
        return
    if draft.scope is None:
        draft.notes.append(CAPABILITIES_NOTE)
    else:
        overview = "Here is an overview of this category."
        draft.notes.append(CAPABILITIES_NOTE.replace("Here is an overview of the catalog.", overview))


def _finish(draft: _Draft) -> Plan:
    """The plan: skills in the registry's order, the scope (or the unmatched phrase with its nearest
    categories), step 7's reference flag, and the memory the next turn gets."""
    scope = Scope(unmatched=draft.unmatched, nearest=draft.near) if draft.unmatched else draft.scope or Scope()
    if _has(draft.seq, REFERENCE_TOKENS):
        scope = replace(scope, wants_reference=True)
    if (_SIZE_WORDS & set(draft.seq) and _LACKING_WORDS & set(draft.seq)) or draft.kept_missing_sizes:
        scope = replace(scope, wants_missing_sizes=True)
    skills = tuple(s for s in SKILL_ORDER if s in draft.skills)
    return Plan(
        skills=skills,
        scope=scope,
        notes=tuple(draft.notes),
        memory=PlanMemory(
            skills=skills,
            scope_phrase=draft.resolved if not scope.is_whole_catalog else None,
            missing_sizes=scope.wants_missing_sizes,
        ),
    )
