"""In-memory store: bounded LRU dicts guarded by one lock. The default; state lives per instance."""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

from .base import ContextState, NotCancelable

TERMINAL = frozenset({"completed", "canceled", "failed", "rejected"})


class _Lru(OrderedDict):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: str, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)


class MemoryTaskStore:
    def __init__(self, max_entries: int = 1000) -> None:
        self._tasks = _Lru(max_entries)
        self._cancel: set[str] = set()
        self._lock = threading.Lock()

    def create(self, task: dict[str, Any]) -> None:
        with self._lock:
            self._tasks.put(task["id"], copy.deepcopy(task))

    def get(self, task_id: str) -> dict[str, Any] | None:
        """The stored task itself, not a copy: callers treat it as read-only (writes copy on the way in)."""
        with self._lock:
            return self._tasks.get(task_id)

    def save(self, task: dict[str, Any]) -> None:
        with self._lock:
            stored = self._tasks.get(task["id"])
            if stored is not None and stored["status"]["state"] in TERMINAL:
                return
            self._tasks.put(task["id"], copy.deepcopy(task))

    def finish(self, task: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            stored = self._tasks.get(task["id"])
            if stored is not None and stored["status"]["state"] in TERMINAL:
                return copy.deepcopy(stored)
            self._tasks.put(task["id"], copy.deepcopy(task))
            self._cancel.discard(task["id"])
            return copy.deepcopy(task)

    def request_cancel(self, task_id: str) -> dict[str, Any] | None:
        with self._lock:
            stored = self._tasks.get(task_id)
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


class MemoryContextStore:
    def __init__(self, max_entries: int = 500) -> None:
        self._contexts = _Lru(max_entries)
        self._lock = threading.Lock()

    def load(self, context_id: str) -> ContextState | None:
        with self._lock:
            return self._contexts.get(context_id)

    def save(self, state: ContextState) -> None:
        with self._lock:
            self._contexts.put(state.context_id, state)
