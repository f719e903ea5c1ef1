"""The storage time budget of one turn: a deadline every Cloud Storage call of the turn respects.

Per-call timeouts alone let a turn pay them again and again: a hung catalog read cost 30 s, a dead
state bucket 23 s (several calls, each retried for seconds) before the answer said so. The runner
opens a budget for the turn (TURN_STORAGE_SECONDS, agent.config); each storage call then waits at
most what is left of it — connect and read timeouts and the retry deadline are cut to the remainder —
and once it is spent the call fails at once with `Exhausted` (a TimeoutError, so the catalog layer
reports "did not answer in time"). Outside a turn (no budget open) calls keep their own limits.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Iterator, TypeVar

T = TypeVar("T")

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("storage_deadline", default=None)
_MIN_S = 0.05  # never hand a library a zero timeout (0 means "no timeout" to some of them)


class Exhausted(TimeoutError):
    """The turn's storage budget is spent."""


@contextlib.contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Storage calls inside wait at most `seconds` in all (None: no budget)."""
    token = _deadline.set(time.monotonic() + seconds if seconds else None)
    try:
        yield
    finally:
        try:
            _deadline.reset(token)
        except ValueError:  # closed from another context (a generator collected elsewhere)
            _deadline.set(None)


def remaining() -> float | None:
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def timeout(default: tuple[float, float]) -> tuple[float, float]:
    """(connect, read) timeouts for the next call; raises Exhausted when nothing is left."""
    left = remaining()
    if left is None:
        return default
    if left <= 0:
        raise Exhausted()
    return (max(_MIN_S, min(default[0], left)), max(_MIN_S, min(default[1], left)))


def retry_deadline(default: float) -> float:
    left = remaining()
    return default if left is None else max(_MIN_S, min(default, left))


def bounded(events: Iterator[T], seconds: float | None) -> Iterator[T]:
    """`events` with the budget open only while it runs — never while it is suspended at a yield, so
    a stream that is left unfinished cannot leave a spent deadline on its thread for the next request."""
    deadline = time.monotonic() + seconds if seconds else None
    while True:
        token = _deadline.set(deadline)
        try:
            event = next(events)
        except StopIteration:
            return
        except GeneratorExit:
            raise
        finally:
            _deadline.reset(token)
        try:
            yield event
        except GeneratorExit:
            token = _deadline.set(deadline)
            try:
                close = getattr(events, "close", None)
                if close is not None:
                    close()
            finally:
                _deadline.reset(token)
            raise
