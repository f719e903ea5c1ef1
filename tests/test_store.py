"""The task and context stores: one behavioural suite for both back ends, then what only one has.

The Cloud Storage back end runs against real emulators on loopback: gcp-storage-emulator for the
suite, fake-gcs-server where generation preconditions matter (it answers 412 on a stale write).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import pytest

from agent.catalog.cache import Cache
from agent.catalog.evidence import KIND_ATTACHED, KIND_CONTEXT, LoadedCatalog
from agent.catalog.ingest import read_table_bytes
from agent.protocol import objects
from agent.store import gcs as gcs_store
from agent.store.base import ContextChange, NotCancelable, as_context_catalog
from agent.store.memory import MemoryContextStore, MemoryTaskStore
from tests.helpers import InterveningBucket, ask_runner, demo_head

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo" / "catalog.csv"


class Clock:
    """A clock the test moves: monotonic seconds for the memory store, UTC for Cloud Storage."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.start = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.timezone.utc)

    def advance(self, days: float) -> None:
        self.offset += days * 86_400

    def mono(self) -> float:
        return 1_000.0 + self.offset

    def utc(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=self.offset)


class Backend:
    """Builds stores of one kind; `other()` is a second instance sharing the same state (if any)."""

    def __init__(self, kind: str, emulator=None, ttl_days: int = 7) -> None:
        self.kind, self.emulator, self.clock, self.ttl_days = kind, emulator, Clock(), ttl_days
        if kind == "gcs":
            self.bucket_name = emulator.create_bucket()
            self._memory = None
        else:
            self._memory = (
                MemoryTaskStore(ttl_days=ttl_days, clock=self.clock.mono),
                MemoryContextStore(ttl_days=ttl_days, clock=self.clock.mono),
            )

    def stores(self):
        if self._memory is not None:
            return self._memory
        bucket = gcs_store.Bucket(self.bucket_name, self.ttl_days, clock=self.clock.utc)
        return gcs_store.GcsTaskStore(bucket), gcs_store.GcsContextStore(bucket)

    def object_names(self) -> list[str]:
        return sorted(b.name for b in self.emulator.client.list_blobs(self.bucket_name))


@pytest.fixture(params=["memory", "gcs"])
def backend(request) -> Backend:
    if request.param == "gcs":
        return Backend("gcs", request.getfixturevalue("gcs_emulator"))
    return Backend("memory")


def _task(state: str = "submitted", task_id: str | None = None, context_id: str = "ctx-1") -> dict:
    task_id = task_id or objects.new_id()
    user = {
        "kind": "message",
        "role": "user",
        "messageId": "m1",
        "parts": [{"kind": "text", "text": "hi"}],
        "taskId": task_id,
        "contextId": context_id,
    }
    return objects.task(task_id, context_id, objects.status(state), history=[user])


def _final(task: dict, state: str = "completed") -> dict:
    return dict(task, status=objects.status(state))


def _catalog(rows: int = 300, name: str = "catalog.csv") -> tuple[LoadedCatalog, int]:
    lines = DEMO.read_bytes().splitlines(keepends=True)
    data = b"".join(lines[: rows + 1])
    table, evidence = read_table_bytes(data, name, KIND_ATTACHED)
    return LoadedCatalog(table=table, sources=[evidence]), len(data)


# --- the shared behavioural suite ------------------------------------------------------------------


def test_task_lifecycle_and_final_state_wins(backend):
    tasks, _ = backend.stores()
    task = _task()
    assert tasks.get(task["id"]) is None and tasks.state(task["id"]) is None
    tasks.create(task)
    assert tasks.get(task["id"]) == task and tasks.state(task["id"]) == "submitted"
    tasks.save(_final(task, "working"))
    other, _ = backend.stores()
    assert other.get(task["id"])["status"]["state"] == "working" and other.state(task["id"]) == "working"
    stored = tasks.finish(_final(task, "completed"))
    assert stored["status"]["state"] == "completed"
    # A later finish or save (a runner that did not see the cancel) never overwrites a final state.
    assert tasks.finish(_final(task, "failed"))["status"]["state"] == "completed"
    tasks.save(_final(task, "working"))
    assert other.get(task["id"])["status"]["state"] == "completed"


def test_owned_is_the_task_and_its_party_from_one_read(backend):
    """tasks/get asks the store once for both (issue 16 item 6): the same task and party that `get` and
    `party` give, None once unknown or expired, and on Cloud Storage one object read, not two."""
    tasks, _ = backend.stores()
    task = _task()
    tasks.create(task, party="merchant:alice")
    tasks.finish(_final(task))
    other, _ = backend.stores()
    reads: list[str] = []
    if backend.kind == "gcs":
        for name in ("read_json", "meta"):
            real = getattr(other.bucket, name)
            setattr(other.bucket, name, lambda *a, _real=real, _name=name, **k: reads.append(_name) or _real(*a, **k))
    found = other.owned(task["id"])
    assert reads == (["read_json"] if backend.kind == "gcs" else [])  # the body alone, not its metadata too
    assert found is not None and found[0] == other.get(task["id"]) and found[1] == "merchant:alice"
    assert found[1] == other.party(task["id"]) and found[0]["status"]["state"] == "completed"
    assert other.owned(objects.new_id()) is None
    backend.clock.advance(8)  # past the TTL
    assert backend.stores()[0].owned(task["id"]) is None


def test_cancel_flag_is_seen_by_every_instance(backend):
    tasks, _ = backend.stores()
    assert tasks.request_cancel("no-such-task") is None
    running = _task("working")
    tasks.create(running)
    assert tasks.cancel_requested(running["id"]) is False
    other, _ = backend.stores()
    assert other.request_cancel(running["id"])["id"] == running["id"]
    # The runner's instance sees it at its next poll (Cloud Storage: at most one check per half second).
    deadline = time.monotonic() + 2
    while not tasks.cancel_requested(running["id"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tasks.cancel_requested(running["id"]) is True
    canceled = tasks.mark_canceled(running["id"], _final(running, "canceled"))
    assert canceled["status"]["state"] == "canceled"
    with pytest.raises(NotCancelable):
        other.request_cancel(running["id"])
    done = _task()
    tasks.create(done)
    tasks.finish(_final(done))
    with pytest.raises(NotCancelable):
        other.request_cancel(done["id"])


def test_context_remembers_turns_merchant_memory_and_catalog(backend):
    _, contexts = backend.stores()
    assert contexts.load("client-made-id") is None
    catalog, size = _catalog()
    first = contexts.record_turn(
        "client-made-id",
        ContextChange(
            task_id="t1",
            merchant_id="acme",
            plan_memory={"skills": ["availability"], "scope_phrase": "chairs"},
            catalogs=[as_context_catalog(catalog)],
            attached_bytes=size,
        ),
    )
    assert first.task_ids == ["t1"] and first.merchant_id == "acme"
    contexts.record_turn("client-made-id", ContextChange(task_id="t2", merchant_id="other", plan_memory=None))

    _, elsewhere = backend.stores()  # another instance
    state = elsewhere.load("client-made-id")
    assert state.task_ids == ["t1", "t2"]
    assert state.merchant_id == "acme"  # bound once, never rebound
    assert state.plan_memory == {"skills": ["availability"], "scope_phrase": "chairs"}
    assert state.attached_bytes == size and state.has_catalogs
    loaded = elsewhere.load_catalogs(state)
    assert len(loaded) == 1
    assert loaded[0].table.equals(catalog.table)
    assert loaded[0].table.schema.equals(catalog.table.schema)  # dictionaries and dates kept exactly
    source, original = loaded[0].sources[0], catalog.sources[0]
    assert source.kind == KIND_CONTEXT
    assert (source.name, source.rows_read, source.rows_skipped, source.format) == (
        original.name,
        original.rows_read,
        original.rows_skipped,
        original.format,
    )


def test_new_attachment_replaces_the_old_one(backend):
    _, contexts = backend.stores()
    small, small_size = _catalog(50, "first.csv")
    large, large_size = _catalog(120, "second.csv")
    contexts.record_turn(
        "c", ContextChange(task_id="t1", catalogs=[as_context_catalog(small)], attached_bytes=small_size)
    )
    contexts.record_turn(
        "c", ContextChange(task_id="t2", catalogs=[as_context_catalog(large)], attached_bytes=large_size)
    )
    _, elsewhere = backend.stores()
    state = elsewhere.load("c")
    loaded = elsewhere.load_catalogs(state)
    assert [s.name for c in loaded for s in c.sources] == ["second.csv"]
    assert loaded[0].table.num_rows == large.table.num_rows and state.attached_bytes == large_size
    if backend.kind == "gcs":  # saved once, beside the context; the replaced one is gone
        parquet = [n for n in backend.object_names() if n.endswith(".parquet")]
        assert parquet == ["contexts/c/catalog-2.parquet"]


def test_turns_kept_are_bounded(backend):
    _, contexts = backend.stores()
    for i in range(5):
        contexts.record_turn("c", ContextChange(task_id=f"t{i}", max_turns=3))
    assert contexts.load("c").task_ids == ["t2", "t3", "t4"]


def test_ttl_applies_on_read(backend):
    tasks, contexts = backend.stores()
    task = _task()
    tasks.create(task)
    catalog, size = _catalog(30)
    contexts.record_turn(
        "old", ContextChange(task_id="t1", catalogs=[as_context_catalog(catalog)], attached_bytes=size)
    )
    backend.clock.advance(6)
    contexts.record_turn("old", ContextChange(task_id="t2"))  # the context is fresh again, its catalog is not
    assert tasks.get(task["id"]) is not None
    backend.clock.advance(1.5)
    tasks2, contexts2 = backend.stores()
    assert tasks2.get(task["id"]) is None and tasks2.state(task["id"]) is None
    assert tasks2.request_cancel(task["id"]) is None
    state = contexts2.load("old")
    assert state is not None and state.task_ids == ["t1", "t2"]
    if backend.kind == "gcs":  # the Parquet object is older than the TTL: reported, not loaded
        assert state.expired_catalogs == ["catalog.csv"] and not state.has_catalogs
    backend.clock.advance(8)
    assert contexts2.load("old") is None
    # An expired context id starts afresh.
    assert contexts2.record_turn("old", ContextChange(task_id="t9")).task_ids == ["t9"]


def test_hostile_ids_stay_inside_their_folder(backend):
    tasks, contexts = backend.stores()
    for hostile in ("../../etc/passwd", "a/b", "..", "x" * 600, "ünïcode id"):
        task = _task(task_id=hostile, context_id=hostile)
        tasks.create(task)
        assert tasks.get(hostile)["id"] == hostile
        contexts.record_turn(hostile, ContextChange(task_id="t"))
        assert contexts.load(hostile).task_ids == ["t"]
    if backend.kind == "gcs":
        names = backend.object_names()
        assert all(n.startswith(("tasks/~", "contexts/~")) for n in names), names
        assert all(n.count("/") == (1 if n.startswith("tasks/") else 2) for n in names)


# --- memory only -----------------------------------------------------------------------------------


def test_memory_bounds_by_entries_and_bytes():
    lru: Cache[str] = Cache(1000, max_entries=3, keep_newest=True)  # the stores' settings
    for key in "abcd":
        lru.put(key, key, 10)
    assert len(lru) == 3 and "a" not in lru
    lru.get("b")  # b is now the most recent
    lru.put("big", "big", 985)
    assert "big" in lru and "b" in lru and "c" not in lru and "d" not in lru and lru.bytes_used == 995
    lru.put("huge", "huge", 5000)  # a store keeps what it was just given, alone over the bound
    assert "huge" in lru and len(lru) == 1

    catalog, size = _catalog(200)
    weight = catalog.table.nbytes
    contexts = MemoryContextStore(max_entries=100, max_bytes=int(weight * 2.5))
    for i in range(4):
        contexts.record_turn(
            f"c{i}", ContextChange(task_id="t", catalogs=[as_context_catalog(catalog)], attached_bytes=size)
        )
    kept = [i for i in range(4) if contexts.load(f"c{i}") is not None]
    assert kept == [2, 3]  # by bytes: two catalogs fit, the oldest two went

    tasks = MemoryTaskStore(max_entries=2)
    made = [_task() for _ in range(3)]
    for task in made:
        tasks.create(task)
    assert tasks.get(made[0]["id"]) is None and tasks.get(made[2]["id"]) is not None


# --- Cloud Storage only: generation preconditions (fake-gcs-server answers 412) ----------------------


def test_stale_write_gets_412_and_the_change_is_reapplied(fake_gcs):
    bucket_name = fake_gcs.create_bucket()
    plain = gcs_store.Bucket(bucket_name, 7)
    other = gcs_store.GcsContextStore(gcs_store.Bucket(bucket_name, 7))
    other.record_turn("c", ContextChange(task_id="t0"))
    doc, generation = plain.read_json("contexts/c/context.json")
    other.record_turn("c", ContextChange(task_id="t1"))
    from google.api_core.exceptions import PreconditionFailed

    with pytest.raises(PreconditionFailed):  # the emulator refuses a blind overwrite
        plain.write_json("contexts/c/context.json", doc, generation)

    racing = InterveningBucket(bucket_name, 7, intervene=lambda: other.record_turn("c", ContextChange(task_id="t2")))
    state = gcs_store.GcsContextStore(racing).record_turn("c", ContextChange(task_id="t3"))
    assert racing.refused == 1 and racing.writes == 2
    assert state.task_ids == ["t0", "t1", "t2", "t3"]
    assert other.load("c").task_ids == ["t0", "t1", "t2", "t3"]

    # Tasks too: a finish racing a cancel from another instance keeps the cancel.
    tasks_a = gcs_store.GcsTaskStore(gcs_store.Bucket(bucket_name, 7))
    task = _task("working")
    tasks_a.create(task)
    tasks_b = gcs_store.GcsTaskStore(
        InterveningBucket(bucket_name, 7, intervene=lambda: tasks_a.finish(_final(task, "canceled")))
    )
    assert tasks_b.finish(_final(task, "completed"))["status"]["state"] == "canceled"


def test_concurrent_writers_lose_no_turn(fake_gcs):
    bucket_name = fake_gcs.create_bucket()
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        store = gcs_store.GcsContextStore(gcs_store.Bucket(bucket_name, 7))
        try:
            for k in range(3):
                store.record_turn("shared", ContextChange(task_id=f"w{n}-{k}", plan_memory={"skills": [], "n": n}))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    ids = gcs_store.GcsContextStore(gcs_store.Bucket(bucket_name, 7)).load("shared").task_ids
    assert sorted(ids) == sorted(f"w{n}-{k}" for n in range(6) for k in range(3))


def test_catalog_is_written_once_and_read_from_cache(gcs_emulator):
    bucket_name = gcs_emulator.create_bucket()
    writer = gcs_store.GcsContextStore(gcs_store.Bucket(bucket_name, 7))
    catalog, size = _catalog(80)
    writer.record_turn("c", ContextChange(task_id="t1", catalogs=[as_context_catalog(catalog)], attached_bytes=size))
    gcs_emulator.reset_requests()
    for i in range(3):  # later turns do not write the catalog again
        writer.record_turn("c", ContextChange(task_id=f"t{i + 2}"))
    uploads = [r for r in gcs_emulator.requests() if r["method"] == "POST"]
    assert len(uploads) == 3 and not any("parquet" in str(r) for r in uploads)
    from agent.catalog.cache import TABLE_CACHE

    TABLE_CACHE.clear()  # a fresh instance: nothing cached
    reader = gcs_store.GcsContextStore(gcs_store.Bucket(bucket_name, 7))
    gcs_emulator.reset_requests()
    first = reader.load_catalogs(reader.load("c"))
    second = reader.load_catalogs(reader.load("c"))
    assert first[0].table.equals(second[0].table)
    assert len(gcs_emulator.downloads(bucket_name, "contexts/c/catalog-1.parquet")) == 1


def test_cancel_poll_is_throttled(gcs_emulator):
    bucket_name = gcs_emulator.create_bucket()
    tasks = gcs_store.GcsTaskStore(gcs_store.Bucket(bucket_name, 7))
    task = _task("working")
    tasks.create(task)
    gcs_emulator.reset_requests()
    for _ in range(50):
        assert tasks.cancel_requested(task["id"]) is False
    assert len(gcs_emulator.requests()) == 1  # one existence check for 50 polls within half a second


# --- configuration of the store ---------------------------------------------------------------------


def test_store_settings_are_parsed_and_checked():
    from agent import config

    cfg = config.load(
        {
            "STATE_TTL_DAYS": "14",
            "CONTEXT_MAX_ATTACHED_BYTES": "1048576",
            "CONTEXT_MAX_TURNS": "20",
            "STATE_MEMORY_BYTES": "67108864",
            "ALLOWED_CATALOG_PREFIXES": "gs://acme-cat/{merchant_id}, gs://market/feeds/",
        }
    )
    assert (cfg.state_ttl_days, cfg.context_max_attached_bytes, cfg.context_max_turns, cfg.memory_store_bytes) == (
        14,
        1048576,
        20,
        67108864,
    )
    assert cfg.allowed_catalog_prefixes == ("gs://acme-cat/{merchant_id}/", "gs://market/feeds/")
    defaults = config.load({})
    assert (defaults.state_ttl_days, defaults.context_max_attached_bytes, defaults.context_max_turns) == (
        7,
        min(64 << 20, int(config.shareable_bytes(1 << 30) * config.SHARE_CONTEXTS)),  # 55 MiB at the 1 GiB default
        100,
    )
    for name, value in [
        ("STATE_TTL_DAYS", "0"),
        ("CONTEXT_MAX_TURNS", "lots"),
        ("ALLOWED_CATALOG_PREFIXES", "gs://"),
        ("ALLOWED_CATALOG_PREFIXES", "gs://b/{other}/"),
    ]:
        with pytest.raises(config.ConfigError, match=name):
            config.load({name: value})


# --- the runner with a Cloud Storage store: an attached catalog past the TTL is said, not hidden --------


def test_follow_up_after_the_catalog_expired_says_so(gcs_emulator):
    from agent.catalog.attachments import Attachment
    from agent.service.live import LiveRegistry
    from agent.service.runner import Deps, Runner

    clock = Clock()
    bucket = gcs_store.Bucket(gcs_emulator.create_bucket(), 7, clock=clock.utc)
    runner = Runner(
        Deps(
            tasks=gcs_store.GcsTaskStore(bucket),
            contexts=gcs_store.GcsContextStore(bucket),
            live=LiveRegistry(),
            catalog_uri=None,
            reference_uri=None,
            local_root=None,
            a2ui_status_copy=False,
            ttl_days=7,
        )
    )
    data = demo_head()

    def ask(question: str, attachments=()) -> str:
        return ask_runner(runner, question, attachments)

    first = ask("What is in this file?", [Attachment(name="mine.csv", data=data, mime_type="text/csv")])
    assert "- mine.csv (attached file" in first
    clock.advance(6)
    assert "- mine.csv (attached earlier in this conversation" in ask("and the brands?")
    clock.advance(1.5)  # the context was written a moment ago; the catalog is 7.5 days old
    late = ask("and the prices?")
    assert "The catalog attached earlier in this conversation (mine.csv) is no longer kept" in late
    assert "mine.csv (attached" not in late and "demo-catalog.csv" in late
