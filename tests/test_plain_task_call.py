"""The lean path for plain tasks/get, tasks/cancel and tasks/resubscribe (agent.protocol.jsonrpc,
issue 16 item 6) accepts only requests the full path accepts, and gives the same Request; everything
else (every error included) is the full path's. Checked over each plain request with every member,
at both levels, replaced by every value of the schema-predicate corpus, removed, and joined by another."""

from __future__ import annotations

import copy
from typing import Any, Iterator

import pytest

from agent.protocol import errors, jsonrpc
from tests.helpers import SCHEMA_EDGE_VALUES as VALUES

PLAIN = [
    {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"id": "task-1"}}
    for method in (jsonrpc.GET, jsonrpc.CANCEL, jsonrpc.RESUBSCRIBE)
    for rid in (1, "r-1", 0)
]


def _variants(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield request
    for key in list(request):
        for value in VALUES:
            yield {**request, key: value}
        yield {k: v for k, v in request.items() if k != key}
    for value in VALUES:
        yield {**request, "params": {"id": value}}
        yield {**request, "params": {"id": "task-1", "historyLength": value}}
        yield {**request, "extra": value}
    yield {**request, "params": {}}
    yield {**request, "method": "message/send"}


def _outcome(validate, payload):
    try:
        return validate(copy.deepcopy(payload))
    except errors.RpcError as exc:
        return ("error", exc.code, exc.message)


@pytest.mark.parametrize("request_", PLAIN, ids=lambda r: f"{r['method']}-{r['id']!r}")
def test_the_lean_path_agrees_with_the_full_one(request_):
    taken = 0
    for payload in _variants(request_):
        full = _outcome(jsonrpc.validate_fully, payload)
        assert _outcome(jsonrpc.validate, payload) == full, payload
        plain = jsonrpc._plain_task_call(payload) if type(payload) is dict else None
        if plain is not None:
            taken += 1
            assert plain == full, payload  # only what the full path accepts, as the same Request
    assert taken >= 3  # the plain request itself and its string/integer ids really take the lean path


def test_a_plain_get_takes_the_lean_path():
    payload = {"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"id": "t"}}
    assert jsonrpc._plain_task_call(payload) == jsonrpc.Request(id=7, method="tasks/get", params={"id": "t"})
    assert jsonrpc._plain_task_call(dict(payload, id=True)) is None  # a boolean is not an id
    assert jsonrpc._plain_task_call(dict(payload, params={"id": "\ud800"})) is None
