"""One small thread pool for ingest's independent column jobs.

Arrow kernels and large numpy operations release the GIL, so running a table's column jobs side by
side uses every core; small tables run inline (a pool hop costs more than the work).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

PARALLEL_MIN_ROWS = 50_000
K = TypeVar("K")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2)), thread_name_prefix="ingest")
    return _POOL


def parallel_slots() -> int:
    """How many jobs can truly run at once here: one per vCPU (the pool's size, at most 8)."""
    return max(1, min(8, os.cpu_count() or 1))


def submit(job: Callable[[], object], rows: int) -> Future:
    """One job on the pool (inline for small tables, like `submit_all`): for work that should run
    while this thread goes on with something else, such as the next read."""
    return submit_all({"job": job}, rows)["job"] if rows < PARALLEL_MIN_ROWS else _pool().submit(job)


def submit_all(tasks: dict[str, Callable[[], object]], rows: int) -> dict[str, Future]:
    """Start jobs and return their futures (already done when run inline, for small tables).

    A job may wait on the future of a job submitted *before* it: the pool takes jobs in order,
    so whatever it waits for has been taken by a worker that is not itself waiting on a later
    job — no deadlock, however many ingests share the pool."""
    if rows < PARALLEL_MIN_ROWS or len(tasks) < 2:
        done: dict[str, Future] = {}
        for k, job in tasks.items():
            fut: Future = Future()
            try:
                fut.set_result(job())
            except BaseException as exc:  # noqa: BLE001 - re-raised by .result(), as from the pool
                fut.set_exception(exc)
            done[k] = fut
        return done
    pool = _pool()
    return {k: pool.submit(job) for k, job in tasks.items()}


def run_parallel(tasks: Mapping[K, Callable[[], Any]], rows: int) -> dict[K, Any]:
    """Run independent jobs (name -> callable) and return name -> result, in parallel when `rows` is
    large enough to be worth it."""
    if rows < PARALLEL_MIN_ROWS or len(tasks) < 2:
        return {k: job() for k, job in tasks.items()}
    futures = {k: _pool().submit(job) for k, job in tasks.items()}
    return {k: fut.result() for k, fut in futures.items()}
