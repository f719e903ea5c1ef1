"""Everyday product names that no taxonomy publishes, read as the name that is published.

Decision (README, "Which products a question is about"): a short table, written by hand, of words
merchants use for products whose published name is another word — British English beside American
("cutlery", "jumpers", "trainers", "nappies", "prams") and plain synonyms ("couches", "settees",
"swimsuits", "bathing suits"). Neither Google's taxonomy nor Shopify's publishes these words as a
category (tests/test_scope_everyday_words.py checks that no Google name is made of an entry's words),
so without the table the planner said "No category matches “cutlery”" with a
nearest list unrelated to the question, or read "bathing suits" as Suits and "trainers" as a bicycle
trainer's word. The table is not a thesaurus: an entry is a word that names one kind of product in
everyday shop language, whose published name is unambiguous.

The table only ever replaces a question's words when the shop itself does not hold them: an own
category called so, a Google name the shop has products under ("jumpers" in a baby shop selling
Baby Jumpers & Swings) or a title naming the product keeps the words as written
(`planner._read_synonyms`), and the answer says how the words were read.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from agent.analysis.vocabulary import raw_tokens, stem


@dataclass(frozen=True)
class Synonym:
    """One everyday name (`words`), the published name it is read as (`reads_as`) and why. The reason
    names no Google category: where the published name lands depends on the shop (a garden shop's
    "couches" are its Outdoor Sofas), and the answer's scope line says where."""

    words: str
    reads_as: str
    why: str


TABLE: tuple[Synonym, ...] = (
    Synonym(
        "cutlery",
        "flatware",
        "British and everyday English for knives, forks and spoons (Google's one cutlery name is Disposable "
        "Cutlery, for food service)",
    ),
    Synonym("jumpers", "sweaters", "British English for sweaters"),
    Synonym("trainers", "sneakers", "British English for sneakers (Google's trainers are exercise machines)"),
    Synonym("couches", "sofas", "another name for a sofa"),
    Synonym("settees", "sofas", "another name for a sofa"),
    Synonym("nappies", "diapers", "British English for diapers"),
    Synonym("prams", "baby strollers", "British English for a baby carriage"),
    Synonym("pushchairs", "baby strollers", "British English for a stroller"),
    Synonym("swimsuits", "swimwear", "a swimsuit is swimwear"),
    Synonym("bathing suits", "swimwear", "a bathing suit is swimwear, not a suit"),
    Synonym("swimming costumes", "swimwear", "British English for a swimsuit"),
)


@functools.lru_cache(maxsize=1)
def by_tokens() -> dict[tuple[str, ...], tuple[Synonym, tuple[str, ...]]]:
    """{the everyday name's planner tokens: (its entry, the published name's words as written)}; the
    singular and the plural are one set of tokens (`stem`)."""
    return {tuple(stem(w) for w in raw_tokens(s.words)): (s, tuple(raw_tokens(s.reads_as))) for s in TABLE}
