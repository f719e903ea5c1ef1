"""Requests that have arrived and not yet had their first bytes: first frames go out before analysis.

Why (issue 16 item 4): on one interpreter, a new stream's thread needs the interpreter lock for every
step of its first frame (read the body, parse, validate, frame the Task, write it), and a turn that
is computing holds that lock up to the switch interval each time. Under a burst of 32 streams the
last connection's first frame waited behind other callers' analysis. So the transport counts each
request from the moment it reaches the function until its first bytes are handed to the server (a
stream's first frame, a unary reply); the runner, before it starts a step of analysis, waits while any
is pending (agent.service.runner.AnalysisSlots, at most FIRST_FRAME_WAIT_MS), and so does every stream
before it makes its next frame (`hold_back`): with results reused, a burst's turns finish in a few ms
each, and their own rendering, encoding and store writes would otherwise crowd the newcomers' first
frames. The waiting costs no interpreter time.

Bounded by construction: an arrival older than the wait is not waited for, and is dropped, so a
request whose first frame is never written (the client vanished before the server iterated the
stream) cannot hold analysis back nor stay in memory.
"""

from __future__ import annotations

import itertools
import threading
import time

# Every request takes the lock twice (arrived, answered), so it is a plain Lock entered directly, not
# through the Condition's Python-level methods, and waiters are woken only when there are some
# (`_waiters`): a notify_all per request with nobody waiting cost more than the bookkeeping itself.
_lock = threading.Lock()
_cond = threading.Condition(_lock)
_waiters = 0  # threads in wait_for_first_frames' wait, under _lock
_pending: dict[int, float] = {}  # token -> arrival (time.monotonic)
_tokens = itertools.count(1)
_wait_s = 0.05  # FIRST_FRAME_WAIT_MS, applied by the service at start (`configure`)


def configure(wait_ms: int) -> None:
    """FIRST_FRAME_WAIT_MS for `hold_back` (agent.service.handler.Service; agent.config parses it)."""
    global _wait_s
    _wait_s = max(0, wait_ms) / 1000


def hold_back() -> bool:
    """What a stream calls before it makes its next frame (agent.protocol.http): its turn's next work —
    loading, analysis, rendering, the store writes — waits while newer requests have not had their first
    bytes, at most FIRST_FRAME_WAIT_MS. True when it did not wait."""
    return wait_for_first_frames(_wait_s)


def arrived() -> int:
    """A request reached the function: its token, for `answered`."""
    token = next(_tokens)
    with _lock:
        _pending[token] = time.monotonic()
    return token


def answered(token: int) -> None:
    """The request's first bytes are out (or it needs no more priority): forget it; idempotent."""
    with _lock:
        if _pending.pop(token, None) is not None and not _pending and _waiters:
            _cond.notify_all()


def pending() -> int:
    with _lock:
        return len(_pending)


def wait_for_first_frames(timeout_s: float) -> bool:
    """Block (without interpreter time) while requests that arrived less than `timeout_s` ago wait for
    their first bytes, at most `timeout_s`; True when none was waited for. 0 turns the wait off.

    Arrivals older than `timeout_s` are dropped here: they are not waited for again, and what is
    pending stays bounded by the requests of the last `timeout_s` even if a token is never answered."""
    if timeout_s <= 0:
        return True
    global _waiters
    end = time.monotonic() + timeout_s
    waited = False
    with _lock:
        while _pending:
            now = time.monotonic()
            for token in [t for t, arrival in _pending.items() if now - arrival >= timeout_s]:
                del _pending[token]
            if not _pending or now >= end:
                break
            waited = True
            _waiters += 1
            try:
                _cond.wait(min(end, min(_pending.values()) + timeout_s) - now)
            finally:
                _waiters -= 1
    return not waited
