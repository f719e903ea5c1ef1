"""The store interface for tasks and contexts; back ends: memory (default) and Cloud Storage (later).

Tasks are stored as the A2A Task JSON itself (with `history`), so any back end can hand one to
`tasks/get` without translation. Writes happen only on state transitions, never per stream frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


class NotCancelable(Exception):
    """The task is already in a terminal state."""


@dataclass
class ContextState:
    """What a conversation remembers between turns."""

    context_id: str
    merchant_id: str | None = None
    plan_memory: dict[str, Any] | None = None  # agent.analysis.planner.PlanMemory.to_dict()
    catalogs: list[Any] = field(default_factory=list)  # LoadedCatalog objects attached earlier
    task_ids: list[str] = field(default_factory=list)


class TaskStore(Protocol):
    def create(self, task: dict[str, Any]) -> None: ...

    def get(self, task_id: str) -> dict[str, Any] | None: ...

    def save(self, task: dict[str, Any]) -> None:
        """Record a non-final state transition (e.g. submitted → working)."""

    def finish(self, task: dict[str, Any]) -> dict[str, Any]:
        """Record the final state unless the stored task already ended (a cancel won); returns what is stored."""

    def request_cancel(self, task_id: str) -> dict[str, Any] | None:
        """Flag a running task for cancellation. None if unknown; raises NotCancelable if terminal."""

    def cancel_requested(self, task_id: str) -> bool: ...

    def mark_canceled(self, task_id: str, task: dict[str, Any]) -> dict[str, Any]:
        """Force a flagged task whose runner went silent into `canceled`; returns what is stored."""


class ContextStore(Protocol):
    def load(self, context_id: str) -> ContextState | None: ...

    def save(self, state: ContextState) -> None: ...
