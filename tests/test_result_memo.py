"""Deterministic skill results reused (issue 16 item 4): agent.analysis.memo.

A result is reused only for the same catalog generation (the same parsed table object), skill, scope,
reference and demand data; a new generation, another scope or another reference computes again, and a
reused result renders exactly as a computed one. Counted through the memo's counts and a wrapped skill,
never timed.
"""

from __future__ import annotations

import datetime as dt
import gc
from pathlib import Path

import pytest

from agent import config as config_mod
from agent.analysis import memo
from agent.analysis.planner import plan
from agent.analysis.registry import SKILLS, SkillInput
from agent.catalog.evidence import SourceEvidence
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render import a2ui
from agent.render.text import render_skill
from agent.service.live import LiveRegistry
from agent.service.runner import Deps, Runner
from agent.store.memory import MemoryContextStore, MemoryTaskStore
from tests.helpers import ask_runner

ROOT = Path(__file__).resolve().parents[1]
TAX = load()
GAPS = "Where are the gaps in outdoor furniture?"
NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


def _demo():
    """The demo catalog parsed anew: a table object (a catalog generation) no memo has seen."""
    path = ROOT / "data" / "demo" / "catalog.csv"
    table, _ = read_table_bytes(path.read_bytes(), path.name, "local file")
    return table


@pytest.fixture(autouse=True)
def fresh_memo():
    memo.configure(entries=memo.DEFAULT_ENTRIES, max_bytes=memo.DEFAULT_BYTES)
    memo.clear()
    yield
    memo.configure(entries=memo.DEFAULT_ENTRIES, max_bytes=memo.DEFAULT_BYTES)
    memo.clear()


@pytest.fixture()
def computed(monkeypatch):
    """How often the gaps skill really ran (the registry resolves `gaps.run` at each call)."""
    from agent.analysis import gaps

    calls = {"n": 0}
    real = gaps.run

    def counting(inp):
        calls["n"] += 1
        return real(inp)

    monkeypatch.setattr(gaps, "run", counting)
    return calls


def _gaps(table, question: str = GAPS, reference=None, sources=()):
    p = plan(question, table, TAX)
    inp = SkillInput(own=table, reference=reference, scope=p.scope, taxonomy=TAX, sources=tuple(sources))
    return memo.run("assortment_gaps", SKILLS["assortment_gaps"].run, inp)


def test_the_same_question_on_the_same_generation_is_computed_once(computed):
    table = _demo()
    first = _gaps(table)
    second = _gaps(table)
    assert second is first
    assert computed["n"] == 1
    assert memo.counts()["reused"] == 1 and memo.counts()["computed"] == 1


def test_a_new_catalog_generation_never_reuses_a_result(computed):
    first = _gaps(_demo())
    again = _gaps(_demo())  # the same bytes parsed again: another generation as far as the memo knows
    assert again is not first and computed["n"] == 2
    assert render_skill(again, []) == render_skill(first, [])  # and of course the same answer


def test_another_scope_or_reference_never_reuses_a_result(computed):
    table = _demo()
    outdoor = _gaps(table)
    garden = _gaps(table, "Where are the gaps in garden tools?")
    assert garden.scope != outdoor.scope and computed["n"] == 2
    with_reference = _gaps(table, reference=_demo())
    assert with_reference is not outdoor and computed["n"] == 3
    other_reference = _gaps(table, reference=_demo())
    assert other_reference is not with_reference and computed["n"] == 4
    assert _gaps(table) is outdoor and computed["n"] == 4


def test_other_source_evidence_never_reuses_a_result(computed):
    table = _demo()
    one = _gaps(
        table, sources=[SourceEvidence(name="a.csv", kind="attached file", format="generic table", rows_read=1)]
    )
    two = _gaps(
        table, sources=[SourceEvidence(name="b.csv", kind="attached file", format="generic table", rows_read=1)]
    )
    assert two is not one and computed["n"] == 2


def test_an_id_reused_by_another_table_is_not_taken_for_the_old_one(monkeypatch, computed):
    """The key holds ids; a table that died and whose id came back must not match (weak references)."""
    monkeypatch.setattr(
        memo, "_key", lambda skill_id, compute, inp: (skill_id, inp.scope)
    )  # as if every id were reused
    first = _demo()
    _gaps(first)
    del first
    gc.collect()
    _gaps(_demo())
    assert computed["n"] == 2 and memo.counts()["reused"] == 0


def test_a_pushdown_source_is_never_kept(computed):
    import dataclasses

    from agent.analysis import gaps

    table = _demo()
    pushed = SourceEvidence(name="bq://p.d.t", kind="BigQuery", format="Merchant Center", rows_read=0)
    pushed.pushdown = object()  # what agent.catalog.bigquery hands over above the size line
    p = plan(GAPS, table, TAX)
    inp = SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX, sources=(pushed,))

    def in_memory(i):  # the figures of the in-memory path stand in for BigQuery's here
        return gaps.run(dataclasses.replace(i, sources=()))

    first = memo.run("assortment_gaps", in_memory, inp)
    assert memo.run("assortment_gaps", in_memory, inp) is not first
    assert computed["n"] == 2 and memo.counts()["entries"] == 0


def test_entries_zero_turns_the_memo_off(computed):
    memo.configure(entries=0, max_bytes=memo.DEFAULT_BYTES)
    table = _demo()
    _gaps(table)
    _gaps(table)
    assert computed["n"] == 2 and memo.counts()["entries"] == 0


def test_the_memo_stays_within_its_entries_and_bytes(computed):
    table = _demo()
    memo.configure(entries=2, max_bytes=memo.DEFAULT_BYTES)
    for question in (GAPS, "Where are the gaps in garden tools?", "Where are the gaps in lighting?"):
        _gaps(table, question)
    assert memo.counts()["entries"] == 2
    size = memo.result_size(_gaps(table))
    memo.configure(entries=10, max_bytes=size - 1)  # one result is over the bound: computed, not kept
    memo.clear()
    _gaps(table)
    assert memo.counts()["entries"] == 0


@pytest.mark.parametrize("skill", sorted(SKILLS))
def test_a_kept_result_renders_as_it_did(skill):
    """Render and the A2UI builder only read a result: rendering a kept one twice gives the same text."""
    table = _demo()
    p = plan(GAPS, table, TAX)
    inp = SkillInput(own=table, reference=_demo(), scope=p.scope, taxonomy=TAX)
    result = memo.run(skill, SKILLS[skill].run, inp)
    text, parts = render_skill(result, ["a note"]), a2ui.build_messages(result, "footer", "s-1")
    again = memo.run(skill, SKILLS[skill].run, inp)
    assert again is result
    assert render_skill(again, ["a note"]) == text and a2ui.build_messages(again, "footer", "s-1") == parts


def _runner() -> Runner:
    return Runner(
        Deps(
            tasks=MemoryTaskStore(),
            contexts=MemoryContextStore(),
            live=LiveRegistry(),
            catalog_uri=None,  # the bundled demo catalog: one parsed table object for the process
            reference_uri=None,
            local_root=None,
            a2ui_status_copy=False,
            clock=lambda: NOW,
        )
    )


def test_a_repeated_turn_reuses_the_result_and_answers_the_same(computed):
    runner = _runner()
    first = ask_runner(runner, GAPS, context_id="c1")
    second = ask_runner(runner, GAPS, context_id="c2")
    assert second == first
    assert computed["n"] == 1 and memo.counts()["reused"] == 1


def test_the_setting_and_its_share_of_the_budget():
    assert config_mod.load({}).result_memo_entries == 256
    loaded = config_mod.load({"RESULT_MEMO_ENTRIES": "0", "MEMORY_BUDGET_BYTES": str(4 * 1024**3)})
    assert loaded.result_memo_entries == 0
    assert loaded.result_memo_bytes == int(config_mod.shareable_bytes(4 * 1024**3) * config_mod.SHARE_RESULT_MEMO)
    assert config_mod.SHARE_RESULT_MEMO == 0.01
    with pytest.raises(config_mod.ConfigError, match="RESULT_MEMO_ENTRIES"):
        config_mod.load({"RESULT_MEMO_ENTRIES": "many"})
    assert memo.DEFAULT_BYTES == int(config_mod.DEFAULT_SHAREABLE_BYTES * config_mod.SHARE_RESULT_MEMO)


def test_the_service_applies_the_setting(tmp_path):
    from agent.service.handler import Service

    Service(config_mod.load({"RESULT_MEMO_ENTRIES": "3", "MEMORY_BUDGET_BYTES": str(512 * 1024**2)}))
    assert memo._RESULTS.max_entries == 3
    assert memo._RESULTS.max_bytes == int(config_mod.shareable_bytes(512 * 1024**2) * config_mod.SHARE_RESULT_MEMO)


def test_another_function_under_the_same_skill_id_is_computed(computed):
    """A skill replaced under its id (a test's broken skill, a new build's code) never gets the old result."""
    table = _demo()
    first = _gaps(table)
    p = plan(GAPS, table, TAX)
    inp = SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX)
    other = memo.run("assortment_gaps", lambda i: SKILLS["assortment_gaps"].run(i), inp)
    assert other is not first and computed["n"] == 2
