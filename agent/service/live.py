"""Live event fan-out for tasks running on this instance, so `tasks/resubscribe` can follow them.

The runner publishes every event here; a resubscriber reads from where the run is now. Runs on other
instances are not visible here: resubscribe then answers from the store (SPEC §2, §7).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterator

_FINISHED_KEEP = 64  # finished runs kept briefly so a late subscriber still sees the end
_ENDED_KEEP = 10_000  # ids of runs that ended here (ids only: kept far longer than their events)
DEFAULT_MAX_BYTES = 16 * 1024 * 1024  # and at most this many (approximate) bytes of their events


class LiveRun:
    def __init__(self) -> None:
        self.size = 0  # approximate bytes of `events` (file parts are references: answers dominate), once closed
        self.events: list[dict[str, Any]] = []
        self.done = False
        self.cond = threading.Condition()

    def publish(self, event: dict[str, Any]) -> None:
        """Append and wake followers. Not sized here: sizing walks the event, and the Task event is
        published just before the stream's first frame (issue 16 item 6); the run is sized once, when
        it closes (`measure`), which is what the finished runs' bound reads."""
        with self.cond:
            self.events.append(event)
            self.cond.notify_all()

    def measure(self) -> int:
        """Size the events once (after the run's last frame), keep it in `size`, return it."""
        from agent.store.memory import approx_size

        with self.cond:
            events = list(self.events)
        self.size = sum(approx_size(event) for event in events)
        return self.size

    def close(self) -> None:
        with self.cond:
            self.done = True
            self.cond.notify_all()

    def follow(self, start: int, timeout: float = 300.0) -> Iterator[dict[str, Any]]:
        """Events from index `start` until the run closes (or nothing arrives for `timeout` s)."""
        position = start
        while True:
            with self.cond:
                while position >= len(self.events) and not self.done:
                    if not self.cond.wait(timeout):
                        return
                batch = self.events[position:]
                done = self.done
            position += len(batch)
            yield from batch
            if done and position >= len(self.events):
                return


class LiveRegistry:
    """Runs in progress (all of them) and recently finished ones (bounded by count and bytes, oldest
    first out: a late resubscriber then gets the stored task instead)."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, clock: Callable[[], float] = time.monotonic) -> None:
        self._runs: dict[str, LiveRun] = {}
        self._finished: list[str] = []  # oldest first
        self._finished_at: dict[str, float] = {}  # by `clock`, for drop_finished
        self.clock = clock
        self._ended: dict[str, None] = {}  # insertion-ordered set, oldest first, bounded by _ENDED_KEEP
        self._finished_bytes = 0
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def open(self, task_id: str) -> LiveRun:
        run = LiveRun()
        with self._lock:
            self._runs[task_id] = run
        return run

    def get(self, task_id: str) -> LiveRun | None:
        with self._lock:
            return self._runs.get(task_id)

    def ended_here(self, task_id: str) -> bool:
        """Whether a run of this task ended on this instance (and so told its client how it ended),
        long after its events are gone: a cancel must not write over that outcome."""
        with self._lock:
            return task_id in self._ended

    def drop_finished(self, idle_seconds: float) -> int:
        """Forget the runs that finished `idle_seconds` ago or more (the instance's idle release: a
        resubscriber after a quiet spell gets the stored task instead); returns their approximate bytes."""
        freed = 0
        with self._lock:
            now = self.clock()
            while self._finished and now - self._finished_at.get(self._finished[0], now) >= idle_seconds:
                task_id = self._finished.pop(0)
                self._finished_at.pop(task_id, None)
                gone = self._runs.pop(task_id, None)
                size = gone.size if gone is not None else 0
                self._finished_bytes -= size
                freed += size
        return freed

    def close(self, task_id: str) -> None:
        run = self.get(task_id)
        size = run.measure() if run is not None else 0  # outside the registry's lock: it walks the events
        with self._lock:
            self._finished.append(task_id)
            self._finished_at[task_id] = self.clock()
            self._ended[task_id] = None
            if len(self._ended) > _ENDED_KEEP:
                del self._ended[next(iter(self._ended))]
            self._finished_bytes += size
            while self._finished and (len(self._finished) > _FINISHED_KEEP or self._finished_bytes > self.max_bytes):
                oldest = self._finished.pop(0)
                self._finished_at.pop(oldest, None)
                gone = self._runs.pop(oldest, None)
                self._finished_bytes -= gone.size if gone is not None else 0
        if run is not None:
            run.close()
