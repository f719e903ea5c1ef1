"""First frames first (issue 16 item 4): analysis waits while requests that arrived have not had their
first bytes (agent.protocol.arrivals, FIRST_FRAME_WAIT_MS).

Held, never timed: a waiter is seen waiting on the condition before the request is answered, so no test
depends on which thread the machine runs first.
"""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from agent import config as config_mod
from agent.protocol import arrivals, objects
from agent.service.live import LiveRegistry
from agent.service.runner import AnalysisSlots, Deps, Runner, Turn, drain
from agent.store.memory import MemoryContextStore, MemoryTaskStore
from tests.helpers import wait_for

LONG = 30.0  # a wait that a passing test never reaches: the waiter is released by an answer


@pytest.fixture(autouse=True)
def nothing_pending():
    arrivals._pending.clear()
    yield
    arrivals._pending.clear()


def _waiters() -> int:
    return len(arrivals._cond._waiters)  # type: ignore[attr-defined]  # CPython's Condition keeps them here


def test_a_step_waits_for_a_pending_first_frame_and_goes_on_once_it_is_out():
    token = arrivals.arrived()
    result: list[bool] = []
    waiter = threading.Thread(target=lambda: result.append(arrivals.wait_for_first_frames(LONG)))
    waiter.start()
    wait_for(lambda: _waiters() == 1, timeout=10)
    assert not result  # still held: the request has not had its first bytes
    arrivals.answered(token)
    waiter.join(10)
    assert result == [False]  # it waited, and was released by the answer, not by the time limit
    assert arrivals.pending() == 0


def test_nothing_pending_or_the_wait_off_costs_nothing():
    assert arrivals.wait_for_first_frames(LONG) is True
    arrivals.arrived()
    assert arrivals.wait_for_first_frames(0) is True  # FIRST_FRAME_WAIT_MS=0


def test_an_arrival_older_than_the_wait_is_not_waited_for_and_is_dropped():
    """A stream whose first frame is never written (its client vanished) cannot hold analysis back."""
    token = arrivals.arrived()
    arrivals._pending[token] -= 1.0  # arrived a second ago
    assert arrivals.wait_for_first_frames(0.05) is True
    assert arrivals.pending() == 0


def test_answering_twice_or_an_unknown_token_is_harmless():
    token = arrivals.arrived()
    arrivals.answered(token)
    arrivals.answered(token)
    arrivals.answered(10**9)
    assert arrivals.pending() == 0


def test_analysis_slots_count_the_steps_that_waited():
    slots = AnalysisSlots(1, first_frame_wait_s=LONG)
    with slots.held():
        pass
    assert slots.first_frame_waits == 0
    token = arrivals.arrived()
    done = threading.Event()

    def step() -> None:
        with slots.held():
            done.set()

    worker = threading.Thread(target=step)
    worker.start()
    wait_for(lambda: _waiters() == 1, timeout=10)
    assert not done.is_set()
    arrivals.answered(token)
    worker.join(10)
    assert done.is_set() and slots.first_frame_waits == 1


def test_a_turns_analysis_waits_for_another_requests_first_frame():
    """The turn has sent its own Task and working frames; its planning waits until the newcomer is answered."""
    runner = Runner(
        Deps(
            tasks=MemoryTaskStore(),
            contexts=MemoryContextStore(),
            live=LiveRegistry(),
            catalog_uri=None,
            reference_uri=None,
            local_root=None,
            a2ui_status_copy=False,
            first_frame_wait_ms=int(LONG * 1000),
        )
    )
    question = "Where are the gaps in outdoor furniture?"
    turn = Turn(
        task_id=objects.new_id(),
        context_id="c",
        user_message={
            "kind": "message",
            "role": "user",
            "messageId": "m",
            "parts": [{"kind": "text", "text": question}],
        },
        question=question,
        attachments=[],
        unreadable=[],
        notices=[],
    )
    newcomer = arrivals.arrived()
    worker = threading.Thread(target=lambda: drain(runner.events(turn)))
    worker.start()
    wait_for(lambda: _waiters() == 1, timeout=60)
    run = runner.deps.live.get(turn.task_id)
    assert run is not None and [e.get("kind") for e in run.events] == ["task", "status-update"]  # no artifact yet
    arrivals.answered(newcomer)
    worker.join(60)
    assert turn.final_task is not None and turn.final_task["status"]["state"] == "completed"
    assert runner.slots.first_frame_waits >= 1


def _app():
    """The transport over a real Service, without importing main (which would set the process's logging
    up as readable lines for every later test in it)."""
    from flask import Flask, request

    from agent.protocol import http
    from agent.service.handler import Service

    service = Service(config_mod.load({}))
    app = Flask("first-frames")
    app.add_url_rule("/", "a2a", lambda: http.handle_rpc(request, service, 1 << 20), methods=["POST"])
    return app.test_client()


def _stream_body(method: str = "message/stream") -> str:
    message = {
        "role": "user",
        "kind": "message",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": "hi"}],
    }
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}})


def test_the_transport_answers_a_stream_at_its_first_frame_and_every_other_reply():
    client = _app()
    response = client.post("/", data=_stream_body(), headers={"Accept": "text/event-stream"}, buffered=False)
    frames = iter(response.response)
    assert next(frames).startswith(b"data: ")
    assert arrivals.pending() == 1  # the server asks for the next frame only once the first is written
    next(frames)
    assert arrivals.pending() == 0
    response.close()
    client.post("/", data="{not json")  # an error reply
    client.post("/", data=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": "nope"}}))
    assert arrivals.pending() == 0


def test_the_setting():
    assert config_mod.load({}).first_frame_wait_ms == 50
    assert config_mod.load({"FIRST_FRAME_WAIT_MS": "0"}).first_frame_wait_ms == 0
    with pytest.raises(config_mod.ConfigError, match="FIRST_FRAME_WAIT_MS"):
        config_mod.load({"FIRST_FRAME_WAIT_MS": "soon"})


def test_a_stream_makes_its_next_frame_only_once_newer_first_frames_are_out():
    """After its first frame a stream holds back its next one (its turn's loading, analysis, rendering)
    while a newer request waits for its first bytes."""
    client = _app()
    arrivals.configure(int(LONG * 1000))
    try:
        response = client.post("/", data=_stream_body(), headers={"Accept": "text/event-stream"}, buffered=False)
        frames = iter(response.response)
        assert next(frames).startswith(b"data: ")
        newcomer = arrivals.arrived()
        second: list[bytes] = []
        reader = threading.Thread(target=lambda: second.append(next(frames)))
        reader.start()
        wait_for(lambda: _waiters() == 1, timeout=10)
        assert not second  # held back behind the newcomer's first frame
        arrivals.answered(newcomer)
        reader.join(30)
        assert second and second[0].startswith(b"data: ")
        response.close()
    finally:
        arrivals.configure(50)
