"""What every skill receives. Kept apart from the registry so skill modules can import it freely."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.analysis.result import Scope
from agent.catalog.evidence import SourceEvidence
from agent.catalog.taxonomy import Taxonomy

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class SkillInput:
    own: pa.Table  # canonical table, ALL statuses; skills choose the population (common.population)
    reference: pa.Table | None
    scope: Scope
    taxonomy: Taxonomy
    # Source evidence of the own catalog, for the overview's format / columns part. Skills stay pure:
    # they read these facts, never files.
    sources: tuple[SourceEvidence, ...] = ()
    # Merchant Center Best sellers rows (agent.catalog.bestsellers.SCHEMA), when attached or configured
    demand: pa.Table | None = None
