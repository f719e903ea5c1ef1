"""In-memory store: the default; state lives per instance.

Bounded twice — by entries and by approximate bytes — with least-recently-used eviction, because one
attached catalog can weigh hundreds of megabytes while a thousand small tasks weigh almost nothing.
The same TTL as the Cloud Storage back end applies on read: an entry older than it is "not found".
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
from typing import Any, Callable

from agent.catalog.cache import Cache

from .base import ANONYMOUS, TERMINAL, ContextChange, ContextState, NotCancelable

_DAY_S = 86_400.0


def approx_size(value: Any) -> int:
    """A cheap estimate of a JSON-like value's size in bytes (strings dominate: file bytes, texts)."""
    if isinstance(value, str):
        return len(value) + 8
    if isinstance(value, dict):
        return 16 + sum(approx_size(k) + approx_size(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 16 + sum(approx_size(v) for v in value)
    return 8


class MemoryTaskStore:
    poll_interval = 0.02

    def __init__(
        self,
        max_entries: int = 1000,
        max_bytes: int = 256 * 1024 * 1024,
        ttl_days: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # key -> (task, party): the party that created the task travels with it and is never overwritten
        self._tasks: Cache[tuple[dict[str, Any], str]] = Cache(
            max_bytes,
            max_entries=max_entries,
            ttl=ttl_days * _DAY_S if ttl_days else None,
            clock=clock,
            keep_newest=True,
        )
        self._cancel: set[str] = set()
        self._lock = threading.Lock()

    def _stored(self, task_id: str) -> dict[str, Any] | None:
        item = self._tasks.get(task_id)
        return item[0] if item is not None else None

    def _put(self, task: dict[str, Any], party: str | None = None) -> dict[str, Any]:
        found = self._tasks.get(task["id"])
        party = found[1] if found is not None else (party or ANONYMOUS)
        stored = copy.deepcopy(task)
        self._tasks.put(task["id"], (stored, party), approx_size(stored))
        return stored

    def create(self, task: dict[str, Any], party: str = ANONYMOUS) -> None:
        with self._lock:
            self._put(task, party)

    def get(self, task_id: str) -> dict[str, Any] | None:
        """The stored task itself, not a copy: callers treat it as read-only (writes copy on the way in)."""
        with self._lock:
            return self._stored(task_id)

    def party(self, task_id: str) -> str | None:
        with self._lock:
            item = self._tasks.get(task_id)
            return item[1] if item is not None else None

    def owned(self, task_id: str) -> tuple[dict[str, Any], str] | None:
        """(the stored task itself, its party): read-only, like `get`'s."""
        with self._lock:
            return self._tasks.get(task_id)

    def state(self, task_id: str) -> str | None:
        task = self.get(task_id)
        return task["status"]["state"] if task is not None else None

    def save(self, task: dict[str, Any]) -> None:
        with self._lock:
            stored = self._stored(task["id"])
            if stored is not None and stored["status"]["state"] in TERMINAL:
                return
            self._put(task)

    def finish(self, task: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._cancel.discard(task["id"])
            stored = self._stored(task["id"])
            if stored is not None and stored["status"]["state"] in TERMINAL:
                return copy.deepcopy(stored)
            return copy.deepcopy(self._put(task))

    def request_cancel(self, task_id: str) -> dict[str, Any] | None:
        with self._lock:
            stored = self._stored(task_id)
            if stored is None:
                return None
            if stored["status"]["state"] in TERMINAL:
                raise NotCancelable(task_id)
            self._cancel.add(task_id)
            return copy.deepcopy(stored)

    def cancel_requested(self, task_id: str) -> bool:
        return task_id in self._cancel

    def mark_canceled(self, task_id: str, task: dict[str, Any]) -> dict[str, Any]:
        return self.finish(task)


def _context_size(state: ContextState) -> int:
    return (
        1024
        + approx_size(state.plan_memory or {})
        + 64 * len(state.task_ids)
        + sum(int(c.table.nbytes) for c in state.catalogs)
    )


def _copy(state: ContextState) -> ContextState:
    """A copy the caller may change freely (tables are immutable and shared)."""
    return dataclasses.replace(
        state,
        catalogs=list(state.catalogs),
        task_ids=list(state.task_ids),
        catalog_refs=list(state.catalog_refs),
        expired_catalogs=list(state.expired_catalogs),
        lost_catalogs=list(state.lost_catalogs),
        released_catalogs=list(state.released_catalogs),
        plan_memory=copy.deepcopy(state.plan_memory),
    )


class MemoryContextStore:
    def __init__(
        self,
        max_entries: int = 500,
        max_bytes: int = 256 * 1024 * 1024,
        ttl_days: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._contexts: Cache[ContextState] = Cache(
            max_bytes,
            max_entries=max_entries,
            ttl=ttl_days * _DAY_S if ttl_days else None,
            clock=clock,
            keep_newest=True,
        )
        self._lock = threading.Lock()

    def load(self, context_id: str) -> ContextState | None:
        with self._lock:
            state = self._contexts.get(context_id)
            return _copy(state) if state is not None else None

    def load_catalogs(self, state: ContextState) -> list[Any]:
        return list(state.catalogs)

    def release_idle(self, seconds: float) -> int:
        """Let go of the attached catalogs of conversations unused for `seconds` (the instance's idle
        release, agent.service.reclaim). The conversation itself stays — its party, plan memory and
        turns — and names what it let go of, so a follow-up says the file must be attached again
        instead of answering from another catalog. Returns the table bytes no longer held here."""

        def without_catalogs(state: ContextState) -> tuple[ContextState, int] | None:
            if not state.catalogs:
                return (state, _context_size(state))
            names = [s.name for c in state.catalogs for s in c.sources]
            smaller = dataclasses.replace(
                _copy(state), catalogs=[], attached_bytes=0, released_catalogs=list(dict.fromkeys(names))
            )
            return (smaller, _context_size(smaller))

        with self._lock:
            return self._contexts.map_idle(seconds, without_catalogs)

    def record_turn(self, context_id: str, change: ContextChange) -> ContextState:
        with self._lock:
            found = self._contexts.get(context_id)
            state = _copy(found) if found is not None else ContextState(context_id=context_id)
            change.apply(state)
            self._contexts.put(context_id, state, _context_size(state))
            return _copy(state)
