"""The per-instance caches: byte-bounded LRU with single-flight loads, and the TTL memo."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from agent.catalog.cache import Cache, arrow_size
from tests.helpers import FakeClock


def size_len(value: bytes) -> int:
    return len(value)


def test_hit_does_not_call_loader():
    lru = Cache(100)
    calls = []
    assert lru.get_or_load("k", lambda: calls.append(1) or b"abc", size_len) == b"abc"
    assert lru.get_or_load("k", lambda: calls.append(1) or b"zzz", size_len) == b"abc"
    assert calls == [1]
    stats = lru.stats()
    assert (stats.hits, stats.misses, stats.entries, stats.bytes_used) == (1, 1, 1, 3)


def test_eviction_by_bytes_least_recently_used_first():
    lru = Cache(10)
    lru.get_or_load("a", lambda: b"aaaa", size_len)  # 4
    lru.get_or_load("b", lambda: b"bbbb", size_len)  # 8
    lru.get_or_load("a", lambda: b"never", size_len)  # touch a: b is now least recent
    lru.get_or_load("c", lambda: b"cccc", size_len)  # 12 > 10: evict b
    assert lru.keys() == ["a", "c"]
    assert lru.bytes_used == 8
    lru.get_or_load("d", lambda: b"dddddddd", size_len)  # 16: evict a, then c
    assert lru.keys() == ["d"]
    assert lru.bytes_used == 8
    assert lru.stats().evictions == 3


def test_many_small_entries_bounded_by_bytes_not_count():
    lru = Cache(1000)
    for i in range(500):
        lru.get_or_load(i, lambda: b"x" * 10, size_len)
    assert len(lru) == 100
    assert lru.bytes_used == 1000
    assert 399 not in lru and 400 in lru and 499 in lru


def test_oversize_value_is_returned_but_not_kept():
    lru = Cache(10)
    lru.get_or_load("small", lambda: b"12345", size_len)
    assert lru.get_or_load("big", lambda: b"x" * 11, size_len) == b"x" * 11
    assert "big" not in lru and "small" in lru  # the big value did not flush the cache
    assert lru.stats().oversize == 1


def test_an_oversize_value_offered_again_and_again_is_logged_at_1_10_100(caplog):
    """A catalog or finished task larger than its share is offered on every turn that reads it: one
    warning per request drowned the log; the 1st, 10th and 100th say it, with the count so far."""
    lru = Cache(10)
    with caplog.at_level("WARNING", logger="agent.catalog.cache"):
        for _ in range(150):
            lru.put("big", b"x" * 11, 11)
    lines = [r.getMessage() for r in caplog.records if "not kept" in r.getMessage()]
    assert len(lines) == 3, lines
    assert [line.rsplit("(", 1)[1] for line in lines] == [
        "1 such values so far)",
        "10 such values so far)",
        "100 such values so far)",
    ]
    assert lru.stats().oversize == 150


def test_shrinking_the_budget_evicts():
    lru = Cache(100)
    for key in "abcd":
        lru.get_or_load(key, lambda: b"x" * 20, size_len)
    lru.set_max_bytes(45)
    assert lru.keys() == ["c", "d"] and lru.max_bytes == 45


def test_single_flight_under_threads():
    lru = Cache(1 << 20)
    started = threading.Event()
    release = threading.Event()
    calls = []

    def slow_loader() -> bytes:
        calls.append(threading.get_ident())
        started.set()
        release.wait(5)
        return b"payload"

    results: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: results.append(lru.get_or_load("k", slow_loader, size_len))) for _ in range(10)
    ]
    for t in threads:
        t.start()
    assert started.wait(5)
    deadline = time.monotonic() + 5
    while lru.stats().waits < 9 and time.monotonic() < deadline:  # everyone else is waiting on it
        time.sleep(0.005)
    release.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1
    assert results == [b"payload"] * 10
    assert all(r is results[0] for r in results)
    stats = lru.stats()
    assert (stats.misses, stats.waits) == (1, 9)


def test_different_keys_load_in_parallel():
    lru = Cache(1 << 20)
    barrier = threading.Barrier(3, timeout=5)  # would break if loads were serialised by one lock

    def loader(value: bytes):
        def load() -> bytes:
            barrier.wait()
            return value

        return load

    out: dict[str, bytes] = {}
    threads = [
        threading.Thread(target=lambda k=k: out.__setitem__(k, lru.get_or_load(k, loader(k.encode()), size_len)))
        for k in ("x", "y", "z")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert out == {"x": b"x", "y": b"y", "z": b"z"}


def test_loader_error_reaches_every_waiter_and_is_not_cached():
    lru = Cache(1 << 20)
    started = threading.Event()
    release = threading.Event()
    calls = []

    def failing_loader() -> bytes:
        calls.append(1)
        started.set()
        release.wait(5)
        raise OSError("boom")

    errors: list[BaseException] = []

    def call() -> None:
        try:
            lru.get_or_load("k", failing_loader, size_len)
        except OSError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(5)]
    for t in threads:
        t.start()
    assert started.wait(5)
    deadline = time.monotonic() + 5
    while lru.stats().waits < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    release.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(errors) == 5
    assert "k" not in lru
    assert lru.get_or_load("k", lambda: b"ok", size_len) == b"ok"  # the next call loads again


def test_size_of_error_is_not_cached():
    lru = Cache(100)
    with pytest.raises(TypeError):
        lru.get_or_load("k", lambda: object(), lambda v: len(v))
    assert len(lru) == 0 and lru.bytes_used == 0


def test_arrow_size_counts_buffers():
    table = pa.table({"x": pa.array(range(1000), pa.int64())})
    assert arrow_size(table) == table.nbytes >= 8000


def test_ttl_memo_expires():
    clock = FakeClock()
    memo: Cache[str] = Cache(ttl=10.0, clock=clock)
    memo.put("uri", "ref-1")
    clock.now = 9.9
    assert memo.get("uri") == "ref-1"
    clock.now = 10.0
    assert memo.get("uri") is None


def test_ttl_memo_zero_ttl_stores_nothing_and_drop_values():
    memo: Cache[str] = Cache(ttl=0.0)
    memo.put("a", "x")
    assert memo.get("a") is None
    memo = Cache(ttl=10.0)
    memo.put("prefix/", "obj-1")
    memo.put("prefix/obj-1.csv", "obj-1")
    memo.put("other", "obj-2")
    memo.drop_values(lambda v: v == "obj-1")
    assert memo.get("prefix/") is None and memo.get("prefix/obj-1.csv") is None
    assert memo.get("other") == "obj-2"


def test_single_flight_shares_one_call_and_forgets_after():
    from agent.catalog.cache import SingleFlight

    flight = SingleFlight()
    started = threading.Event()
    release = threading.Event()
    calls = []

    def slow() -> str:
        calls.append(1)
        started.set()
        release.wait(5)
        return "ref"

    out: list[str] = []
    first = threading.Thread(target=lambda: out.append(flight.do("uri", slow)))
    first.start()
    assert started.wait(5)
    others = [threading.Thread(target=lambda: out.append(flight.do("uri", slow))) for _ in range(4)]
    for t in others:
        t.start()
    time.sleep(0.05)  # let them join the flight
    release.set()
    for t in [first, *others]:
        t.join(5)
    assert out == ["ref"] * 5 and len(calls) == 1
    assert flight.do("uri", lambda: "again") == "again"  # nothing remembered once done


def test_configure_sets_budget_and_ttl():
    from agent.catalog import cache, gcs

    old_budget, old_ttl = cache.TABLE_CACHE.max_bytes, gcs.RESOLVE_MEMO.ttl
    try:
        cache.configure(table_cache_bytes=1234, resolve_ttl_s=2.5)
        assert cache.TABLE_CACHE.max_bytes == 1234 and gcs.RESOLVE_MEMO.ttl == 2.5
        with pytest.raises(ValueError):
            cache.configure(resolve_ttl_s=-1)
    finally:
        cache.configure(table_cache_bytes=old_budget, resolve_ttl_s=old_ttl)
