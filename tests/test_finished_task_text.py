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
from agent.store.base import ANONYMOUS


def _service_with_a_finished_task(cfg: config_mod.Config | None = None) -> tuple[Service, str]:
    service = Service(cfg or config_mod.load({}))
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
    for request_id in (7, 0, -1, 2**63, "abc", None, "ünï", 'q"\\\u2028\n'):
        spliced = jsonrpc.success_body(request_id, first)
        assert (
            spliced
            == json.dumps(jsonrpc.success(request_id, plain), ensure_ascii=False, separators=(",", ":")).encode()
        )
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
    monkeypatch.setattr(service.tasks, "owned", lambda _task_id: (changed, ANONYMOUS))
    again = service.get({"id": task_id}, CallContext())
    assert again is not first and again["metadata"] == {"note": "a new object"}
    assert json.loads(again.data)["metadata"] == {"note": "a new object"}


def test_a_task_the_store_evicted_is_not_answered_from_the_kept_text():
    """The store holds one task: the first is evicted by the second, and tasks/get on it says "not found"
    although its text is still kept (the store is asked first, and a text only answers for its task)."""
    import pytest

    from agent.protocol import errors

    service = Service(config_mod.load({"STATE_MEMORY_TASKS": "1"}))
    message = {"role": "user", "kind": "message", "messageId": "m1", "parts": [{"kind": "text", "text": "overview"}]}
    first = service.send({"message": dict(message)}, CallContext())["id"]
    assert isinstance(service.get({"id": first}, CallContext()), objects.Encoded)
    service.send({"message": dict(message, messageId="m2")}, CallContext())
    assert service.tasks.get(first) is None and service._finished.get(first) is not None
    with pytest.raises(errors.RpcError) as refused:
        service.get({"id": first}, CallContext())
    assert refused.value.code == errors.task_not_found().code


def test_a_task_stored_anew_under_its_id_gives_the_new_json():
    service, task_id = _service_with_a_finished_task()
    first = service.get({"id": task_id}, CallContext())
    stored = service.tasks.get(task_id)
    service.tasks.create(dict(stored, metadata={"note": "stored anew"}))  # the memory store overwrites
    again = service.get({"id": task_id}, CallContext())
    assert again is not first and json.loads(again.data)["metadata"] == {"note": "stored anew"}
    assert service.get({"id": task_id}, CallContext()) is again  # and that text is kept in turn


def test_an_equal_task_read_anew_is_answered_from_the_kept_text(monkeypatch):
    """A store that reads a new object each time (Cloud Storage): an unchanged task is not encoded again."""
    import copy

    service, task_id = _service_with_a_finished_task()
    first = service.get({"id": task_id}, CallContext())
    stored = service.tasks.get(task_id)
    monkeypatch.setattr(service.tasks, "owned", lambda _task_id: (copy.deepcopy(stored), ANONYMOUS))
    assert service.get({"id": task_id}, CallContext()) is first


def test_the_kept_texts_are_a_share_of_the_memory_budget():
    for budget in (1 << 30, 4 << 30):
        cfg = config_mod.load({"MEMORY_BUDGET_BYTES": str(budget)})
        share = int(config_mod.shareable_bytes(budget) * config_mod.SHARE_FINISHED_JSON)
        assert cfg.finished_json_bytes == share and Service(cfg)._finished.max_bytes == share
    assert handler.Service(config_mod.load({}))._finished is not handler.Service(config_mod.load({}))._finished


def test_a_task_over_the_share_is_answered_each_time_and_named_once(caplog):
    """A finished task whose text is larger than the whole share: every tasks/get answers it whole, and
    the "not kept" line is logged once for that task, not on every call (it was, by the cache's put)."""
    import dataclasses
    import logging

    service, task_id = _service_with_a_finished_task()
    size = 2 * len(service.get({"id": task_id}, CallContext()).data)
    service, task_id = _service_with_a_finished_task(
        dataclasses.replace(config_mod.load({}), finished_json_bytes=size - 1)
    )
    expected = json.dumps(
        Service._with_history(service.tasks.get(task_id), None), ensure_ascii=False, separators=(",", ":")
    ).encode()
    with caplog.at_level(logging.INFO):
        replies = [service.get({"id": task_id}, CallContext()) for _ in range(5)]
    assert [reply.data for reply in replies] == [expected] * 5
    said = [record.getMessage() for record in caplog.records if "not kept" in record.getMessage()]
    assert len(said) == 1, said
    assert service._finished.get(task_id) is not None and service._finished.bytes_used < size
