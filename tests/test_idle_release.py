"""A quiet instance gives memory back (issue 12 item 1): entries unused for IDLE_RELEASE_SECONDS are dropped
at the next request, the in-memory conversations let go of their tables and say so, and the allocators
are asked to return pages. Every clock is injected: time moves by assignment, never by sleeping."""

from __future__ import annotations

from pathlib import Path

from agent.catalog import cache as cache_mod
from agent.catalog.attachments import Attachment
from agent.catalog.cache import Cache
from agent.service import reclaim
from agent.service.live import LiveRegistry
from agent.service.reclaim import IdleRelease
from agent.service.runner import RELEASED_TEXT, Deps, Runner
from agent.store.base import ContextChange
from agent.store.memory import MemoryContextStore, MemoryTaskStore
from tests.helpers import FakeClock, ask_runner, demo_head

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo" / "catalog.csv"


def test_entries_unused_for_the_idle_period_are_dropped_and_a_read_keeps_one_alive():
    clock = FakeClock(1_000.0)
    cache: Cache[str] = Cache(1000, clock=clock)
    cache.put("a", "A", 100)
    cache.put("b", "B", 200)
    clock.now += 50
    assert cache.get("a") == "A"  # used at 1050: its idle time starts again
    clock.now += 60  # b unused for 110 s, a for 60 s
    assert cache.drop_idle(100) == 200
    assert cache.keys() == ["a"] and cache.bytes_used == 100
    clock.now += 100
    assert cache.drop_idle(100) == 100 and len(cache) == 0 and cache.bytes_used == 0


def test_map_idle_replaces_a_value_in_place_and_counts_the_bytes_given_up():
    clock = FakeClock(1_000.0)
    cache: Cache[str] = Cache(1000, clock=clock)
    cache.put("old", "big", 600)
    cache.put("new", "fresh", 100)
    clock.now += 10
    cache.get("new")
    freed = cache.map_idle(5, lambda value: ("small", 50))
    assert freed == 550 and cache.get("old") == "small" and cache.bytes_used == 150


def test_the_process_sweep_covers_caches_but_never_a_store():
    clock = FakeClock(1_000.0)
    cache: Cache[str] = Cache(1000, clock=clock)
    store: Cache[str] = Cache(1000, clock=clock, keep_newest=True)
    cache.put("k", "v", 100)  # 10 % of the bound: not cheap to keep
    store.put("k", "v", 100)
    clock.now += 3600
    cache_mod.drop_idle_entries(60)
    assert "k" not in cache and "k" in store


def test_the_process_sweep_keeps_what_is_cheap_to_keep():
    """A small catalog (the demo, a small merchant's snapshot) survives the idle sweep: it would give back
    little and cost the next turn a read and parse. Each survivor is at most 2 % of the cache's bound,
    together at most 5 %, most recently used first; the large entries go."""
    clock = FakeClock(1_000.0)
    cache: Cache[str] = Cache(10_000, clock=clock)
    cache.put("large", "L", 3_000)
    for number in range(4):
        cache.put(f"small{number}", "s", 150)  # 1.5 % each; the four together 6 %: the oldest one goes
    clock.now += 3600
    freed = cache_mod.drop_idle_entries(60)
    assert freed == 3_150
    assert cache.keys() == ["small1", "small2", "small3"]


def _table_catalog(name: str):
    from agent.catalog.evidence import KIND_ATTACHED, LoadedCatalog
    from agent.catalog.ingest import read_table_bytes

    table, evidence = read_table_bytes(DEMO.read_bytes(), name, KIND_ATTACHED)
    return LoadedCatalog(table=table, sources=[evidence])


def test_an_idle_conversation_lets_go_of_its_table_and_keeps_the_rest():
    clock = FakeClock(1_000.0)
    store = MemoryContextStore(clock=clock)
    store.record_turn("quiet", ContextChange(task_id="t1", party="p1", catalogs=[_table_catalog("mine.csv")]))
    clock.now += 400
    store.record_turn("busy", ContextChange(task_id="t2", party="p2", catalogs=[_table_catalog("theirs.csv")]))
    freed = store.release_idle(300)
    quiet, busy = store.load("quiet"), store.load("busy")
    assert freed > 0
    assert quiet.catalogs == [] and quiet.released_catalogs == ["mine.csv"]
    assert quiet.party == "p1" and quiet.task_ids == ["t1"]  # still the same conversation, same owner
    assert len(busy.catalogs) == 1 and busy.released_catalogs == []
    # a new attachment in the conversation replaces the note
    store.record_turn("quiet", ContextChange(task_id="t3", catalogs=[_table_catalog("again.csv")]))
    assert store.load("quiet").released_catalogs == []


def test_finished_runs_are_dropped_once_idle_and_a_running_one_never():
    clock = FakeClock(1_000.0)
    live = LiveRegistry(clock=clock)
    live.open("done").publish({"kind": "task", "id": "done"})
    live.close("done")
    running = live.open("running")
    clock.now += 10
    assert live.drop_finished(60) == 0 and live.get("done") is not None
    clock.now += 60
    assert live.drop_finished(60) > 0
    assert live.get("done") is None and live.get("running") is running
    # the instance still knows the run ended here (a cancel must not write over what its client was told)
    assert live.ended_here("done") and not live.ended_here("running")


class Recorder:
    def __init__(self, freed: int = 0) -> None:
        self.calls: list[float] = []
        self.freed = freed

    def __call__(self, seconds: float) -> int:
        self.calls.append(seconds)
        return self.freed


def test_the_sweep_runs_at_the_next_request_after_a_quiet_spell_and_is_rate_limited_when_busy():
    clock = FakeClock(1_000.0)
    sweep, releases = Recorder(freed=1234), []
    idle = IdleRelease(300, [sweep], clock=clock, release=lambda: releases.append(1) or {})
    assert idle.on_request() == 0 and sweep.calls == []  # just started: nothing due
    clock.now += 20
    assert idle.on_request() == 0 and sweep.calls == []  # busy, inside a tenth of the period
    clock.now += 11
    assert idle.on_request() == 1234 and sweep.calls == [300] and len(releases) == 1  # due: swept
    clock.now += 1
    assert idle.on_request() == 0 and len(sweep.calls) == 1
    clock.now += 301  # the instance went quiet: the next request sweeps at once
    assert idle.on_request() == 1234 and len(sweep.calls) == 2 and len(releases) == 2


def test_a_failing_sweep_keeps_the_request_going_and_zero_turns_it_off():
    clock = FakeClock(1_000.0)

    def broken(_seconds: float) -> int:
        raise RuntimeError("boom")

    ok = Recorder(freed=5)
    idle = IdleRelease(60, [broken, ok], clock=clock, release=lambda: {})
    clock.now += 61
    assert idle.on_request() == 5 and ok.calls == [60]
    off = IdleRelease(0, [ok], clock=clock, release=lambda: {})
    clock.now += 10_000
    assert off.on_request() == 0 and ok.calls == [60]


def test_release_allocators_reports_each_step():
    steps = reclaim.release_allocators()
    assert list(steps) == ["before", "after_arrow_pool", "after_malloc_trim"]
    assert all(isinstance(v, int) and v >= 0 for v in steps.values())


def test_a_follow_up_after_the_release_says_the_file_must_be_attached_again():
    clock = FakeClock(1_000.0)
    contexts = MemoryContextStore(clock=clock)
    runner = Runner(
        Deps(
            tasks=MemoryTaskStore(),
            contexts=contexts,
            live=LiveRegistry(clock=clock),
            catalog_uri=None,
            reference_uri=None,
            local_root=None,
            a2ui_status_copy=False,
            idle_release_seconds=300,
        )
    )
    idle = IdleRelease(300, [contexts.release_idle], clock=clock, release=lambda: {})
    data = demo_head()

    def ask(question: str, attachments=()) -> str:
        idle.on_request()
        return ask_runner(runner, question, attachments, context=contexts.load("conv"))

    first = ask("What is in this file?", [Attachment(name="mine.csv", data=data, mime_type="text/csv")])
    assert "- mine.csv (attached file" in first
    clock.now += 299
    assert "- mine.csv (attached earlier in this conversation" in ask("and the brands?")
    clock.now += 301
    late = ask("and the prices?")
    assert RELEASED_TEXT.format(names="mine.csv", minutes="5 minutes") in late
    assert "mine.csv (attached" not in late


def test_the_setting_is_read_in_config_and_the_service_sweeps_every_holder():
    import pytest

    from agent import config
    from agent.service.handler import Service

    assert config.load({}).idle_release_seconds == 300
    assert config.load({"IDLE_RELEASE_SECONDS": "0"}).idle_release_seconds == 0
    with pytest.raises(config.ConfigError, match="IDLE_RELEASE_SECONDS"):
        config.load({"IDLE_RELEASE_SECONDS": "soon"})
    service = Service(config.load({"IDLE_RELEASE_SECONDS": "120"}))
    assert service.idle.idle_seconds == 120
    assert service.contexts.release_idle in service.idle.sweepers  # the in-memory conversations' tables
    assert cache_mod.drop_idle_entries in service.idle.sweepers and service.live.drop_finished in service.idle.sweepers


def test_every_request_thread_releases_its_own_heap_once_after_a_release():
    import threading

    clock = FakeClock(1_000.0)
    per_thread: list[str] = []
    idle = IdleRelease(
        60,
        [Recorder(freed=10)],
        clock=clock,
        release=lambda: {},
        release_thread=lambda: per_thread.append(threading.current_thread().name),
    )
    clock.now += 61
    idle.on_request()  # sweeps and releases on this thread: nothing to catch up here
    assert per_thread == []

    def request() -> None:
        idle.on_request()
        idle.on_request()  # once per release, not per request

    other = threading.Thread(target=request, name="worker-2")
    other.start()
    other.join()
    assert per_thread == ["worker-2"]
    idle.on_request()
    assert per_thread == ["worker-2"]


def test_the_first_turn_after_a_sweep_releases_again_when_it_ends():
    """The turn after a sweep re-reads what was let go of (its catalog): its parse's freed pages are
    returned at its end, once, not left until the next sweep; later small turns cost nothing."""
    clock = FakeClock(1_000.0)
    idle = IdleRelease(300, [Recorder(freed=10)], clock=clock, release=lambda: {})
    reclaim.after_turn(0)  # whatever an earlier test left pending
    assert not reclaim._AFTER_SWEEP.is_set()
    clock.now += 301
    idle.on_request()  # quiet: swept and released
    assert reclaim._AFTER_SWEEP.is_set()
    reclaim.after_turn(0)  # a small turn, but the first after the sweep
    assert not reclaim._AFTER_SWEEP.is_set()
    clock.now += 1
    idle.on_request()  # busy: no sweep, nothing pending
    assert not reclaim._AFTER_SWEEP.is_set()
