"""The storage time budget of one turn: the time its Cloud Storage calls may take in all.

Per-call timeouts alone let a turn pay them again and again: a hung catalog read cost 30 s, a dead
state bucket 23 s (several calls, each retried for seconds) before the answer said so. The runner
opens a budget for the turn (TURN_STORAGE_SECONDS, agent.config); each storage call runs inside
`call(...)`, which hands it what is left of the budget — connect and read timeouts and the retry
deadline are cut to the remainder — and charges the time the call took. Once it is spent the next
call fails at once with `Exhausted` (a TimeoutError, so the catalog layer reports "did not answer in
time"). Outside a turn (no budget open) calls keep their own limits.

What is counted is time *inside storage calls* (retries and their back-off included), not the turn's
wall time: a turn that computes for a long while — a large catalog on a busy instance — keeps its
budget for the storage calls that end it (the cancel check, the final task write), and a hung store
still fails the turn within the budget, since a hung call is cut to what is left and charged. Calls
that overlap (parallel reads) are each charged their own duration, so the budget bounds the summed
storage time; that is the conservative side.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")

_MIN_S = 0.05  # never hand a library a zero timeout (0 means "no timeout" to some of them)


class Exhausted(TimeoutError):
    """The turn's storage budget is spent."""


class Budget:
    """Seconds of storage calls one turn may still spend (shared by the turn's threads)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.spent = 0.0
        self._lock = threading.Lock()

    def left(self) -> float:
        with self._lock:
            return self.seconds - self.spent

    def charge(self, seconds: float) -> None:
        with self._lock:
            self.spent += max(0.0, seconds)


_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("storage_budget", default=None)


@contextlib.contextmanager
def within(seconds: float | None, clock: Callable[[], float] = time.monotonic) -> Iterator[None]:
    """Storage calls inside take at most `seconds` in all (None: no budget; `clock` for tests)."""
    token = _current.set(Budget(seconds, clock) if seconds else None)
    try:
        yield
    finally:
        try:
            _current.reset(token)
        except ValueError:  # closed from another context (a generator collected elsewhere)
            _current.set(None)


def remaining() -> float | None:
    """Seconds of storage time left in the open budget; None outside a turn."""
    current = _current.get()
    return None if current is None else current.left()


@contextlib.contextmanager
def call(default: tuple[float, float]) -> Iterator[tuple[float, float]]:
    """One storage call (with its retries): yields its (connect, read) timeouts, cut to what is left,
    and charges the time spent inside. Raises Exhausted at once when nothing is left."""
    current = _current.get()
    if current is None:
        yield default
        return
    left = current.left()
    if left <= 0:
        raise Exhausted()
    started = current.clock()
    try:
        yield (max(_MIN_S, min(default[0], left)), max(_MIN_S, min(default[1], left)))
    finally:
        current.charge(current.clock() - started)


def retry_deadline(default: float) -> float:
    """The retry deadline of the call being made: at most what is left of the budget."""
    left = remaining()
    return default if left is None else max(_MIN_S, min(default, left))


def bounded(events: Iterator[T], seconds: float | None) -> Iterator[T]:
    """`events` with the turn's budget open while it runs — set afresh at every step, since a stream's
    steps may run on whichever context the server resumes it in, and never left open while it is
    suspended at a yield, so a stream that is left unfinished cannot leave its budget on a thread for
    the next request."""
    current = Budget(seconds) if seconds else None
    while True:
        token = _current.set(current)
        try:
            event = next(events)
        except StopIteration:
            return
        except GeneratorExit:
            raise
        finally:
            _current.reset(token)
        try:
            yield event
        except GeneratorExit:
            token = _current.set(current)
            try:
                close = getattr(events, "close", None)
                if close is not None:
                    close()
            finally:
                _current.reset(token)
            raise
