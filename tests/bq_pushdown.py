"""Both-ways helpers for the BigQuery pushdown tests: one table loaded in memory (under the size line)
and aggregated in BigQuery (above it), a skill run on each, and the answers compared surface by
surface — the table (schema and rows), the findings, the notes, the text and the A2UI messages.

Generic on purpose: any skill id of `agent.analysis.registry.SKILLS` and any question; the tests of
each skill's SQL form (tests/test_bigquery_skills_sql.py and others) share them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent import config as config_mod
from agent.analysis import planner
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.sources import load_catalog_inputs

MERCHANT = "123456"
ALL_IN_MEMORY = str(1 << 40)  # BIGQUERY_IN_MEMORY_BYTES: every table is read into memory
NONE_IN_MEMORY = "0"  # every Products_ table is aggregated in BigQuery
# availability as feeds write it: cases, schema.org URLs, spaces, dashes, unknown words and none
AVAILABILITY_WORDS = (
    "In_Stock",
    "https://schema.org/OutOfStock",
    "preorder",
    "on backorder",
    "Limited Availability",
    "sold-out",
    "who knows",
    None,
)


def load(env: dict[str, str], uri: str, **over: str):
    """CatalogInputs for the bq:// table under the emulator's settings and `over`riding ones."""
    settings = config_mod.load({**env, **over}).bigquery
    return load_catalog_inputs([], catalog_uri=uri, merchant_id=MERCHANT, bigquery=settings)


def run_skill(skill: str, inputs, scope, tax, reference=None) -> Any:
    """One skill's SkillResult on the loaded inputs (the Pushdown, if any, travels in the sources)."""
    own = inputs.own
    return SKILLS[skill].run(
        SkillInput(own=own.table, reference=reference, scope=scope, taxonomy=tax, sources=tuple(own.sources))
    )


@dataclass
class BothWays:
    """One question's answer by one skill, read into memory and aggregated in BigQuery."""

    memory: Any  # SkillResult of the in-memory path
    pushed: Any  # SkillResult of the pushdown path
    scope: Any
    memory_inputs: Any
    pushed_inputs: Any
    skills: tuple[str, ...] = ()  # what the planner chose for the question (the test's premise)


def both_ways(env: dict[str, str], uri: str, skill: str, question: str) -> BothWays:
    """Load the table both ways, plan the question on the in-memory table, run `skill` on each."""
    tax = taxonomy_mod.load()
    memory = load(env, uri, BIGQUERY_IN_MEMORY_BYTES=ALL_IN_MEMORY)
    pushed = load(env, uri, BIGQUERY_IN_MEMORY_BYTES=NONE_IN_MEMORY)
    assert memory.problems == [] and pushed.problems == [], (memory.problems, pushed.problems)
    assert memory.own.sources[0].pushdown is None and memory.own.table.num_rows > 0
    assert pushed.own.sources[0].pushdown is not None and pushed.own.table.num_rows == 0  # nothing downloaded
    plan = planner.plan(question, memory.own.table, tax, None)
    scope = plan.scope
    return BothWays(
        run_skill(skill, memory, scope, tax), run_skill(skill, pushed, scope, tax), scope, memory, pushed, plan.skills
    )


def surfaces(result: Any) -> dict[str, Any]:
    """What a user sees of a result, each surface comparable with ==: the table's schema and rows, the
    findings, notes, currency and thresholds, the text answer and the A2UI messages (one footer)."""
    from agent.render import a2ui, text

    return {
        "schema": result.table.schema,
        "rows": result.table.to_pylist(),
        "findings": result.findings,
        "notes": result.notes,
        "currency": result.currency,
        "thresholds": result.thresholds,
        "chart": result.chart,
        "text": text.render_skill(result),
        "a2ui": a2ui.build_messages(result, "footer", "surface-1"),
    }


def assert_identical(pair: BothWays) -> None:
    """Every surface of the two answers equal, named in the failure."""
    assert_same(pair.memory, pair.pushed)


def assert_same(memory_result: Any, pushed_result: Any) -> None:
    """Every surface of an in-memory and a pushed-down SkillResult equal, named in the failure."""
    memory, pushed = surfaces(memory_result), surfaces(pushed_result)
    for name in memory:
        if pushed[name] != memory[name]:
            where = _first_difference(memory[name], pushed[name])
            raise AssertionError(f"{name} differs between the in-memory and the pushdown path: {where}")


def _first_difference(memory: Any, pushed: Any) -> str:
    """The first differing item of two lists (or the two values), for a readable failure."""
    if isinstance(memory, list) and isinstance(pushed, list):
        for i, (a, b) in enumerate(zip(memory, pushed)):
            if a != b:
                return f"item {i}: in memory {a!r}, pushed {b!r}"
        return f"{len(memory)} items in memory, {len(pushed)} pushed"
    return f"in memory {memory!r}, pushed {pushed!r}"
