"""Deterministic skill results reused: the same question on the same catalog is computed once.

Why (issue 16 item 4): a skill is a pure function of its input (the canonical tables, the scope, the
taxonomy, the sources' evidence; no clock, no randomness), and a burst of callers often asks the same
thing of the same catalog — the demo, a configured gs:// snapshot every caller shares. A result for the
same (catalog generation, skill, scope, reference, demand data) is the same result, so it is kept.

What "the same catalog generation" means here: the same parsed table *object*. Parsed tables are
immutable and come out of the one parsed-catalog cache keyed by object generation (a new Cloud
Storage generation, a changed local file or another attachment is a new table object), so a table's
identity is its generation. The identity is checked through weak references, as agent.analysis.scoping
does: an id can be reused once a table is gone, and a dead reference never matches a new table.

What is not kept: the rendered text (its footer states the turn's clock and the plan's notes lead it,
so render runs every turn on the kept result), and any result of a BigQuery pushdown (the aggregation
runs in BigQuery, whose partition may change under the same source).

Bounds: RESULT_MEMO_ENTRIES entries (default 256; 0 turns the memo off) and a 1 % share of
MEMORY_BUDGET_BYTES (agent.config), both applied by `configure` when the Service starts. A kept
result is read, never changed: render and the A2UI builder only read a SkillResult.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

from agent.catalog.cache import Cache
from agent.config import DEFAULT_SHAREABLE_BYTES, SHARE_RESULT_MEMO

if TYPE_CHECKING:
    from agent.analysis.inputs import SkillInput
    from agent.analysis.result import SkillResult

DEFAULT_ENTRIES = 256
DEFAULT_BYTES = int(DEFAULT_SHAREABLE_BYTES * SHARE_RESULT_MEMO)  # until `configure` applies the setting
_FINDING_BYTES = 512  # an estimate per finding (its values and cells); the table's own bytes dominate

# key -> (weak references to the input tables, the result); the one cache type, bounded twice
_RESULTS: Cache[tuple[tuple[Any, ...], Any]] = Cache(
    DEFAULT_BYTES, max_entries=DEFAULT_ENTRIES, size_of=lambda kept: result_size(kept[1])
)
_enabled = True
_counts = {"reused": 0, "computed": 0}  # turns served from the memo / computed (tests, benchmarks)


def configure(*, entries: int, max_bytes: int) -> None:
    """Apply RESULT_MEMO_ENTRIES and the memo's share of the budget (agent.service.handler.Service);
    `entries` 0 turns the memo off and drops what it holds."""
    global _enabled
    _enabled = entries > 0
    if not _enabled:
        _RESULTS.clear()
        return
    _RESULTS.max_entries = entries
    _RESULTS.set_max_bytes(max_bytes)


def result_size(result: SkillResult) -> int:
    """Bytes a kept result holds, roughly: its display table and its findings and notes."""
    table = int(result.table.nbytes) if result.table is not None else 0
    return table + _FINDING_BYTES * len(result.findings) + sum(len(n) + 8 for n in result.notes) + 256


def _tables(inp: SkillInput) -> tuple[Any, ...]:
    return (inp.own, inp.reference, inp.demand, inp.taxonomy)


def _key(skill_id: str, compute: Callable[..., Any], inp: SkillInput) -> tuple[Any, ...]:
    """The skill and the function that computes it (another function under the same id is another
    skill), the identities of its tables and taxonomy, the whole scope (it is frozen and every field
    can change what is said) and the sources' evidence (the overview names their format and columns),
    written out because the evidence objects are not hashable."""
    return (skill_id, compute, *(id(t) for t in _tables(inp)), inp.scope, repr(inp.sources))


def _same_inputs(refs: tuple[Any, ...], inp: SkillInput) -> bool:
    return all((ref is None and t is None) or (ref is not None and ref() is t) for ref, t in zip(refs, _tables(inp)))


def run(skill_id: str, compute: Callable[[SkillInput], SkillResult], inp: SkillInput) -> SkillResult:
    """`compute(inp)`, or the result it gave for the same inputs before (see the module docstring)."""
    if not _enabled or any(getattr(s, "pushdown", None) is not None for s in inp.sources):
        return compute(inp)
    key = _key(skill_id, compute, inp)
    hit = _RESULTS.get(key)
    if hit is not None and _same_inputs(hit[0], inp):
        _counts["reused"] += 1
        return hit[1]
    result = compute(inp)
    _counts["computed"] += 1
    refs = tuple(None if t is None else weakref.ref(t) for t in _tables(inp))
    _RESULTS.put(key, (refs, result))
    return result


def counts() -> dict[str, int]:
    """Results reused and computed through the memo since the last `clear`, and the entries it holds."""
    return {**_counts, "entries": len(_RESULTS), "bytes": _RESULTS.bytes_used}


def clear() -> None:
    """Forget every kept result and reset the counts (tests; benchmarks that time the computation)."""
    _RESULTS.clear()
    _counts.update(reused=0, computed=0)
