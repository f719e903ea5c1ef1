"""The store interface for tasks and contexts; back ends: memory (default) and Cloud Storage.

Tasks are stored as the A2A Task JSON itself (with `history`), so any back end can hand one to
`tasks/get` without translation. Writes happen only on state transitions (create, working, final,
cancel flag), never per stream frame: Cloud Storage allows about one write per second per object.

A context is changed only through `record_turn(ContextChange)`, an atomic read-modify-write, so two
instances finishing turns of one conversation at the same moment both land (no lost turn).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.errors import AgentError
from agent.protocol import objects

TERMINAL = objects.TERMINAL_STATES  # the one set of terminal task states

# The party a task or context belongs to when the turn named none (agent.service.trust.party_of).
ANONYMOUS = "anonymous"


class StoreError(AgentError):
    """The task and context store could not do what was asked."""


class NotCancelable(StoreError):
    """The task is already in a terminal state."""


class StoreCorrupt(StoreError):
    """A stored document is not one this store wrote: not JSON, or JSON but not an object (an object
    edited or replaced by hand, another tool writing into the bucket). Its owner cannot be read, so
    nothing in it may be answered from."""


class StoreUnavailable(StoreError):
    """The store did not answer (a timeout, the turn's storage budget spent, an outage): the question
    asked of it has no answer now, which a caller may treat as "unknown" rather than as a failure."""


@dataclass
class ContextState:
    """What a conversation remembers between turns."""

    context_id: str
    merchant_id: str | None = None
    party: str | None = None  # who created it (agent.service.trust.party_of); None: stored before parties
    plan_memory: dict[str, Any] | None = None  # agent.analysis.planner.PlanMemory.to_dict()
    catalogs: list[Any] = field(default_factory=list)  # LoadedCatalog objects attached earlier (loaded)
    task_ids: list[str] = field(default_factory=list)
    attached_bytes: int = 0  # size of the attached files behind `catalogs`, as sent
    # Back-end bookkeeping: stored catalogs not loaded yet (Cloud Storage), and names of catalogs the
    # conversation had but that are gone (older than the TTL), so the answer can say so.
    catalog_refs: list[dict[str, Any]] = field(default_factory=list)
    expired_catalogs: list[str] = field(default_factory=list)
    # Names of catalogs attached earlier that could not be saved or read back (a storage fault): the
    # next turn says so instead of silently answering from another catalog.
    lost_catalogs: list[str] = field(default_factory=list)
    # Names of catalogs an in-memory store let go of after the instance's idle period
    # (IDLE_RELEASE_SECONDS, agent.service.reclaim): the next turn says so, truthfully.
    released_catalogs: list[str] = field(default_factory=list)

    @property
    def owner(self) -> str:
        """The party the context belongs to (one stored before parties were recorded: its merchant, else
        anonymous)."""
        if self.party:
            return self.party
        return f"merchant:{self.merchant_id}" if self.merchant_id else ANONYMOUS

    @property
    def has_catalogs(self) -> bool:
        return bool(self.catalogs or self.catalog_refs)


@dataclass
class ContextChange:
    """What one finished turn changes in its context; applied to the freshest stored state."""

    task_id: str
    merchant_id: str | None = None  # binds an unbound context; never rebinds
    party: str | None = None  # the same: the creating party, never replaced
    plan_memory: dict[str, Any] | None = None
    catalogs: list[Any] | None = None  # None: keep what the context had; a list replaces it
    attached_bytes: int = 0
    max_turns: int = 100
    lost_catalogs: list[str] | None = None  # the turn's catalogs could not be kept: forget them, name them

    def belongs(self, state: ContextState) -> bool:
        """Whether this turn may write into `state`. A turn checks the conversation's owner when it
        starts, but two turns of different parties on the same new client-chosen contextId both find
        it empty; the first to record it owns it, and the other's record is not applied, so neither
        party's files are ever kept in (or answered from) the other's conversation."""
        claimed = state.party is not None or state.merchant_id is not None or bool(state.task_ids)
        return self.party is None or not claimed or state.owner == self.party

    def apply(self, state: ContextState) -> None:
        """Apply the change to the freshest stored state; nothing when the state is another party's."""
        if not self.belongs(state):
            return
        if state.merchant_id is None and self.merchant_id is not None:
            state.merchant_id = self.merchant_id
        if state.party is None and self.party is not None:
            state.party = self.party
        if self.plan_memory is not None:
            state.plan_memory = self.plan_memory
        if self.task_id not in state.task_ids:
            state.task_ids.append(self.task_id)
        del state.task_ids[: max(0, len(state.task_ids) - self.max_turns)]
        if self.catalogs is not None:
            state.catalogs = list(self.catalogs)
            state.attached_bytes = self.attached_bytes
            state.expired_catalogs = []
            state.lost_catalogs = []
            state.released_catalogs = []
        if self.lost_catalogs:
            state.catalogs, state.catalog_refs, state.attached_bytes = [], [], 0
            state.lost_catalogs = list(self.lost_catalogs)


def as_context_catalog(catalog: Any) -> Any:
    """A catalog attached in this turn, as later turns will see it: evidence kind KIND_CONTEXT.

    The name, format and rows read stay as they were, so a follow-up's footer counts match the first
    answer's — on any back end.
    """
    from agent.catalog.evidence import KIND_CONTEXT, LoadedCatalog

    sources = [dataclasses.replace(s, kind=KIND_CONTEXT) for s in catalog.sources]
    return LoadedCatalog(table=catalog.table, sources=sources)


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class TaskStore(Protocol):
    poll_interval: float  # how often a waiter may ask for a task's state

    def create(self, task: dict[str, Any], party: str = ANONYMOUS) -> None:
        """Store a new task, bound to the party that created it (kept through every later write)."""

    def get(self, task_id: str) -> dict[str, Any] | None: ...

    def party(self, task_id: str) -> str | None:
        """The party the task belongs to; None if unknown or expired."""

    def owned(self, task_id: str) -> tuple[dict[str, Any], str] | None:
        """(the stored task, the party it belongs to) from one read; None if unknown or expired.

        Why one call (issue 16 item 6): `tasks/get` needs both, and asking `party` then `get` took the
        memory store's lock twice and cost a Cloud Storage back end two reads (metadata, then body)."""

    def state(self, task_id: str) -> str | None:
        """The stored task's state only (cheap: no history); None if unknown or expired."""

    def save(self, task: dict[str, Any]) -> None:
        """Record a non-final state transition (e.g. submitted → working)."""

    def finish(self, task: dict[str, Any]) -> dict[str, Any]:
        """Record the final state unless the stored task already ended (a cancel won); returns what is stored."""

    def request_cancel(self, task_id: str) -> dict[str, Any] | None:
        """Flag a running task for cancellation. None if unknown; raises NotCancelable if terminal."""

    def cancel_requested(self, task_id: str) -> bool:
        """Whether the task was flagged, on any instance. Cheap enough to call between steps. Raises
        StoreUnavailable when the store cannot say."""

    def mark_canceled(self, task_id: str, task: dict[str, Any]) -> dict[str, Any]:
        """Force a flagged task whose runner went silent into `canceled`; returns what is stored."""


class ContextStore(Protocol):
    def load(self, context_id: str) -> ContextState | None:
        """The context (without downloading its catalogs), or None if unknown or expired."""

    def load_catalogs(self, state: ContextState) -> list[Any]:
        """The context's attached catalogs as LoadedCatalog objects (downloaded on first use)."""

    def record_turn(self, context_id: str, change: ContextChange) -> ContextState:
        """Apply one turn's change atomically to the stored context (created if new); returns it."""
