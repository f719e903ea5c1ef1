"""One small thread pool for ingest's independent column jobs.

Arrow kernels and large numpy operations release the GIL, so running a table's column jobs side by
side uses every core; small tables run inline (a pool hop costs more than the work).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

PARALLEL_MIN_ROWS = 50_000

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def run_parallel(tasks: dict[str, Callable[[], object]], rows: int) -> dict[str, object]:
    """Run independent jobs (name -> callable) and return name -> result, in parallel when `rows` is
    large enough to be worth it."""
    global _POOL
    if rows < PARALLEL_MIN_ROWS or len(tasks) < 2:
        return {k: f() for k, f in tasks.items()}
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2)), thread_name_prefix="ingest")
    futures = {k: _POOL.submit(f) for k, f in tasks.items()}
    return {k: fut.result() for k, fut in futures.items()}
