"""The skills the agent offers, in the stable order multi-skill runs use; the card is built from this.

Each entry names a pure function SkillInput -> SkillResult. Order matters: a question asking for
"gaps and pricing" runs assortment_gaps before price_ladder whatever the word order.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

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


def _deferred(module: str) -> Callable[[SkillInput], SkillResult]:
    """The module's `run`, imported on first use: the agent card lists the skills without importing
    them (and pyarrow), which keeps a cold instance's first card response fast."""

    def run(inputs: SkillInput) -> SkillResult:
        return importlib.import_module(f"agent.analysis.{module}").run(inputs)

    run.__name__ = f"{module}.run"
    return run


_SPECS: list[SkillSpec] = [
    SkillSpec(
        id="assortment_gaps",
        name="Assortment gaps",
        description="Finds the subcategories of a category where the assortment is missing, thin (fewer than three "
        "products) or out of stock throughout; against a reference catalog also under-indexed "
        "subcategories and missing entry-level or premium price points.",
        tags=("assortment", "gaps", "category", "competitor"),
        examples=(
            "Where are the gaps in outdoor furniture?",
            "Which patio subcategories am I missing?",
            "Where is my garden range thinner than my competitor's?",
        ),
        run=_deferred("gaps"),
    ),
    SkillSpec(
        id="price_ladder",
        name="Price ladder",
        description="Price percentiles per category, good/better/best tiers, empty tiers, holes where adjacent "
        "price points are more than double apart, missing entry-level prices against a reference, and "
        "the share of products discounted.",
        tags=("pricing", "price ladder", "tiers", "discounts"),
        examples=(
            "Do I have entry-level and premium options in outdoor chairs?",
            "How is my patio furniture priced?",
            "Are there holes in my price ladder for garden benches?",
        ),
        run=_deferred("price_ladder"),
    ),
    SkillSpec(
        id="attribute_coverage",
        name="Attribute coverage",
        description="How often colour, material, size and other option values are filled in, their normalised "
        "value distribution, and the values a reference catalog carries that yours lacks; asked which sizes "
        "are missing, the products whose size runs have a gap and the sizes sold out.",
        tags=("attributes", "colours", "materials", "sizes"),
        examples=(
            "Which materials or colours am I missing in outdoor seating?",
            "How well are colours filled in?",
            "What sizes do I offer in garden benches?",
            "What sizes am I missing in dresses?",
        ),
        run=_deferred("attributes"),
    ),
    SkillSpec(
        id="brand_coverage",
        name="Brand coverage",
        description="Brands per category, the leading brand and its share, products without a brand, single-vendor "
        "and one-brand-dominated categories, and the brands a reference catalog carries that you do not.",
        tags=("brands", "vendors", "competitor"),
        examples=(
            "Which brands do competitors carry that I don't?",
            "Which brands do I sell in garden furniture?",
            "Is my grill range dominated by one brand?",
        ),
        run=_deferred("brands"),
    ),
    SkillSpec(
        id="availability",
        name="Availability",
        description="Out-of-stock variants and rates per category, products with every variant out of stock, "
        "backorder and preorder counts; says 'stock unknown' when the data has no stock information.",
        tags=("availability", "stock", "inventory"),
        examples=(
            "What is out of stock in patio furniture?",
            "Which of my outdoor chairs are out of stock?",
            "How much of my garden range is on backorder?",
        ),
        run=_deferred("availability"),
    ),
    SkillSpec(
        id="content_quality",
        name="Content quality",
        description="Google Shopping readiness: missing images, descriptions, brands, GTINs and categories, invalid "
        "GTIN check digits, over-long titles and descriptions, duplicate ids, zero prices and sale prices "
        "not below the regular price, with completeness per category.",
        tags=("content", "quality", "google shopping", "feed"),
        examples=(
            "Is my catalog ready for Google Shopping?",
            "Which products are missing images or GTINs?",
            "How complete is my outdoor furniture data?",
        ),
        run=_deferred("content_quality"),
    ),
    SkillSpec(
        id="catalog_overview",
        name="Catalog overview",
        description="What is in the catalog: rows, products, categories, brands, statuses, price range and bands, "
        "how categories were mapped to the Google product taxonomy, and the detected file format.",
        tags=("catalog", "overview", "summary"),
        examples=(
            "What is in this file?",
            "Give me an overview of my catalog",
            "How many products and brands do I have?",
        ),
        run=_deferred("overview"),
    ),
    SkillSpec(
        id="demand_gaps",
        name="Demand gaps",
        description="From Merchant Center's Best sellers report (attached as CSV or configured): the product clusters "
        "and brands shoppers buy most in the scope's Google categories, ranked by relative demand, with "
        "your inventory status (not carried, out of stock, in stock) and where demand sits against your "
        "own subcategories.",
        tags=("demand", "best sellers", "popular products", "brands", "merchant center"),
        examples=(
            "What are shoppers buying in outdoor furniture that I don't carry?",
            "Which popular brands am I missing?",
            "What are the best sellers in garden tools?",
        ),
        run=_deferred("demand"),
    ),
]

SKILLS: dict[str, SkillSpec] = {s.id: s for s in _SPECS}

# Skills whose aggregation also runs as SQL in BigQuery (a bq:// Products_ table above the size line,
# BIGQUERY_IN_MEMORY_BYTES): the service answers the others with the line instead of an empty table.
IN_BIGQUERY = frozenset(
    {
        "assortment_gaps",
        "catalog_overview",
        "price_ladder",
        "brand_coverage",
        "availability",
        "content_quality",
        "attribute_coverage",
        "demand_gaps",
    }
)
