"""Question -> skills and scope. (Minimal first cut: every question gets the whole-catalog overview.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from agent.analysis.result import Scope
from agent.catalog.taxonomy import Taxonomy


@dataclass(frozen=True)
class PlanMemory:
    """What a context remembers between turns, so "and pricing?" knows what "it" was."""

    skills: tuple[str, ...] = ()
    scope_phrase: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"skills": list(self.skills), "scope_phrase": self.scope_phrase}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "PlanMemory":
        data = data or {}
        return cls(skills=tuple(str(s) for s in data.get("skills") or ()), scope_phrase=data.get("scope_phrase"))


@dataclass(frozen=True)
class Plan:
    skills: tuple[str, ...]
    scope: Scope
    notes: tuple[str, ...]
    memory: PlanMemory


def plan(question: str, own: pa.Table | None, taxonomy: Taxonomy, memory: PlanMemory | None = None) -> Plan:
    skills = ("catalog_overview",)
    return Plan(skills=skills, scope=Scope(), notes=(), memory=PlanMemory(skills=skills, scope_phrase=None))
