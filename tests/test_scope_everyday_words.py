"""Everyday words of real merchants read as the products they mean, on small catalogs written as real
exports (held-out public exports showed each case; see the test docstrings)."""

from __future__ import annotations

import pytest

from agent.analysis.planner import plan
from agent.catalog.taxonomy import load
from tests.helpers import shopify

TAX = load()
EARRINGS = "Apparel & Accessories > Jewelry > Earrings"
RINGS = "Apparel & Accessories > Jewelry > Rings"


def _jewellery():
    return shopify(
        [(f"Silver Hoop Earring {i}", EARRINGS, "Ear hoop") for i in range(5)]
        + [(f"Opal Silver Ring {i}", RINGS, "Silver ring") for i in range(3)]
    )


@pytest.mark.parametrize("question", ["How many earings do I have?", "Where are the gaps in earings?"])
def test_a_typo_of_an_ing_word_is_corrected_like_any_other(question):
    """ "earings" keeps the "-ing" that the stemmer cuts from "earrings" (it is one letter too short), so
    it was compared with the stem "earr" and a jewellery shop (held-out dinhdungweb/Vietjewelers,
    124 earrings) heard "No category matches “earings”" with Earrings second among the nearest."""
    p = plan(question, _jewellery(), TAX)
    assert p.scope.taxonomy_path == EARRINGS and p.scope.unmatched is None
    assert dict(p.scope.found)["own"] == 5
