"""Outcomes the store would not take: kept in memory and written on a later request, with back-off.

When a turn's final task write fails, the runner retries it and then tries to store `failed` (with the
sanitized "could not be saved" line) instead. If that write fails too, the store still holds the turn's
last transition, `working` — for ever, since no run will write it again — and a `tasks/get` from
another instance, or a `tasks/cancel` once this instance has forgotten the run, would act on a task
the client was told has ended. So the runner hands that `failed` task to `UnstoredOutcomes`:

- `flush(tasks)` runs at the start of every request (agent.service.handler), like the idle sweep and
  for the same reason (no timer runs on Cloud Run between requests). Each kept outcome is retried once
  its back-off has passed (1 s, doubling, at most 60 s), under a short storage budget of its own, one
  flush at a time; a write that lands (or finds the task already ended) drops the entry.
- `get(task_id)` lets this instance answer `tasks/get` and refuse `tasks/cancel` from what it kept,
  until the store holds it.

Decision: it is bounded by count (`limit`, oldest dropped with a log line), not bytes: each entry is
one answer without file bytes (files are stored by reference), and an instance whose store is down
long enough to fill it has a larger problem that the incident log lines already name. An outcome kept
on an instance that is then shut down is lost; the store keeps `working` then, as it did before.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from agent import budget

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0
FLUSH_STORAGE_S = 2.0  # storage time one flush may spend (agent.budget): a request is not held longer


@dataclass
class _Kept:
    task: dict[str, Any]
    due: float  # monotonic time of the next attempt
    backoff: float


class UnstoredOutcomes:
    """Final tasks the store refused, per instance, retried on later requests (see the module doc)."""

    def __init__(self, limit: int = 256, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self._kept: dict[str, _Kept] = {}
        self._lock = threading.Lock()
        self._flushing = threading.Lock()

    def keep(self, task: dict[str, Any]) -> None:
        """Keep `task` (a terminal task) until a write of it lands; first retry after FIRST_BACKOFF_S."""
        with self._lock:
            self._kept.pop(task["id"], None)
            self._kept[task["id"]] = _Kept(task, self.clock() + FIRST_BACKOFF_S, FIRST_BACKOFF_S)
            while len(self._kept) > self.limit:
                dropped = next(iter(self._kept))
                self._kept.pop(dropped)
                log.warning("unstored outcome dropped (over %d kept): task %s", self.limit, dropped)

    def get(self, task_id: str) -> dict[str, Any] | None:
        """The outcome kept for `task_id`, while the store does not hold it. Nothing kept (nearly always):
        no lock is taken (reading a dict's size is atomic)."""
        if not self._kept:
            return None
        with self._lock:
            kept = self._kept.get(task_id)
            return kept.task if kept is not None else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def flush(self, tasks: Any) -> int:
        """Write the kept outcomes whose back-off has passed (`tasks`: the TaskStore); returns how many
        landed. Costs one dict check when nothing is kept; a flush already running is not waited for."""
        if not self._kept or not self._flushing.acquire(blocking=False):
            return 0
        try:
            now = self.clock()
            with self._lock:
                due = [kept for kept in self._kept.values() if kept.due <= now]
            landed = 0
            with budget.within(FLUSH_STORAGE_S):
                for kept in due:
                    landed += self._write(tasks, kept)
            return landed
        finally:
            self._flushing.release()

    def _write(self, tasks: Any, kept: _Kept) -> int:
        task_id = kept.task["id"]
        try:
            tasks.finish(kept.task)  # a task already terminal in the store is left as it is
        except Exception:  # noqa: BLE001 - the store is still failing: try again later
            with self._lock:
                kept.backoff = min(MAX_BACKOFF_S, kept.backoff * 2)
                kept.due = self.clock() + kept.backoff
            return 0
        with self._lock:
            if self._kept.get(task_id) is kept:
                del self._kept[task_id]
        log.info("unstored outcome stored: task %s", task_id)
        return 1
