"""Work done once per turn, and caches bounded by the one memory budget (issue 16 items 1 and 3).

Counted through hooks (the module functions that do the work), never timed: a turn computes the
scope's rows, their union and their first place once, and a second turn on the same snapshot and
scope computes none of them again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent import config as config_mod
from agent.analysis import scoping
from agent.analysis.planner import plan
from agent.analysis.registry import SKILLS, SkillInput
from agent.catalog import cache
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill

ROOT = Path(__file__).resolve().parents[1]
TAX = load()
QUESTIONS = (
    "Where are the gaps in outdoor furniture?",
    "What is in this catalog in outdoor furniture?",
    "What is out of stock in patio furniture?",
    "Do I have entry-level and premium options in outdoor chairs?",
)


def _fresh_demo():
    """The demo catalog parsed anew: a table object no cache has seen."""
    path = ROOT / "data" / "demo" / "catalog.csv"
    table, _ = read_table_bytes(path.read_bytes(), path.name, "local file")
    return table


@pytest.fixture()
def counted(monkeypatch):
    calls = {"_compute": 0, "_union": 0, "_first_place": 0}
    for name in calls:
        real = getattr(scoping, name)

        def wrapper(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(scoping, name, wrapper)
    return calls


def _turn(question: str, table) -> list[str]:
    p = plan(question, table, TAX)
    return [
        render_skill(SKILLS[s].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX)), p.notes)
        for s in p.skills
    ]


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_turn_computes_its_scope_masks_once(counted, question):
    table = _fresh_demo()
    first = _turn(question, table)
    assert counted["_compute"] == 1, "the scope's rows were computed more than once in one turn"
    assert counted["_union"] <= 1 and counted["_first_place"] <= 1, counted
    once = dict(counted)
    again = _turn(question, table)
    assert again == first  # the same answer from the kept masks
    assert counted == once, "a second turn on the same snapshot and scope recomputed a mask"


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_repeated_question_through_the_memo_computes_no_mask_and_no_skill(counted, question):
    """Issue 16 item 4: a second turn on the same snapshot, skills and scope reuses the skill results
    (agent.analysis.memo); only the planner's cached lookups and render run again."""
    from agent.analysis import memo

    memo.clear()
    table = _fresh_demo()

    def turn() -> list[str]:
        p = plan(question, table, TAX)
        return [
            render_skill(
                memo.run(s, SKILLS[s].run, SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX)), p.notes
            )
            for s in p.skills
        ]

    first = turn()
    computed = memo.counts()["computed"]
    once = dict(counted)
    assert turn() == first
    assert counted == once and memo.counts()["computed"] == computed
    assert memo.counts()["reused"] == computed
    memo.clear()


@pytest.mark.parametrize("budget", [1 << 30, 4 << 30])
def test_the_result_memo_is_sized_from_the_memory_budget(budget):
    from agent.analysis import memo
    from agent.service.handler import Service

    cfg = config_mod.load({"MEMORY_BUDGET_BYTES": str(budget)})
    try:
        Service(cfg)
        assert (
            memo._RESULTS.max_bytes
            == int(config_mod.shareable_bytes(budget) * config_mod.SHARE_RESULT_MEMO)
            == cfg.result_memo_bytes
        )
        assert memo._RESULTS.max_entries == cfg.result_memo_entries == 256
    finally:
        memo.configure(entries=memo.DEFAULT_ENTRIES, max_bytes=memo.DEFAULT_BYTES)


def _rechunked(table):
    """The same rows, every column cut into chunks of its own size (as a CSV read leaves the columns
    ingest does not rebuild: one chunk per read block, beside one-chunk rebuilt columns)."""
    import pyarrow as pa

    cols = []
    for j, name in enumerate(table.column_names):
        arr, step = table[name].combine_chunks(), 97 + 13 * j
        cols.append(pa.chunked_array([arr.slice(i, step) for i in range(0, len(arr), step)], type=arr.type))
    return pa.Table.from_arrays(cols, schema=table.schema)


@pytest.mark.parametrize("question", QUESTIONS)
def test_answers_do_not_depend_on_how_the_columns_are_chunked(question):
    table = _fresh_demo()
    odd = _rechunked(table)
    assert len({odd[c].num_chunks for c in odd.column_names}) > 1
    assert _turn(question, odd) == _turn(question, table)


def test_a_scopes_population_is_one_chunk_per_column():
    """population() filters column by column into one chunk, whatever the source's chunking: a
    Table.filter of mixed chunk layouts returns as many (mostly empty) chunks as the layouts have
    boundaries, and every later step of the turn pays for each (5M CSV variants: 227 → 37 ms a turn)."""
    from agent.analysis import common, gaps

    odd = _rechunked(_fresh_demo())
    p = plan(QUESTIONS[0], odd, TAX)
    pop = common.population(odd, p.scope, TAX, gaps.READ)
    assert 0 < pop.table.num_rows < odd.num_rows and pop.scoped is not None
    for part in (pop.table, pop.scoped):
        assert {c: part[c].num_chunks for c in part.column_names} == {c: 1 for c in part.column_names}


def test_gaps_left_out_products_come_from_the_populations_own_rows(counted):
    """gaps' left-out count reads population()'s in-scope rows: no second filter of the whole table by
    the mask (the union is built once even though two parts of the skill need the scope's rows)."""
    table = _fresh_demo()
    p = plan(QUESTIONS[0], table, TAX)
    SKILLS["assortment_gaps"].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX))
    assert (counted["_compute"], counted["_union"]) == (1, 1)


@pytest.mark.parametrize("budget", [1 << 30, 2 << 30, 4 << 30])
def test_the_parsed_catalog_cache_is_sized_from_the_memory_budget(budget):
    cfg = config_mod.load({"MEMORY_BUDGET_BYTES": str(budget)})
    assert cfg.table_cache_bytes == int((budget - config_mod.PROCESS_RESERVE_BYTES) * config_mod.SHARE_TABLE_CACHE)
    from agent.catalog import heap

    old, old_budget = cache.TABLE_CACHE.max_bytes, heap._BUDGET[0]
    try:
        from agent.service.handler import Service

        Service(cfg)
        assert cache.TABLE_CACHE.max_bytes == cfg.table_cache_bytes
        assert heap._BUDGET[0] == budget  # and so is the size from which a CSV read is trimmed
    finally:
        cache.configure(table_cache_bytes=old)
        heap.configure(old_budget)


def test_the_default_cache_bound_is_the_default_budgets_share():
    """No second fixed number: before a Service configures it, TABLE_CACHE holds the default budget's
    share, the same figure an unset MEMORY_BUDGET_BYTES gives."""
    assert cache.DEFAULT_TABLE_CACHE_BYTES == config_mod.load({}).table_cache_bytes


def test_the_parsed_catalog_cache_stays_within_its_bytes():
    """Real parsed tables through the real cache: the bytes kept never exceed the bound; the least
    recently used table goes first."""
    table = _fresh_demo()
    size = cache.arrow_size(table)
    lru: cache.Cache = cache.Cache(int(size * 2.5), size_of=cache.arrow_size)
    for i in range(6):
        lru.get_or_load(("t", i), _fresh_demo)
        assert lru.bytes_used <= lru.max_bytes
    assert lru.keys() == [("t", 4), ("t", 5)]


def test_an_attached_file_sent_again_is_parsed_once_and_held_once():
    """Conversations keep the parsed-table cache's own object for an attached file, not a copy: the
    same bytes sent by two conversations are one parse and one table in memory."""
    from agent.catalog.attachments import Attachment
    from agent.catalog.sources import read_attached

    data = (ROOT / "tests" / "corpus" / "seed" / "shopify-garden-solutions.csv").read_bytes()
    before = cache.TABLE_CACHE.stats().misses
    first, ev1 = read_attached(Attachment(name="garden.csv", data=data, mime_type="text/csv"))
    second, ev2 = read_attached(Attachment(name="garden.csv", data=bytes(data), mime_type="text/csv"))
    assert second is first and cache.TABLE_CACHE.stats().misses == before + 1
    ev1.role = "reference"
    assert ev2.role != "reference"  # each turn gets its own evidence
    other, _ = read_attached(Attachment(name="garden.csv", data=data + b"\n", mime_type="text/csv"))
    assert other is not first  # other bytes: parsed on their own


def test_a_streams_first_frames_need_no_analysis_slot():
    """While every analysis slot is taken (other callers computing), a new stream still gets its Task
    and its `working` frame: only planning and skills wait for a slot (issue 16 item 4)."""
    from agent.service.handler import CallContext, Service

    service = Service(config_mod.load({"ANALYSIS_SLOTS": "1"}))
    params = {
        "message": {
            "role": "user",
            "messageId": "m1",
            "parts": [{"kind": "text", "text": "Where are the gaps in outdoor furniture?"}],
        }
    }
    with service.runner.slots.held():  # another turn is computing
        events = service.stream(params, CallContext())
        first = next(events)
        second = next(events)
        assert first["kind"] == "task" and second["kind"] == "status-update"
        assert service.runner.slots.wait_count == 0
    rest = list(events)  # the slot is free again: the turn completes
    assert rest[-1]["final"] is True and rest[-1]["status"]["state"] == "completed"


def test_turns_beyond_the_slots_wait_for_one():
    import threading

    from agent.service.runner import AnalysisSlots

    slots = AnalysisSlots(1)
    done = threading.Event()

    def other() -> None:
        with slots.held():
            done.set()

    with slots.held():
        t = threading.Thread(target=other)
        t.start()
        for _ in range(60_000):  # until the other turn is blocked on the slot (not a timing assertion)
            if slots.wait_count:
                break
            threading.Event().wait(0.001)
        assert slots.wait_count == 1 and not done.is_set()
    t.join(10)
    assert done.is_set()
