"""Bad input stays inside the JSON-RPC contract (#12 items 5 and 8): HTTP 200 JSON with the right code.

Lone surrogates (escaped, or as raw bytes ED A0 80) in any field, nesting far beyond any A2A message,
POST on the card path; plus the operations checks: nosniff on every response, and an abandoned stream
logged with the outcome its task ended with.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.helpers import stream_body, wait_for

GET = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}


def post_raw(url: str, body: bytes) -> httpx.Response:
    return httpx.post(url, content=body, headers={"Content-Type": "application/json"}, timeout=30)


def send_text(field: str, value: str) -> str:
    message = {"role": "user", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m1"}
    params: dict = {"message": message}
    if field == "id":
        return json.dumps({"jsonrpc": "2.0", "id": "@@", "method": "message/send", "params": params}).replace(
            '"@@"', value
        )
    if field == "text":
        message["parts"][0]["text"] = "@@"
    elif field == "contextId":
        params["contextId"] = "@@"
    elif field == "messageId":
        message["messageId"] = "@@"
    elif field == "metadata":
        message["metadata"] = {"k": "@@"}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "message/send", "params": params}).replace('"@@"', value)


@pytest.mark.parametrize("field", ["id", "text", "contextId", "messageId", "metadata"])
def test_lone_surrogates_get_a_json_rpc_answer(server, field):
    escaped = post_raw(server.url, send_text(field, '"\\ud800"').encode())
    assert escaped.status_code == 200 and escaped.headers["content-type"].startswith("application/json")
    answer = escaped.json()
    assert answer["error"]["code"] == (-32600 if field == "id" else -32602)
    assert answer["id"] is None if field == "id" else answer["id"] == 7
    raw = post_raw(server.url, send_text(field, '"@@"').encode().replace(b"@@", b"\xed\xa0\x80"))
    assert raw.status_code == 200 and raw.json()["error"]["code"] == -32700 and raw.json()["id"] is None


@pytest.mark.parametrize("depth", [65, 600, 5000, 100_000])
def test_deep_nesting_is_refused_as_invalid_params(server, depth):
    body = json.dumps(GET)[:-2] + ', "metadata": ' + "[" * depth + "]" * depth + "}}"
    reply = post_raw(server.url, body.encode())
    assert reply.status_code == 200
    code = reply.json()["error"]["code"]
    assert code == (-32600 if depth >= 5000 else -32602)  # beyond the parser's own limit: the id is not known
    assert httpx.post(server.url, json=GET, timeout=10).json()["error"]["code"] == -32001  # still serving


def test_post_on_the_card_path_is_405(server):
    for path in (".well-known/agent-card.json", ".well-known/agent.json"):
        reply = httpx.post(server.url + path, json=GET, timeout=10)
        assert reply.status_code == 405 and reply.headers["allow"] == "GET, HEAD"
        assert reply.json() == {"error": "Method not allowed."}


def test_every_response_says_nosniff(server):
    responses = [
        httpx.get(server.url, timeout=10),
        httpx.get(server.url + ".well-known/agent-card.json", timeout=10),
        httpx.get(server.url + "nowhere", timeout=10),
        httpx.put(server.url, timeout=10),
        httpx.post(server.url, json=GET, timeout=10),
        post_raw(server.url, b"{not json"),
    ]
    with httpx.stream("POST", server.url, json=stream_body("overview"), timeout=60) as streamed:
        streamed.read()
        responses.append(streamed)
    for reply in responses:
        assert reply.headers.get("x-content-type-options") == "nosniff", reply.request.url


def test_an_abandoned_stream_is_logged_with_the_outcome_its_task_ended_with(start_server, tmp_path):
    gate = tmp_path / "gate"
    gate.mkdir()
    srv = start_server({"TEST_STEP_GATE": str(gate), "K_SERVICE": "catalog-gap-analyst"})  # JSON log lines
    body = stream_body("Give me an overview")
    with httpx.stream("POST", srv.url, json=body, timeout=60) as response:
        for line in response.iter_lines():
            if line and '"working"' in line:
                task_id = json.loads(line[len("data: ") :])["result"]["taskId"]
                break
    wait_for((gate / f"{task_id}.held").exists)
    (gate / f"{task_id}.release").write_bytes(b"")  # the run goes on and finds its client gone

    def logged() -> list[dict]:
        return [r for r in srv.log_records() if r.get("event") == "request" and r.get("task") == task_id]

    wait_for(lambda: bool(logged()))
    line = logged()[-1]
    assert line["outcome"] == "failed" and line["abandoned"] is True
    task = httpx.post(
        srv.url, json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}}, timeout=10
    ).json()["result"]
    assert task["status"]["state"] == "failed"
    assert "connection closed" in task["status"]["message"]["parts"][0]["text"]
