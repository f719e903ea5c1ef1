"""Malformed requests sent raw over HTTP: each gets its own JSON-RPC code, the id echoed or null, and
nothing internal (no traceback, path, or exception text) in the body."""

from __future__ import annotations

import json

import httpx
import pytest

TEXT = {"kind": "text", "text": "What is in this file?"}


def env(params=None, method="message/send", rid="r1", **extra):
    body = {"jsonrpc": "2.0", "method": method, "id": rid}
    if params is not None:
        body["params"] = params
    body.update(extra)
    return json.dumps(body).encode()


def msg(*parts, **fields):
    return {"message": {"role": "user", "parts": list(parts), **fields}}


CASES = [
    # (name, raw body, expected code, expected id)
    ("not json", b"{not json", -32700, None),
    ("empty body", b"", -32700, None),
    ("truncated json", b'{"jsonrpc": "2.0", "method": "message/send", "id": 1', -32700, None),
    ("json array (batch)", b"[]", -32600, None),
    ("json string", b'"hello"', -32600, None),
    ("json number", b"42", -32600, None),
    ("jsonrpc 1.0", json.dumps({"jsonrpc": "1.0", "method": "message/send", "id": 7}).encode(), -32600, 7),
    ("jsonrpc missing", json.dumps({"method": "message/send", "id": 8}).encode(), -32600, 8),
    ("method missing", json.dumps({"jsonrpc": "2.0", "id": "m"}).encode(), -32600, "m"),
    ("method not a string", json.dumps({"jsonrpc": "2.0", "method": 5, "id": "m5"}).encode(), -32600, "m5"),
    ("id as object", json.dumps({"jsonrpc": "2.0", "method": "message/send", "id": {"a": 1}}).encode(), -32600, None),
    ("id as list", json.dumps({"jsonrpc": "2.0", "method": "tasks/get", "id": [1]}).encode(), -32600, None),
    ("id as float", json.dumps({"jsonrpc": "2.0", "method": "tasks/get", "id": 1.5}).encode(), -32600, None),
    ("id as boolean", json.dumps({"jsonrpc": "2.0", "method": "tasks/get", "id": True}).encode(), -32600, None),
    ("unknown method", env({}, method="tasks/explode"), -32601, "r1"),
    ("params not an object", env([1, 2]), -32602, "r1"),
    ("params a string", env("x"), -32600, "r1"),
    ("no params for send", env(None), -32602, "r1"),
    ("no message", env({"configuration": {}}), -32602, "r1"),
    ("message not an object", env({"message": "hi"}), -32602, "r1"),
    ("parts missing", env({"message": {"role": "user"}}), -32602, "r1"),
    ("empty parts", env(msg()), -32602, "r1"),
    ("parts not a list", env({"message": {"parts": {"kind": "text"}}}), -32602, "r1"),
    ("unknown part kind", env(msg({"kind": "video", "url": "x"})), -32602, "r1"),
    ("part without kind", env(msg({"text": "hi"})), -32602, "r1"),
    ("text part without text", env(msg({"kind": "text"})), -32602, "r1"),
    ("text part with number", env(msg({"kind": "text", "text": 5})), -32602, "r1"),
    (
        "file with both bytes and uri",
        env(msg({"kind": "file", "file": {"bytes": "YQ==", "uri": "https://x/y.csv"}})),
        -32602,
        "r1",
    ),
    ("file with neither", env(msg({"kind": "file", "file": {"name": "a.csv"}})), -32602, "r1"),
    ("data part without data", env(msg({"kind": "data"})), -32602, "r1"),
    ("role not user", env(msg(TEXT, role="robot")), -32602, "r1"),
    ("negative historyLength", env({**msg(TEXT), "configuration": {"historyLength": -1}}), -32602, "r1"),
    ("historyLength as string", env({**msg(TEXT), "configuration": {"historyLength": "5"}}), -32602, "r1"),
    ("mismatching contextIds", env({**msg(TEXT, contextId="ctx-a"), "contextId": "ctx-b"}), -32602, "r1"),
    (
        "acceptedOutputModes image only",
        env({**msg(TEXT), "configuration": {"acceptedOutputModes": ["image/png"]}}),
        -32005,
        "r1",
    ),
    ("tasks/get without id", env({}, method="tasks/get"), -32602, "r1"),
    ("tasks/get negative historyLength", env({"id": "x", "historyLength": -2}, method="tasks/get"), -32602, "r1"),
    ("tasks/get unknown id", env({"id": "no-such-task"}, method="tasks/get"), -32001, "r1"),
    ("tasks/cancel unknown id", env({"id": "no-such-task"}, method="tasks/cancel"), -32001, "r1"),
    ("tasks/resubscribe unknown id", env({"id": "no-such-task"}, method="tasks/resubscribe"), -32001, "r1"),
    (
        "push set",
        env({"taskId": "t", "pushNotificationConfig": {"url": "https://x"}}, method="tasks/pushNotificationConfig/set"),
        -32003,
        "r1",
    ),
    ("push get", env({"id": "t"}, method="tasks/pushNotificationConfig/get"), -32003, "r1"),
    ("extended card", env({}, method="agent/getAuthenticatedExtendedCard"), -32007, "r1"),
    ("integer id echoed", env({"id": "nope"}, method="tasks/get", rid=12345), -32001, 12345),
    (
        "unsigned catalog_context",
        env({**msg(TEXT), "catalog_context": {"merchant_id": "acme", "catalog_uri": "gs://other/x.csv"}}),
        -32602,
        "r1",
    ),
    ("message taskId unknown", env(msg(TEXT, taskId="no-such-task")), -32001, "r1"),
]

FORBIDDEN = ("Traceback", 'File "', "/work", "site-packages", "Exception", "Error:", ".py", "gs://")


@pytest.mark.parametrize("name,body,code,rid", CASES, ids=[c[0] for c in CASES])
def test_malformed_request(server, a2a_validate, name, body, code, rid):
    response = httpx.post(server.url, content=body, headers={"Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    payload = response.json()
    a2a_validate(payload, "JSONRPCErrorResponse")
    assert payload["jsonrpc"] == "2.0"
    assert payload["id"] == rid
    assert payload["error"]["code"] == code
    message = payload["error"]["message"]
    assert message and (message[0].isupper() or message.startswith("params")) and message.endswith("."), message
    for marker in FORBIDDEN:
        assert marker not in response.text, (marker, response.text)
    assert set(payload["error"]) <= {"code", "message", "data"}


def test_body_over_limit_is_refused_without_reading(start_server):
    srv = start_server({"MAX_BODY_BYTES": "2048"})
    big = env(msg({"kind": "text", "text": "x" * 5000}))
    response = httpx.post(srv.url, content=big, headers={"Content-Type": "application/json"}, timeout=30)
    payload = response.json()
    assert response.status_code == 200
    assert payload["error"]["code"] == -32600
    assert "larger than" in payload["error"]["message"]


def test_error_messages_say_what_was_wrong(server):
    response = httpx.post(server.url, content=env(msg()), timeout=30).json()
    assert response["error"]["message"] == "params.message.parts must hold at least one part."


def test_get_routes(server, a2a_validate):
    health = httpx.get(server.url, timeout=10).json()
    assert health["protocolVersion"] == "0.3.0" and health["name"]
    for path in (".well-known/agent-card.json", ".well-known/agent.json"):
        card = httpx.get(server.url + path, timeout=10).json()
        a2a_validate(card, "AgentCard")
    missing = httpx.get(server.url + "nope", timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]
    assert httpx.post(server.url + "elsewhere", content=b"{}", timeout=10).status_code == 404


def test_integral_floats_pass_as_integers_and_work(server):
    """JSON Schema's "integer" admits 2.0: such an id is echoed and such a historyLength trims."""
    body = {
        "jsonrpc": "2.0",
        "id": 7.0,
        "method": "message/send",
        "params": {
            "message": {"role": "user", "parts": [{"kind": "text", "text": "What is in this file?"}]},
            "configuration": {"historyLength": 1.0},
        },
    }
    payload = httpx.post(server.url, json=body, timeout=60).json()
    assert payload["id"] == 7 and payload["result"]["status"]["state"] == "completed"
    assert len(payload["result"]["history"]) == 1
    got = httpx.post(
        server.url,
        json={
            "jsonrpc": "2.0",
            "id": "g",
            "method": "tasks/get",
            "params": {"id": payload["result"]["id"], "historyLength": 2.0},
        },
        timeout=30,
    ).json()
    assert len(got["result"]["history"]) == 2


def test_output_modes_with_parameters_and_ranges_are_understood():
    from agent.protocol.card import accepts_output

    assert accepts_output(["text/plain ; charset=utf-8"]) and accepts_output(["application/*"])
    assert accepts_output(["text/*"]) and not accepts_output(["image/*", "image/png"])


def test_body_limit_message_states_a_small_limit_exactly():
    from agent.protocol.http import _too_large

    assert _too_large(2048).message == "The request body is larger than the 2,048-byte limit."
    assert _too_large(32 * 1024 * 1024).message == "The request body is larger than the 32 MiB limit."
