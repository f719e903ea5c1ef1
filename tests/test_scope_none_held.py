"""A product the taxonomy names that the shop holds no trace of is an empty scope, said so — never "No
category matches" with the whole catalog counted (`scope_resolution.none_held`).

A held-out sweep of ten Shopify exports (vintage lighting, women's clothing, a food shop, electronics
parts, window blinds, Italian motorbike luggage, German spirits, motorbike helmets, wall art, hair
care) asked each about products it does not sell: "How many jackets do I have?" was answered "No
category matches “jackets”; nearest: Baskets, Tea Sets…" and then the whole catalog, in six of them;
"helmets", "goggles", "gloves", "frames", "bags" and "tops" alike. Those words name products (most
Google names holding them hold them as their noun: Life Jackets, Coats & Jackets), but none as a node
of its own, so nothing was read. Words that mostly say what products are for ("horse": Horse Tack,
Horse Care) still name no scope (tests/test_planner_published_names.py, tests/test_scope_answers.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.analysis.planner import PlanMemory, plan, tokens
from agent.analysis.scope_resolution import names_a_product
from agent.analysis.vocabulary import taxonomy_index
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from tests.helpers import plan_and_answer, shopify

ROOT = Path(__file__).resolve().parents[1]
TAX = load()
NOUNS = ("jackets", "tops", "bags", "goggles", "gloves", "helmets", "frames")
EMPTY = "No active products in this scope"


def _lighting_shop():
    lamps = "Home & Garden > Lighting > Lamps > Table Lamps"
    return shopify([(f"Murano Glass Table Lamp {i}", lamps, "Table lamp") for i in range(4)] + [("Oak Chair", "", "")])


@pytest.mark.parametrize("word", [*NOUNS, "fountains", "spaceships"])
def test_a_product_the_shop_holds_nothing_of_is_an_empty_scope_said_so(word):
    p, result, md = plan_and_answer(f"How many {word} do I have?", _lighting_shop())
    assert p.scope.unmatched is None and p.scope.taxonomy_id is None, p.scope
    assert p.scope.label == word and not any(n for _, n in p.scope.found)
    assert EMPTY in md and "No category matches" not in md and "whole catalog" not in md


@pytest.mark.parametrize("question", ["Where are the gaps in jackets?", "Show me price gaps in goggles"])
def test_every_skill_answers_the_empty_scope_not_the_catalog(question):
    p, result, md = plan_and_answer(question, _lighting_shop())
    assert p.scope.label in question and EMPTY in md
    assert not result.table.num_rows or result.table.to_pylist()[0].get("Products", 0) == 0


def test_a_follow_up_keeps_the_empty_scope():
    shop = _lighting_shop()
    first = plan("How many helmets do I have?", shop, TAX)
    again = plan("and pricing?", shop, TAX, PlanMemory.from_dict(first.memory.to_dict()))
    assert again.scope.label == "helmet" and not any(n for _, n in again.scope.found)
    assert again.scope.unmatched is None and not again.scope.is_whole_catalog


def test_a_word_that_mostly_says_what_products_are_for_names_no_product():
    idx = taxonomy_index(TAX)
    assert all(names_a_product(w, TAX, idx) for w in ("jacket", "top", "bag", "goggle", "glove", "helmet", "frame"))
    assert not any(names_a_product(w, TAX, idx) for w in ("horse", "bird", "outdoor", "patio", "black"))


# --- the property over the corpus -------------------------------------------------------------------
FILES = sorted(p for p in (ROOT / "tests" / "corpus").rglob("*") if p.suffix.lower() in (".csv", ".tsv", ".txt"))


def _trace(table, word: str) -> bool:
    """Does the file hold the word anywhere a scope could come from: a title, an own category or type,
    a Google category path (case-insensitive, singular or plural, as a whole word)?"""
    stem = tokens(word)[0]
    pattern = re.compile(rf"\b{re.escape(stem[:-1] if stem.endswith('e') else stem)}\w*", re.I)
    for column in ("title", "own_categories", "product_type", "google_category_path"):
        if column in table.column_names and any(pattern.search(v or "") for v in set(table[column].to_pylist())):
            return True
    return False


def test_across_the_corpus_a_noun_no_shop_holds_is_said_empty():
    """For every corpus export and each noun, when nothing in the file holds the word, the question is
    an empty scope of that word: never the whole catalog, never a product counted."""
    asked, problems = 0, []
    for path in FILES:
        try:
            table, _ = read_table_bytes(path.read_bytes(), path.name, "attached file")
        except UnreadableCatalog:
            continue
        if not table.num_rows:
            continue
        for word in NOUNS:
            if _trace(table, word):
                continue
            asked += 1
            p = plan(f"How many {word} do I have?", table, TAX)
            if p.scope.is_whole_catalog or p.scope.unmatched or any(n for _, n in p.scope.found):
                problems.append(f"{path.parent.name}/{path.name}: {word} → {p.scope.label} {dict(p.scope.found)}")
    assert asked >= 100, asked
    assert not problems, "\n".join(problems)


def test_a_word_the_shop_holds_the_start_of_is_not_said_empty():
    """ "photographs" on a held-out wall-art shop (596050/boldstone: type Photography, titles
    "… Photographic Print") is no product it lacks: no empty scope is claimed for it."""
    art = "Home & Garden > Decor > Artwork"
    t = shopify([("Palm Fan Photographic Print", art, "Photography"), ("Ammonite Wall Sculpture", art, "sculpture")])
    p = plan("How many photographs do I have?", t, TAX)
    assert p.scope.label != "photographs" or any(n for _, n in p.scope.found), p.scope
