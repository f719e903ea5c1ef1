"""The skills the agent offers, in the stable order multi-skill runs use; the card is built from this.

Each entry names a pure function SkillInput -> SkillResult. Order matters: a question asking for
"gaps and pricing" runs assortment_gaps before price_ladder whatever the word order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from agent.analysis import gaps, overview
from agent.analysis.inputs import SkillInput
from agent.analysis.result import SkillResult

__all__ = ["SkillInput", "SkillSpec", "SKILLS"]


@dataclass(frozen=True)
class SkillSpec:
    id: str
    name: str
    description: str
    tags: tuple[str, ...]
    examples: tuple[str, ...]  # at least three, for the agent card
    run: Callable[[SkillInput], SkillResult]


_SPECS: list[SkillSpec] = [
    SkillSpec(
        id="assortment_gaps",
        name="Assortment gaps",
        description="Finds the subcategories of a category where the assortment is missing, thin (fewer than three "
                    "products) or out of stock throughout; against a reference catalog also under-indexed "
                    "subcategories and missing entry-level or premium price points.",
        tags=("assortment", "gaps", "category", "competitor"),
        examples=("Where are the gaps in outdoor furniture?", "Which patio subcategories am I missing?",
                  "Where is my garden range thinner than my competitor's?"),
        run=gaps.run,
    ),
    SkillSpec(
        id="catalog_overview",
        name="Catalog overview",
        description="What is in the catalog: rows, products, categories, brands, statuses, price range and bands, "
                    "how categories were mapped to the Google product taxonomy, and the detected file format.",
        tags=("catalog", "overview", "summary"),
        examples=("What is in this file?", "Give me an overview of my catalog", "How many products and brands do I have?"),
        run=overview.run,
    ),
]

SKILLS: dict[str, SkillSpec] = {s.id: s for s in _SPECS}
