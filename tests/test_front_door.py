"""Through the front door: the official A2A client (a2a-sdk) against a real functions-framework process,
plus raw SSE reads that check the wire framing and order the client would hide."""

from __future__ import annotations

import base64
import re
import uuid

import httpx
import pytest

from tests.conftest import CATALOGS
from tests.helpers import collect_events, raw_stream, run, stream_body, user_message  # noqa: F401 - used here, and by branches that import them from here

FOOTER = re.compile(r"\n---\nEvidence\n(?P<lines>(?:- .+\n)+)(?P<fresh>Freshness: .+)$")


def answer_text(task: dict) -> str:
    return task["artifacts"][0]["parts"][0]["text"]


def test_card_through_resolver(server, a2a_validate):
    async def go():
        from a2a.client import A2ACardResolver

        async with httpx.AsyncClient() as http:
            return await A2ACardResolver(http, server.url).get_agent_card()

    card = run(go())
    assert card.protocol_version == "0.3.0"
    assert card.capabilities.streaming is True
    assert card.url == server.url
    assert any(s.id == "catalog_overview" for s in card.skills)
    raw = httpx.get(server.url + ".well-known/agent-card.json").json()
    a2a_validate(raw, "AgentCard")
    assert raw["preferredTransport"] == "JSONRPC"
    assert raw["defaultInputModes"] == ["text/plain", "text/csv"]
    for skill in raw["skills"]:
        assert skill["tags"] and len(skill["examples"]) >= 3


def test_send_with_official_client(server):
    events = run(collect_events(server.url, "What is in this file?", streaming=False))
    assert len(events) == 1
    task, update = events[0]
    assert task.status.state.value == "completed"
    text = task.artifacts[0].parts[0].root.text
    match = FOOTER.search(text)
    assert match, text[-800:]
    assert "- demo-catalog.csv (bundled demo catalog" in match.group("lines")
    assert "rows read" in match.group("lines")
    assert match.group("fresh").startswith("Freshness: newest snapshot 2026-11-27,")


def test_stream_with_official_client(server):
    events = run(collect_events(server.url, "What is in this catalog?", streaming=True))
    tasks = [t for t, _ in events]
    updates = [u for _, u in events if u is not None]
    assert tasks[-1].status.state.value == "completed"
    assert any(u.kind == "artifact-update" for u in updates)
    assert updates[-1].kind == "status-update" and updates[-1].final is True


def test_send_raw_validates_and_echoes(server, a2a_validate):
    body = dict(stream_body("What is in this file?", rid=99), method="message/send")
    payload = httpx.post(server.url, json=body, timeout=60).json()
    a2a_validate(payload, "SendMessageSuccessResponse")
    task = payload["result"]
    assert payload["id"] == 99 and task["kind"] == "task"
    assert task["status"]["state"] == "completed"
    uuid.UUID(task["id"]), uuid.UUID(task["contextId"]), uuid.UUID(task["artifacts"][0]["artifactId"])
    assert task["artifacts"][0]["name"] == "catalog_overview"
    assert task["status"]["message"]["role"] == "agent"
    assert FOOTER.search(answer_text(task))


def test_stream_order_and_framing(server, a2a_validate):
    frames = raw_stream(server.url, stream_body("What is in this file?"))
    for frame in frames:
        a2a_validate(frame, "SendStreamingMessageSuccessResponse")
        assert frame["id"] == "s1"
    results = [f["result"] for f in frames]
    assert results[0]["kind"] == "task" and results[0]["status"]["state"] == "submitted"
    assert results[1]["kind"] == "status-update" and results[1]["status"]["state"] == "working"
    assert results[1]["status"]["message"]["parts"][0]["text"].startswith("Reading")
    kinds = [r["kind"] for r in results]
    assert "artifact-update" in kinds
    last_artifact = max(i for i, k in enumerate(kinds) if k == "artifact-update")
    assert results[-1]["kind"] == "status-update" and results[-1]["final"] is True
    assert results[-1]["status"]["state"] == "completed"
    assert last_artifact == len(results) - 2, "the final frame must follow the last artifact at once"
    assert all(not r.get("final") for r in results[:-1])
    assert len({r.get("taskId", r.get("id")) for r in results}) == 1


def test_context_id_is_echoed(server):
    ctx = "merchant-conversation-1"
    body = dict(stream_body("What is in this file?", contextId=ctx), method="message/send")
    task = httpx.post(server.url, json=body, timeout=60).json()["result"]
    assert task["contextId"] == ctx
    body["params"]["message"]["contextId"] = ctx
    task2 = httpx.post(server.url, json=body, timeout=60).json()["result"]
    assert task2["contextId"] == ctx and task2["id"] != task["id"]


def test_lenient_message_fields(server):
    body = {
        "jsonrpc": "2.0",
        "id": "l1",
        "method": "message/send",
        "params": {"message": {"parts": [{"kind": "text", "text": "overview"}], "unknownField": 1}},
    }
    payload = httpx.post(server.url, json=body, timeout=60).json()
    assert payload["result"]["status"]["state"] == "completed"
    user = payload["result"]["history"][0]
    assert user["role"] == "user" and user["messageId"] and user["kind"] == "message"


@pytest.mark.skipif(not (CATALOGS / "shopify-product-template.csv").exists(), reason="shared catalogs absent")
def test_send_with_attached_csv_through_client(server):
    from a2a.types import FilePart, FileWithBytes, Part

    data = (CATALOGS / "shopify-product-template.csv").read_bytes()
    part = Part(
        root=FilePart(
            file=FileWithBytes(bytes=base64.b64encode(data).decode(), mime_type="text/csv", name="catalog.csv")
        )
    )
    events = run(collect_events(server.url, "What is in this file?", streaming=False, parts=[part]))
    task = events[-1][0]
    text = task.artifacts[0].parts[0].root.text
    assert "- catalog.csv (attached file, Shopify product export" in text
    assert "17 rows read" in text


QUESTIONS = [
    ("Where are the gaps in outdoor furniture?", ["assortment_gaps"]),
    ("What is out of stock in patio furniture?", ["availability"]),
    ("Where are the gaps in outdoor furniture, and how is it priced?", ["assortment_gaps", "price_ladder"]),
]


@pytest.mark.parametrize("question,skills", QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_questions_through_official_client(server, question, skills):
    for streaming in (False, True):
        events = run(collect_events(server.url, question, streaming=streaming))
        task = events[-1][0]
        assert task.status.state.value == "completed"
        assert [a.name for a in task.artifacts] == skills
        for artifact in task.artifacts:
            text = artifact.parts[0].root.text
            assert FOOTER.search(text), text[-500:]
            assert "Outdoor Furniture" in text


@pytest.mark.parametrize("question,skills", QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_questions_raw_validate(server, a2a_validate, question, skills):
    body = dict(stream_body(question, rid="q"), method="message/send")
    payload = httpx.post(server.url, json=body, timeout=60).json()
    a2a_validate(payload, "SendMessageSuccessResponse")
    assert [a["name"] for a in payload["result"]["artifacts"]] == skills
    frames = raw_stream(server.url, stream_body(question, rid="q2"))
    for frame in frames:
        a2a_validate(frame, "SendStreamingMessageSuccessResponse")
    names = [f["result"]["artifact"]["name"] for f in frames if f["result"]["kind"] == "artifact-update"]
    assert names == skills
    working = [
        f for f in frames if f["result"]["kind"] == "status-update" and f["result"]["status"]["state"] == "working"
    ]
    assert len(working) >= len(skills) + 1  # reading, then one progress frame per skill
