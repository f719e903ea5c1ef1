"""A phrase no category, Google name or title holds is read as the Google place of its whole published
name (planner._read_as_published_name, namematch.whole_name_places), and says so.

"Where are the gaps in t-shirts?" on a swimwear shop said "No category matches “t shirts”" and
answered for the whole catalog; "How many sneakers do I have?" on a shop without them was read as
Speakers. Shopify's taxonomy publishes these names and maps each to a Google place."""

from __future__ import annotations

import pytest

from agent.analysis.planner import plan
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from tests.helpers import csv_bytes

TAX = load()
HEADER = ["Handle", "Title", "Vendor", "Type", "Variant SKU", "Variant Price", "Status"]
BABY_TOPS = 5410  # Apparel & Accessories > Clothing > Baby & Toddler Clothing > Baby & Toddler Tops
READ_AS = "it is read as"


def _swim_shop():
    rows = [[f"s{i}", f"Coral Bikini Top {i}", "Bilali", "Swimwear", f"S{i}", "89.00", "active"] for i in range(4)]
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    return table


@pytest.mark.parametrize(
    ("question", "node", "shown"),
    [
        ("Where are the gaps in t-shirts?", 212, "t-shirts"),  # Shirts & Tops
        ("How many sneakers do I have?", 187, "sneakers"),  # Shoes, not Speakers
        ("How are my leggings priced?", 204, "leggings"),  # Pants
        ("How many hoodies do I have?", 212, "hoodies"),
    ],
)
def test_a_published_name_the_shop_lacks_is_its_google_place(question, node, shown):
    p = plan(question, _swim_shop(), TAX, None)
    assert p.scope.taxonomy_id == node and p.scope.unmatched is None
    assert any(f"“{shown}”; {READ_AS} {TAX.nodes[node].name}" in n for n in p.notes)


def test_a_name_with_several_places_is_the_one_the_shop_holds():
    """Shopify files "T-Shirts" under four Google places; a baby shop's question is about its own."""
    baby = "Apparel & Accessories > Clothing > Baby & Toddler Clothing > Baby & Toddler Tops"
    header = [*HEADER, "Product Category"]
    rows = [[f"b{i}", f"Cotton Romper {i}", "Tiny", "", f"B{i}", "19.00", "active", baby] for i in range(3)]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", "attached file")
    p = plan("How many t-shirts do I have?", table, TAX, None)
    assert p.scope.taxonomy_id == BABY_TOPS and any(READ_AS in n for n in p.notes)
    assert plan("How many t-shirts do I have?", _swim_shop(), TAX, None).scope.taxonomy_id == 212


@pytest.mark.parametrize("word", ["blacks", "bikinis", "horses"])
def test_a_word_no_taxonomy_publishes_as_a_name_stays_unmatched(word):
    """ "blacks" is no product name; Shopify's "Bikinis" are underpants,
    filed under no place its path names; "horse" is a word of Google's own names, whose reading stands
    (no single family leads them, and most say what products are for: Horse Tack): no guess is made for
    any of them. ("fountains", which Google's names hold as their noun, is an empty scope the shop holds
    nothing of: tests/test_scope_none_held.py.) English "couches" and
    British "jumpers" are everyday names of sofas and sweaters (agent.analysis.synonyms): not guesses."""
    p = plan(f"How many {word} do I have?", _swim_shop(), TAX, None)
    assert p.scope.unmatched == word and not any(READ_AS in n for n in p.notes)


def test_a_word_that_extends_an_intent_word_is_no_typo_of_it():
    """ "wellies" was corrected to "well" (an intent word: "selling well"), vanished, and "Where are the
    gaps in wellies?" was answered for the whole catalog without a word (planner._correct)."""
    for question in ("Where are the gaps in wellies?", "How many wellies do I have?"):
        p = plan(question, _swim_shop(), TAX, None)
        assert p.scope.unmatched == "wellies" and any("No category matches “wellies”" in n for n in p.notes)
    assert plan("What is selling well?", _swim_shop(), TAX, None).skills == ("demand_gaps",)
