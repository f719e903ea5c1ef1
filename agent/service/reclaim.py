"""Give memory back to the system: after a turn that parsed a large attachment, and when an instance goes quiet.

Parsing a 24 MiB CSV makes Arrow's pool and glibc's malloc grow their heaps; both keep freed pages for
reuse, so an instance that served a few large files stays hundreds of MiB above its
warm size although nothing holds that memory (bench/bench_memory.py). Returning it once the turn is
over keeps the instance's resident size close to what the bounded caches and stores really hold.

What the caches hold is bounded (shares of MEMORY_BUDGET_BYTES) but, left alone, kept for ever: an
instance that served a burst of large files and then went quiet would sit at its cache bound. So
entries unused for IDLE_RELEASE_SECONDS are dropped (`IdleRelease`) — parsed catalogs, the analysis
indexes, finished runs kept for resubscribe, and the tables of conversations kept in memory — and the
allocators are asked to return the pages. Decision (issue 12 item 1, written in README): this runs at
the start of the next request, not on a timer. On Cloud Run an instance gets (almost) no CPU between
requests unless "CPU always allocated" is bought, so a timer thread would not run when it matters;
and a request after a quiet spell is exactly when the instance is known to have been idle. The sweep
is rate-limited (at most one per tenth of the setting), so a busy instance pays a few microseconds.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from typing import Callable

from agent.catalog import heap

log = logging.getLogger(__name__)

LARGE_TURN_BYTES = 1024 * 1024  # below this, what a turn allocated is not worth a trim


MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024  # glibc: blocks from this size on are mapped on their own
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


def configure_allocators() -> None:
    """Called once at start (agent.app), before the first catalog is parsed. Two choices, each measured
    (bench/README.md, "Settled memory: the allocators"), that let a quiet instance return to its warm size:

    - Arrow's default pool is glibc's malloc (`config.arrow_pool_choice`), so one allocator holds the
      freed pages and `malloc_trim` reaches them all; mimalloc kept ~50 MiB resident after a sweep.
    - glibc's mmap threshold is fixed (at 32 MiB, the ceiling its dynamic threshold climbs to). Setting it
      turns glibc's dynamic thresholds off: left dynamic, freeing a large mapped block raises the mmap
      threshold to that size and the trim threshold to twice it (up to 64 MiB), so the heap keeps tens
      of MiB of freed pages that only a sweep's `malloc_trim` reaches, and not all of them. Fixed, the
      trim threshold stays at glibc's 128 KiB and a freed top of the heap goes back at once. Why 32 MiB
      and not 1 MiB (which would map every column buffer on its own): both settle within 10 % of the
      warm size after the bench's idle period (+5 % and +4 %), but at 1 MiB every buffer of a parse is a
      fresh mapping, and a 1M-row Parquet ingest took 1.35× as long (bench/README.md, "Settled
      memory: the allocators", the lead's threshold runs).
    """
    from agent import config

    choice = config.arrow_pool_choice()
    libc = heap.libc()
    if libc is not None and hasattr(libc, "mallopt"):
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    if "pyarrow" in sys.modules:  # imported already (a test, a bench): its pool may exist; set it by name
        import pyarrow as pa

        pools = {
            "system": pa.system_memory_pool,
            "mimalloc": pa.mimalloc_memory_pool,
            "jemalloc": pa.jemalloc_memory_pool,
        }
        if choice in pools:
            pa.set_memory_pool(pools[choice]())


def _rss() -> int:
    """This process's resident bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _release_arrow_pool() -> None:
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - best effort; memory stays bounded without it, just less tight
        pass


def release_allocators() -> dict[str, int]:
    """Ask Arrow's pool and glibc's malloc to return freed pages; the resident bytes before and after
    each step (so the log says which one matters: bench/README.md quotes it). No cycle collection: after
    150 large sends it returned nothing measurable (bench/README.md, "Idle release")."""
    steps = {"before": _rss()}
    _release_arrow_pool()
    steps["after_arrow_pool"] = _rss()
    heap.trim()
    steps["after_malloc_trim"] = _rss()
    return steps


# Set by an idle sweep that released memory: the next turn releases again when it ends (see after_turn).
_AFTER_SWEEP = threading.Event()


def after_turn(attached_bytes: int) -> None:
    """Return unused allocator memory after a large turn (cheap no-op after a small one), and after the
    first turn that follows an idle sweep: that turn re-reads what the sweep (or, during a burst of large
    files, the cache's own eviction) let go of — the demo or configured catalog — and its parse leaves
    freed pages in both allocators that would otherwise stay until the next sweep (measured: +13 % of the
    warm baseline after that request, bench/README.md "Settled memory")."""
    if attached_bytes < LARGE_TURN_BYTES and not _AFTER_SWEEP.is_set():
        return
    _AFTER_SWEEP.clear()
    _release_arrow_pool()
    heap.trim()


class _SeenReleases(threading.local):
    """Per request thread: how many allocator releases it has caught up with. The class default makes a
    thread's first read a plain attribute, not a getattr that raises and swallows AttributeError on
    every request of a thread that never caught up (~10k of a tasks/get's instructions; issue 16 item 6)."""

    releases = 0


class IdleRelease:
    """Drops what the instance keeps once it has not been used for `idle_seconds`, at the next request.

    `sweepers` are called with the idle period and return the bytes they let go of (the process's
    caches: `agent.catalog.cache.drop_idle_entries`; the in-memory context store's tables; finished
    runs). When anything was let go, or the instance was quiet for the whole period (the last request's
    garbage is then freed too), the allocators return their free pages. `clock` is injectable, so tests
    move time without sleeping; `idle_seconds <= 0` turns it off.
    """

    def __init__(
        self,
        idle_seconds: float,
        sweepers: list[Callable[[float], int]],
        clock: Callable[[], float] = time.monotonic,
        release: Callable[[], dict[str, int]] = release_allocators,
        release_thread: Callable[[], None] = _release_arrow_pool,
    ) -> None:
        self.idle_seconds = idle_seconds
        self.sweepers = sweepers
        self.clock = clock
        self.release = release
        self.release_thread = release_thread
        self._lock = threading.Lock()
        self._last_request = clock()
        self._last_sweep = self._last_request
        self.sweeps = 0  # for tests and the log
        self._releases = 0  # allocator releases so far; each request thread catches up with it once
        self._seen = _SeenReleases()

    def on_request(self) -> int:
        """Called as a request starts; returns the bytes let go of (0 when no sweep was due)."""
        if self.idle_seconds <= 0:
            return 0
        self._catch_up()
        with self._lock:
            now = self.clock()
            quiet = now - self._last_request >= self.idle_seconds
            self._last_request = now
            if not quiet and now - self._last_sweep < self.idle_seconds / 10:
                return 0
            self._last_sweep = now
            self.sweeps += 1
        freed = 0
        for sweep in self.sweepers:
            try:
                freed += sweep(self.idle_seconds)
            except Exception:  # noqa: BLE001 - a sweep that fails keeps its entries; the request goes on
                log.exception("idle release: a sweep failed")
        if freed or quiet:
            steps = self.release()
            _AFTER_SWEEP.set()
            with self._lock:
                self._releases += 1
                self._seen.releases = self._releases
            log.info(
                "idle release: %d bytes of entries unused for %.0f s dropped; resident %s",
                freed,
                self.idle_seconds,
                " → ".join(f"{k} {v / 2**20:.0f} MiB" for k, v in steps.items()),
            )
        return freed

    def _catch_up(self) -> None:
        """Arrow's pool, when it is mimalloc (ARROW_DEFAULT_MEMORY_POOL=mimalloc), keeps freed pages per thread: a release on the sweeping thread does
        not return the pages of tables another request thread built, while that thread sits idle in
        the server's pool (measured: ~40 of ~500 MiB stay). So each request thread, on its first
        request after a release, releases its own heap once (a sub-millisecond call)."""
        seen = self._seen.releases
        if seen < self._releases:
            self._seen.releases = self._releases
            self.release_thread()
