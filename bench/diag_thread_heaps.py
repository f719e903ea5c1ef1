"""Why a release on one thread leaves memory behind (issue 12 item 1, bench/README.md "Idle release").

Six threads each build a table and stay alive and idle, as gunicorn's request threads do between
requests; the main thread drops every table and asks Arrow's pool and malloc to give pages back; then
each owner thread releases its own heap. Prints the resident size above the start after each step.
Try `ARROW_DEFAULT_MEMORY_POOL=jemalloc|system` or `MIMALLOC_PURGE_DELAY=0` in front of it.

    .venv/bin/python bench/diag_thread_heaps.py
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time

import numpy as np
import pyarrow as pa

THREADS, ROWS = 6, 5_000_000
pool = pa.default_memory_pool()
tables: list[pa.Table] = []
lock = threading.Lock()
go, done = threading.Event(), threading.Event()


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


def build() -> None:
    table = pa.table({"a": pa.array(np.random.rand(ROWS)), "b": pa.array(np.arange(ROWS)).cast(pa.string())})
    with lock:
        tables.append(table)


def owner(ready: threading.Semaphore) -> None:
    build()
    ready.release()
    go.wait()  # alive and idle until the main thread has tried
    pool.release_unused()
    done.wait()


def main() -> None:
    for _ in range(2):  # warm the code paths first, so what remains is memory, not first-use costs
        build()
    tables.clear()
    pool.release_unused()
    base, ready = rss_mib(), threading.Semaphore(0)
    workers = [threading.Thread(target=owner, args=(ready,)) for _ in range(THREADS)]
    for w in workers:
        w.start()
    for _ in workers:
        ready.acquire()
    print(f"pool {pool.backend_name}; MiB above the start:")
    print(f"  held by {THREADS} live threads' tables   {rss_mib() - base:7.0f}")
    tables.clear()
    print(f"  dropped (freed from the main thread)  {rss_mib() - base:7.0f}")
    pool.release_unused()
    print(f"  main thread's release_unused()        {rss_mib() - base:7.0f}")
    name = ctypes.util.find_library("c")
    if name:
        ctypes.CDLL(name).malloc_trim(0)
    print(f"  malloc_trim(0)                        {rss_mib() - base:7.0f}")
    go.set()
    time.sleep(0.5)
    print(f"  each owner thread's release_unused()  {rss_mib() - base:7.0f}")
    done.set()
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
