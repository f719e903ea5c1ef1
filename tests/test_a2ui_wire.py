"""A2UI through the front door: negotiation (four ways on, off when absent), header echo, artifact
placement, stream order (text, then A2UI parts on the same artifact, then the final frame), the status
copy setting, and every emitted message checked by schema, structure and the official renderer core."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.a2ui_check import assert_parts, check_surfaces
from tests.helpers import raw_stream

A2UI = "https://a2ui.org/a2a-extension/a2ui/v0.8"
CATALOG_ID = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"
GAPS = "Where are the gaps in outdoor furniture?"


def body(method: str, text: str, **message_fields) -> dict:
    message = {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
        **message_fields,
    }
    return {"jsonrpc": "2.0", "id": "u", "method": method, "params": {"message": message}}


def send(url: str, text: str = GAPS, headers: dict | None = None, **message_fields) -> httpx.Response:
    return httpx.post(url, json=body("message/send", text, **message_fields), headers=headers or {}, timeout=60)


def a2ui_parts(artifact: dict) -> list[dict]:
    return [p for p in artifact["parts"] if p["kind"] == "data"]


WAYS = [
    ("header", {"X-A2A-Extensions": A2UI}, {}),
    ("alt header", {"A2A-Extensions": A2UI}, {}),
    ("message.extensions", {}, {"extensions": [A2UI]}),
    ("metadata capabilities", {}, {"metadata": {"a2uiClientCapabilities": {"supportedCatalogIds": [CATALOG_ID]}}}),
]


@pytest.mark.parametrize("way,headers,fields", WAYS, ids=[w[0] for w in WAYS])
def test_each_way_turns_a2ui_on(server, a2a_validate, way, headers, fields):
    response = send(server.url, headers=headers, **fields)
    payload = response.json()
    a2a_validate(payload, "SendMessageSuccessResponse")
    assert response.headers.get("X-A2A-Extensions") == A2UI
    artifact = payload["result"]["artifacts"][0]
    assert artifact["parts"][0]["kind"] == "text"
    assert artifact["extensions"] == [A2UI]
    messages = assert_parts(a2ui_parts(artifact))
    assert list(messages[0]) == ["beginRendering"] and list(messages[1]) == ["surfaceUpdate"]
    check_surfaces([messages])


def test_off_when_not_declared(server):
    response = send(server.url)
    assert "X-A2A-Extensions" not in response.headers
    artifact = response.json()["result"]["artifacts"][0]
    assert [p["kind"] for p in artifact["parts"]] == ["text"]
    assert "extensions" not in artifact


def test_text_is_the_same_with_and_without_a2ui(server):
    plain = send(server.url).json()["result"]["artifacts"][0]["parts"][0]["text"]
    rich = send(server.url, headers={"X-A2A-Extensions": A2UI}).json()["result"]["artifacts"][0]["parts"][0]["text"]
    strip = lambda t: t.split("\nFreshness:")[0]  # noqa: E731 - the minute in the footer may tick over
    assert strip(plain) == strip(rich)


def test_stream_order_text_then_a2ui_then_final(server, a2a_validate):
    question = "Where are the gaps in outdoor furniture and what is out of stock there?"
    frames = raw_stream(server.url, body("message/stream", question), headers={"X-A2A-Extensions": A2UI})
    results = [f["result"] for f in frames]
    for frame in frames:
        a2a_validate(frame, "SendStreamingMessageSuccessResponse")
    updates = [r for r in results if r["kind"] == "artifact-update"]
    assert len(updates) % 2 == 0 and updates
    surfaces = []
    for text_update, ui_update in zip(updates[::2], updates[1::2]):
        assert text_update["artifact"]["artifactId"] == ui_update["artifact"]["artifactId"]
        assert text_update["append"] is False and text_update["lastChunk"] is False
        assert [p["kind"] for p in text_update["artifact"]["parts"]] == ["text"]
        assert ui_update["append"] is True and ui_update["lastChunk"] is True
        surfaces.append(assert_parts(ui_update["artifact"]["parts"]))
    check_surfaces(surfaces)
    last_ui = max(i for i, r in enumerate(results) if r["kind"] == "artifact-update")
    assert last_ui == len(results) - 2 and results[-1]["final"] is True
    # no copy unless A2UI_STATUS_COPY is on: the final status message is text only
    assert [p["kind"] for p in results[-1]["status"]["message"]["parts"]] == ["text"]


def test_status_copy_and_default_settings(start_server, a2a_validate):
    srv = start_server({"A2UI_DEFAULT": "on", "A2UI_STATUS_COPY": "on"})
    response = send(srv.url, text="Where are the gaps in outdoor furniture and what is out of stock there?")
    payload = response.json()
    a2a_validate(payload, "SendMessageSuccessResponse")
    assert response.headers.get("X-A2A-Extensions") == A2UI  # A2UI_DEFAULT: on without declaring
    task = payload["result"]
    artifact_parts = [p for a in task["artifacts"] for p in a2ui_parts(a)]
    status_parts = task["status"]["message"]["parts"]
    assert status_parts[0]["kind"] == "text"
    assert status_parts[1:] == artifact_parts  # the A2UI parts of every skill, not the text
    surfaces = [assert_parts(a2ui_parts(a)) for a in task["artifacts"]]
    check_surfaces(surfaces)


def test_surface_ids_unique_per_task_and_skill(server):
    ids = set()
    for _ in range(2):
        artifacts = send(server.url, headers={"X-A2A-Extensions": A2UI}).json()["result"]["artifacts"]
        for artifact in artifacts:
            ids.add(a2ui_parts(artifact)[0]["data"]["beginRendering"]["surfaceId"])
    assert len(ids) >= 2


@pytest.mark.parametrize("ids", [5, CATALOG_ID, {"id": CATALOG_ID}], ids=["number", "string", "object"])
def test_malformed_catalog_ids_in_metadata_leave_a2ui_off(server, ids):
    """supportedCatalogIds that is not a list declares nothing: A2UI stays off and the turn completes
    (a number used to raise inside the handler; a string matched as a substring)."""
    response = send(server.url, metadata={"a2uiClientCapabilities": {"supportedCatalogIds": ids}})
    result = response.json()["result"]
    assert result["status"]["state"] == "completed"
    assert [p["kind"] for p in result["artifacts"][0]["parts"]] == ["text"]
