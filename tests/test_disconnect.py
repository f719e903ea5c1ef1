"""A client that goes away mid-stream: the task must end in a state tasks/get can report.

Over HTTP a disconnect only shows on a later write (timing-dependent on loopback), so these tests close
the service's event generator at a chosen frame — exactly what the transport does when a write fails
(gunicorn closes the response iterable, which closes the generator at its current yield).
"""

from __future__ import annotations

from agent import config
from agent.protocol.context import CallContext
from agent.service.handler import Service
from agent.service.runner import ABANDONED_TEXT

QUESTION = {"message": {"role": "user", "parts": [{"kind": "text", "text": "What is in this file?"}]}}


def _stream_until(service: Service, stop_at: str) -> tuple[dict, list[dict]]:
    """Iterate message/stream's events until the first one of kind `stop_at`, then close the stream."""
    events = service.stream(dict(QUESTION), CallContext())
    seen = []
    for event in events:
        seen.append(event)
        if event.get("kind") == stop_at and (stop_at != "status-update" or event.get("final")):
            break
    events.close()
    return seen[0], seen


def test_disconnect_before_the_answer_ends_the_task_failed_with_a_reason():
    service = Service(config.load({}))
    task, seen = _stream_until(service, "artifact-update")
    stored = service.get({"id": task["id"]}, CallContext())
    assert stored["status"]["state"] == "failed"
    assert stored["status"]["message"]["parts"][0]["text"] == ABANDONED_TEXT
    assert stored["history"][0]["role"] == "user" and stored["history"][-1]["role"] == "agent"


def test_disconnect_on_the_final_frame_still_stores_the_completed_task_and_the_turn():
    service = Service(config.load({}))
    task, seen = _stream_until(service, "status-update")
    assert seen[-1]["final"] is True and seen[-1]["status"]["state"] == "completed"
    stored = service.get({"id": task["id"]}, CallContext())
    assert stored["status"]["state"] == "completed"
    assert stored["artifacts"] and stored["artifacts"][0]["parts"][0]["text"].startswith("## ")
    context = service.contexts.load(task["contextId"])
    assert context is not None and task["id"] in context.task_ids
