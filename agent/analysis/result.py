"""What a skill returns: a computed table, structured findings that point at its cells, and thresholds.

Skills never format prose or know about HTTP; render turns a SkillResult into Markdown and A2UI. A
finding carries the values its sentence needs *and* the table cells they come from, so tests can check
that every number in the prose is a number in the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pyarrow is heavy to import; these modules are imported where no table exists yet
    import pyarrow as pa

# Field metadata key on result-table columns that render reads to format values.
# Values: "money" (printed with the result's currency when known), "percent" (0..100), "count", "text".
UNIT_KEY = b"unit"


@dataclass(frozen=True)
class Scope:
    """The part of the catalog a question is about, as resolved against taxonomy and merchant data."""

    label: str = "whole catalog"  # what the answer's title names
    taxonomy_id: int | None = None
    taxonomy_path: str | None = None  # "Furniture > Outdoor Furniture"
    merchant_categories: tuple[str, ...] = ()  # merchant category values included in the scope
    phrase: str | None = None  # the words of the question the scope came from
    unmatched: str | None = None  # a scope phrase that matched nothing
    nearest: tuple[str, ...] = ()  # closest existing categories when `unmatched` is set (or the scope is empty)
    # --- the three places a scope is found (issue 10): own categories, Google taxonomy, titles ---
    extra_taxonomy_ids: tuple[int, ...] = ()  # further taxonomy roots ("Outdoor Furniture Accessories")
    extra_taxonomy_paths: tuple[str, ...] = ()  # their paths, for the answer
    own_paths: tuple[str, ...] = ()  # own category paths: a product with any own path equal to or under one
    own_label: str | None = None  # how the own categories are named in the answer ("Pumps")
    title_terms: tuple[str, ...] = ()  # (noun, *modifiers), stemmed: products whose title's noun is the noun
    # the same for the names of the scope's taxonomy subcategories ("Stock Pots", "Frying Pans" under Cookware)
    title_subterms: tuple[tuple[str, ...], ...] = ()
    # a lone word of such a name read without the name's modifiers ("system" of "Skin Cleansing Brushes
    # & Systems"): it places by title only a product the merchant filed no more broadly than the scope
    title_subterms_alone: tuple[tuple[str, ...], ...] = ()
    own_subpaths: tuple[str, ...] = ()  # own paths named like one of those subcategories (a type "frying-pans")
    # the phrase's noun alone ("pump" for "pond pumps": nothing names the whole phrase): a product the
    # merchant filed more broadly than the scope is then not placed by its title (scoping._compute)
    title_noun_only: bool = False
    # how the population was found, in active products, each counted once in the first place that
    # holds it: (("own", 24), ("taxonomy", 0), ("title", 7)); empty when not computed
    found: tuple[tuple[str, int], ...] = ()
    unplaced: int | None = None  # active products with no own and no Google category (said when empty)
    widened: str | None = None  # the sentence that says how and why the scope is wider than the words
    wants_reference: bool = False  # the question asks about competitors, the market or shares
    # the question asks which sizes are missing ("what sizes am I missing in dresses?"): attribute_coverage
    # answers with the broken size runs (agent.analysis.size_runs), not the fill rates
    wants_missing_sizes: bool = False

    @property
    def is_whole_catalog(self) -> bool:
        return (
            self.taxonomy_id is None
            and not self.merchant_categories
            and not self.own_paths
            and not self.title_terms
            and not self.extra_taxonomy_ids
        )


@dataclass(frozen=True)
class Finding:
    """One key finding. `code` selects the sentence template in render; `values` fill it."""

    code: str  # e.g. "overview.rows", "gaps.missing"
    values: dict[str, Any]
    cells: tuple[tuple[int, str], ...] = ()  # (row index, column name) in SkillResult.table
    severity: int = 0  # higher is more urgent; findings are shown most severe first


@dataclass
class SkillResult:
    skill: str  # skill id, also the artifact name
    scope: Scope
    table: pa.Table  # display table, complete; render shows at most 20 rows and says "top N of M"
    findings: list[Finding] = field(default_factory=list)
    thresholds: dict[str, Any] = field(default_factory=dict)
    currency: str | None = None  # when the data states one currency for the money columns
    chart: tuple[str, str] | None = None  # (label column, value column) for a bar chart, if any
    taxonomy_note: str | None = None  # "12 subcategories under Furniture > Outdoor Furniture"
    notes: list[str] = field(default_factory=list)  # fixed sentences (e.g. "stock unknown")
    # what is missing to answer the question as asked ("reference": competitor or market data); render
    # says it in the answer's first line, before what the skill could show
    missing: str | None = None
