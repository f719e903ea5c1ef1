"""Per-instance caches for catalog snapshots: parsed tables by object generation, resolved locations.

A Cloud Function instance serves many turns (and, with THREADS > 1, several at once) against the
same few snapshots. Parsing a large CSV costs far more than answering from it, so parsed tables are
kept per instance, keyed by object name *and generation* (an overwritten object has a new generation
and is read again; an unchanged one is never re-downloaded). Memory is bounded by bytes, not entries,
because one catalog can be 100 kB and another 500 MB. Concurrent turns that want the same snapshot
share one download and one parse (single-flight) instead of racing N copies into memory.

Resolving a location (prefix → snapshot object, generation) costs a metadata round trip; a short-TTL
memo (a `Cache` with a `ttl`, `agent.catalog.gcs.RESOLVE_MEMO`) makes a burst of turns cost one call or none.

One cache type (`Cache`) serves all of them and the analysis layer's per-table indexes: bounded by bytes
and/or entries, optionally expiring, single-flight on load.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from agent.config import DEFAULT_SHAREABLE_BYTES, SHARE_TABLE_CACHE

if TYPE_CHECKING:  # only for annotations; gcs imports this module, not the other way round
    from agent.catalog.gcs import ObjectRef

log = logging.getLogger(__name__)

T = TypeVar("T")

# The parsed-catalog cache's bound before `configure` runs: the default budget's share (agent.config), the
# same figure a Service applies at start when MEMORY_BUDGET_BYTES is unset — never a second fixed number.
DEFAULT_TABLE_CACHE_BYTES = int(DEFAULT_SHAREABLE_BYTES * SHARE_TABLE_CACHE)
IDLE_KEEP_ENTRY_SHARE = 0.02  # an idle entry this small (of its cache's bound) survives the idle sweep ...
IDLE_KEEP_TOTAL_SHARE = 0.05  # ... while all such survivors stay under this share of the bound
DEFAULT_RESOLVE_TTL_S = 10.0


@dataclass
class _Flight:
    """One load in progress; waiters block on `done` and then read value or error."""

    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None

    def result(self) -> Any:
        """Wait for the leader; its value, or its exception raised here too."""
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value

    def lead(
        self,
        fn: Callable[[], Any],
        lock: threading.Lock,
        inflight: dict,
        key: Hashable,
        keep: Callable[[Any], None] | None = None,
    ) -> Any:
        """Run `fn` as the one caller for `key`, publish its outcome to the waiters and leave `inflight`;
        on success `keep(value)` runs under `lock` first, so no caller sees the key neither in flight
        nor kept."""
        try:
            self.value = fn()
        except BaseException as exc:
            self.error = exc
            raise
        finally:
            with lock:
                inflight.pop(key, None)
                if self.error is None and keep is not None:
                    keep(self.value)
            self.done.set()
        return self.value


@dataclass(frozen=True)
class CacheStats:
    entries: int
    bytes_used: int
    max_bytes: int
    hits: int
    misses: int  # loads started (one per single-flight group)
    waits: int  # callers that joined another caller's load instead of loading
    evictions: int
    oversize: int  # values larger than the whole budget: returned but not kept


def _said_now(count: int) -> bool:
    """Whether the `count`-th oversize value is logged: the 1st, 10th, 100th, … An oversize catalog
    or finished task is offered again on every turn or `tasks/get` that reads it, and one warning a
    request drowned the log in the same line; the counts still show it is happening, and how often."""
    while count % 10 == 0:
        count //= 10
    return count == 1


class Cache(Generic[T]):
    """The one cache type of the package: thread-safe LRU, bounded by bytes and/or entries, with an
    optional time to live and single-flight loads.

    Every per-instance cache is one of these (parsed catalogs `TABLE_CACHE`, resolved locations
    `agent.catalog.gcs.RESOLVE_MEMO`, the planner's per-table indexes in agent.analysis), so eviction,
    locking and counting are written once.

    * `max_bytes`: the summed size of the values (`size_of`, or the `size` given to `put`) stays within
      it; a value bigger than the whole budget is returned but not kept (it would evict everything).
    * `max_entries`: at most this many entries (least recently used evicted first).
    * `ttl`: an entry is missing `ttl` seconds after it was stored (`clock` is injectable so tests move
      time without sleeping); `ttl <= 0` stores nothing.
    * `keep_newest`: for a store rather than a cache — the entry just written is always kept, even
      alone over `max_bytes` (everything older is evicted first), since a store may not drop what it
      was just told to keep (the in-memory task and context stores, agent.store.memory). A store is
      not swept by `drop_idle_entries` either (what it holds is data, not a copy).
    * `drop_idle(seconds)` / `map_idle(seconds, fn)`: entries not read or written for `seconds` (by
      `clock`) are dropped, or replaced by a smaller value — how a quiet instance gives memory back
      (IDLE_RELEASE_SECONDS, agent.service.reclaim).
    * `get_or_load(key, loader)`: a hit returns at once; a miss runs `loader` in the calling thread
      while every other caller of the same key waits for that one result. A loader exception is not
      cached: it propagates to the caller and to all waiters, and the next call loads again.
    """

    def __init__(
        self,
        max_bytes: int | None = None,
        *,
        max_entries: int | None = None,
        ttl: float | None = None,
        size_of: Callable[[Any], int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        keep_newest: bool = False,
    ) -> None:
        if max_bytes is not None and max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        if max_entries is not None and max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self._max_bytes = max_bytes
        self.max_entries = max_entries
        self.ttl = ttl
        self.clock = clock
        self._size_of = size_of
        self.keep_newest = keep_newest
        self._lock = threading.Lock()
        # key -> [value, size, stored at, last used at], by `clock`: a list, so a hit updates its last use in
        # place rather than building and storing a new entry (every cache read of the process is one)
        self._entries: OrderedDict[Hashable, list[Any]] = OrderedDict()
        self._inflight: dict[Hashable, _Flight] = {}
        self._bytes = 0
        self._hits = self._misses = self._waits = self._evictions = self._oversize = 0
        if not keep_newest:
            _CACHES.add(self)

    # -- reading ----------------------------------------------------------------------------------

    def _lookup(self, key: Hashable) -> list[Any] | None:
        """The live entry (touched: most recently used, its last-use time now), under the lock; an
        expired one is dropped."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        now = self.clock()
        if self.ttl is not None and now - entry[2] >= self.ttl:
            self._drop(key)
            return None
        entry[3] = now
        self._entries.move_to_end(key)
        return entry

    def get(self, key: Hashable) -> T | None:
        """The cached value or None, without loading (counts as a hit when present)."""
        with self._lock:
            entry = self._lookup(key)
            if entry is None:
                return None
            self._hits += 1
            return entry[0]

    def get_or_load(self, key: Hashable, loader: Callable[[], T], size_of: Callable[[T], int] | None = None) -> T:
        with self._lock:
            entry = self._lookup(key)
            if entry is not None:
                self._hits += 1
                return entry[0]
            flight = self._inflight.get(key)
            leader = flight is None
            if leader:
                flight = _Flight()
                self._inflight[key] = flight
                self._misses += 1
            else:
                self._waits += 1
        assert flight is not None  # the one in flight, or the one just started
        if not leader:
            return flight.result()

        measure = size_of or self._size_of
        size: list[int] = []

        def load() -> T:
            value = loader()
            size.append(int(measure(value)) if measure is not None else 0)  # a size_of failure fails the load
            return value

        return flight.lead(load, self._lock, self._inflight, key, keep=lambda value: self._store(key, value, size[0]))

    # -- writing ----------------------------------------------------------------------------------

    def put(self, key: Hashable, value: T, size: int | None = None) -> None:
        """Store `value` (its size: `size`, else the cache's `size_of`, else 0)."""
        if size is None:
            size = int(self._size_of(value)) if self._size_of is not None else 0
        with self._lock:
            self._store(key, value, size)

    def _store(self, key: Hashable, value: T, size: int) -> None:
        """Insert under the lock, evicting least recently used entries until within the bounds."""
        if self.ttl is not None and self.ttl <= 0:
            return
        if self._max_bytes is not None and size > self._max_bytes and not self.keep_newest:
            self._oversize += 1
            if _said_now(self._oversize):
                log.warning(
                    "cache value of %d bytes exceeds the %d-byte budget; not kept (%d such values so far)",
                    size,
                    self._max_bytes,
                    self._oversize,
                )
            return
        self._drop(key)
        now = self.clock()
        self._entries[key] = [value, size, now, now]
        self._bytes += size
        self._evict()

    def _drop(self, key: Hashable) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old[1]

    def _evict(self) -> None:
        floor = 1 if self.keep_newest else 0  # the newest entry is the last one
        while len(self._entries) > floor and (
            (self._max_bytes is not None and self._bytes > self._max_bytes)
            or (self.max_entries is not None and len(self._entries) > self.max_entries)
        ):
            evicted_key, (_, evicted_size, _, _) = self._entries.popitem(last=False)
            self._bytes -= evicted_size
            self._evictions += 1
            if evicted_size:
                log.info("cache evicted %r (%d bytes)", evicted_key, evicted_size)

    def invalidate(self, key: Hashable) -> None:
        with self._lock:
            self._drop(key)

    def drop_values(self, predicate: Callable[[T], bool]) -> None:
        """Forget every entry whose value matches (e.g. all locations that resolved to one object)."""
        with self._lock:
            for key in [k for k, (v, _, _, _) in self._entries.items() if predicate(v)]:
                self._drop(key)

    def map_idle(self, seconds: float, shrink: Callable[[T], tuple[T, int] | None]) -> int:
        """Entries unused for `seconds` or more: `shrink(value)` gives a (smaller value, its size) that takes
        the entry's place — keeping its times and position — or None to drop it. Returns the bytes
        given up (by the sizes the cache counts)."""
        freed = 0
        with self._lock:
            now = self.clock()
            for key, (value, size, stored, used) in list(self._entries.items()):
                if now - used < seconds:
                    continue
                smaller = shrink(value)
                if smaller is None:
                    self._drop(key)
                    freed += size
                    self._evictions += 1
                else:
                    self._entries[key] = [smaller[0], smaller[1], stored, used]
                    self._bytes += smaller[1] - size
                    freed += size - smaller[1]
        return freed

    def drop_idle(self, seconds: float, keep_small: bool = False) -> int:
        """Drop the entries unused for `seconds` or more; the bytes they held. With `keep_small`, idle
        entries that are cheap to keep stay (see `_cheap_to_keep`)."""
        if not keep_small:
            return self.map_idle(seconds, lambda _value: None)
        cheap = self._cheap_to_keep()
        freed = 0
        with self._lock:
            now = self.clock()
            for key, (_value, size, _stored, used) in list(self._entries.items()):
                if now - used >= seconds and key not in cheap:
                    self._drop(key)
                    freed += size
                    self._evictions += 1
        return freed

    def _cheap_to_keep(self) -> set[Hashable]:
        """The entries an idle sweep leaves: each at most IDLE_KEEP_ENTRY_SHARE of the bound, together at
        most IDLE_KEEP_TOTAL_SHARE of it, most recently used first. Dropping the demo catalog or a small
        merchant's snapshot gives back a few MiB and costs the next turn a read and parse (bench/README.md:
        the request after a sweep re-read the demo catalog and brought ~50 MiB of working memory back);
        large tables — what the sweep is for — are never among them."""
        if self._max_bytes is None:
            return set()
        each, total = self._max_bytes * IDLE_KEEP_ENTRY_SHARE, self._max_bytes * IDLE_KEEP_TOTAL_SHARE
        kept: set[Hashable] = set()
        with self._lock:
            for key, (_value, size, _stored, _used) in reversed(list(self._entries.items())):
                if size <= each and size <= total:
                    kept.add(key)
                    total -= size
        return kept

    def clear(self) -> None:
        """Drop every entry and reset the counters (loads in flight still complete for their callers)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._hits = self._misses = self._waits = self._evictions = self._oversize = 0

    # -- bounds and counters ----------------------------------------------------------------------

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return self._lookup(key) is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def keys(self) -> list[Hashable]:
        """Keys from least to most recently used."""
        with self._lock:
            return list(self._entries)

    @property
    def max_bytes(self) -> int | None:
        return self._max_bytes

    def set_max_bytes(self, max_bytes: int) -> None:
        """Change the byte budget (from configuration at start); shrinking evicts at once."""
        if max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        with self._lock:
            self._max_bytes = max_bytes
            self._evict()

    @property
    def bytes_used(self) -> int:
        with self._lock:
            return self._bytes

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                entries=len(self._entries),
                bytes_used=self._bytes,
                max_bytes=self._max_bytes if self._max_bytes is not None else -1,
                hits=self._hits,
                misses=self._misses,
                waits=self._waits,
                evictions=self._evictions,
                oversize=self._oversize,
            )


# Every cache of the process (not the stores built on Cache), for `drop_idle_entries`; weak, so a cache
# made by a test or a short-lived object leaves with it.
_CACHES: "weakref.WeakSet[Cache[Any]]" = weakref.WeakSet()


def drop_idle_entries(seconds: float) -> int:
    """Drop, in every cache of the process, the entries unused for `seconds` or more, but those cheap to
    keep (Cache._cheap_to_keep); the bytes held."""
    return sum(cache.drop_idle(seconds, keep_small=True) for cache in list(_CACHES))


class SingleFlight:
    """Collapse concurrent calls with the same key into one: the first runs, the rest share its outcome.

    Nothing is remembered once the call finishes (pair it with a `Cache(ttl=…)` for that). Used by
    gcs.resolve so that a burst of turns arriving after the memo expired costs one metadata call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inflight: dict[Hashable, _Flight] = {}

    def do(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            flight = self._inflight.get(key)
            leader = flight is None
            if leader:
                flight = _Flight()
                self._inflight[key] = flight
        assert flight is not None  # the one in flight, or the one just started
        if not leader:
            return flight.result()
        return flight.lead(compute, self._lock, self._inflight, key)


def arrow_size(value: Any) -> int:
    """Bytes held by a pyarrow Table/Array (or an object with a `table`), for `size_of`."""
    table = getattr(value, "table", value)
    return int(table.nbytes)


TABLE_CACHE: Cache[Any] = Cache(DEFAULT_TABLE_CACHE_BYTES, size_of=arrow_size)


def configure(*, table_cache_bytes: int | None = None, resolve_ttl_s: float | None = None) -> None:
    """Apply the configured bounds; None keeps the current value.

    Called once per process by `agent.service.handler.Service` with `Config.table_cache_bytes` (the
    parsed-catalog share of MEMORY_BUDGET_BYTES); `agent.config` only parses settings and never calls it.
    Until then TABLE_CACHE holds the default budget's share (DEFAULT_TABLE_CACHE_BYTES)."""
    if table_cache_bytes is not None:
        TABLE_CACHE.set_max_bytes(table_cache_bytes)
    if resolve_ttl_s is not None:
        if resolve_ttl_s < 0:
            raise ValueError("resolve_ttl_s must be >= 0")
        from agent.catalog import gcs

        gcs.RESOLVE_MEMO.ttl = resolve_ttl_s


def load_gcs(
    uri: str,
    parse: Callable[[bytes, "ObjectRef"], T],
    *,
    size_of: Callable[[T], int] = arrow_size,
    namespace: str = "canonical",
    cache: Cache[Any] | None = None,
) -> tuple["ObjectRef", T]:
    """Resolve a gs:// location and return its parsed snapshot, through the per-instance cache.

    The cache key is (namespace, bucket, object name, generation): an unchanged object is parsed once
    per instance; a new generation is read again. Concurrent callers share one download and parse.
    If the object is replaced between resolve and download (`SnapshotChanged`), the location is
    resolved afresh once. Storage failures raise `gcs.SourceUnavailable`; `parse` errors propagate
    unchanged (and are not cached).
    """
    from agent.catalog import gcs

    cache = TABLE_CACHE if cache is None else cache
    for attempt in range(2):
        ref = gcs.resolve(uri, fresh=attempt > 0)
        key = (namespace, ref.bucket, ref.name, ref.generation)

        def load(ref: "ObjectRef" = ref) -> T:
            return parse(gcs.download(ref), ref)

        try:
            return ref, cache.get_or_load(key, load, size_of)
        except gcs.SnapshotChanged:
            if attempt:
                raise
            log.info("snapshot changed during read; resolving %s again", ref.uri)
    raise AssertionError("unreachable")  # pragma: no cover
