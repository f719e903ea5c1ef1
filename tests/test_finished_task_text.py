"""tasks/get on a finished task (issue 16 item 6): its JSON is made once per stored task and spliced
into each reply, byte for byte what encoding it each time gives; a task that is not finished, or a
historyLength, is encoded as before."""

from __future__ import annotations

import json

from agent import config as config_mod
from agent.protocol import jsonrpc, objects
from agent.protocol.context import CallContext
from agent.service import handler
from agent.service.handler import Service


def _service_with_a_finished_task() -> tuple[Service, str]:
    service = Service(config_mod.load({}))
    message = {
        "role": "user",
        "kind": "message",
        "messageId": "m1",
        "parts": [{"kind": "text", "text": "What is in this file?"}],
    }
    task = service.send({"message": message}, CallContext())
    assert task["status"]["state"] == "completed"
    return service, task["id"]


def test_a_finished_tasks_reply_is_the_same_bytes_and_encoded_once(monkeypatch):
    service, task_id = _service_with_a_finished_task()
    first = service.get({"id": task_id}, CallContext())
    assert isinstance(first, objects.Encoded)
    plain = dict(first)
    for request_id in (7, "abc", None, "ünï"):
        spliced = jsonrpc.success_text(request_id, first)
        assert spliced == json.dumps(jsonrpc.success(request_id, plain), ensure_ascii=False, separators=(",", ":"))
    made = []
    real = objects.Encoded.__init__

    def counting(self, value):
        made.append(1)
        real(self, value)

    monkeypatch.setattr(objects.Encoded, "__init__", counting)
    again = service.get({"id": task_id}, CallContext())
    assert again is first and made == []  # the same stored task: its text is not made again


def test_history_length_and_unfinished_tasks_are_encoded_as_before():
    service, task_id = _service_with_a_finished_task()
    trimmed = service.get({"id": task_id, "historyLength": 1}, CallContext())
    assert not isinstance(trimmed, objects.Encoded) and len(trimmed["history"]) == 1
    stored = service.tasks.get(task_id)
    working = dict(stored, status=objects.status("working"))
    assert not isinstance(handler.Service._with_history(working, None), objects.Encoded)


def test_a_store_that_reads_a_new_object_gets_a_fresh_text(monkeypatch):
    """Another object under the same id (a Cloud Storage read, a rewritten task) is never answered from
    the text of the old one."""
    service, task_id = _service_with_a_finished_task()
    first = service.get({"id": task_id}, CallContext())
    stored = service.tasks.get(task_id)
    changed = dict(stored, metadata={"note": "a new object"})
    monkeypatch.setattr(service.tasks, "get", lambda _task_id: changed)
    again = service.get({"id": task_id}, CallContext())
    assert again is not first and again["metadata"] == {"note": "a new object"}
    assert json.loads(again.text)["metadata"] == {"note": "a new object"}
