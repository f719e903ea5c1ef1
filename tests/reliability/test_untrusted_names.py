"""File names and URIs from the caller are escaped in the answer, its footer and A2UI (#12 item 6)."""

from __future__ import annotations

import base64
import json
import re
import uuid

import httpx

from tests.helpers import CHAIRS_CSV as CSV

A2UI = "https://a2ui.org/a2a-extension/a2ui/v0.8"
BEACON = "![t](https://evil.example/beacon.png)"
LIVE_MARKDOWN = re.compile(r"(?<!\\)!(?<!\\)\[t(?<!\\)\]\(|(?<!\\)\[[^\]\\]*(?<!\\)\]\(https://evil")


def ask(url: str, headers: dict | None = None) -> dict:
    parts = [
        {"kind": "text", "text": "What is in this catalog?"},
        {
            "kind": "file",
            "file": {"bytes": base64.b64encode(CSV).decode(), "name": BEACON + ".csv", "mimeType": "text/csv"},
        },
        {"kind": "file", "file": {"uri": f"https://evil.example/{BEACON}", "name": "link.csv"}},
        {"kind": "file", "file": {"bytes": "aGk=", "name": f"{BEACON}.png", "mimeType": f"image/png{BEACON}"}},
    ]
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}},
    }
    return httpx.post(url, json=body, headers=headers or {}, timeout=60).json()["result"]


def visible_texts(task: dict) -> list[str]:
    texts = [p["text"] for a in task["artifacts"] for p in a["parts"] if p.get("kind") == "text"]
    texts += [p["text"] for p in task["status"]["message"]["parts"] if p.get("kind") == "text"]
    return texts


def test_names_and_uris_are_inert_in_the_markdown_answer(server):
    task = ask(server.url)
    assert task["status"]["state"] == "completed"
    for text in visible_texts(task):
        assert not LIVE_MARKDOWN.search(text), text
    footer = task["artifacts"][0]["parts"][0]["text"].split("\n---\n", 1)[1]
    assert "!\\[t\\](https://evil.example/beacon.png).csv (attached file" in footer  # shown as written
    assert "Not read:" in footer


def test_names_and_uris_are_inert_in_a2ui(server):
    task = ask(server.url, {"X-A2A-Extensions": A2UI})
    literals = re.findall(r'"literalString":\s*"((?:[^"\\]|\\.)*)"', json.dumps(task))
    assert literals
    for literal in literals:
        value = json.loads(f'"{literal}"')
        assert not LIVE_MARKDOWN.search(value), value


# --- scope labels: a catalog's category name echoed in progress and status lines and in notes --------

# The scope label this category resolves to is its last words, "tote|bags`x`": a table cell break and a
# code span in any Markdown client, unless escaped.
HOSTILE_CATEGORY = "Zz*bold*_u_ [t](https://evil.example/b.png) <b>tote|bags`x`"
RAW_LABEL = "tote|bags`x`"
ESCAPED_LABEL = "tote\\|bags\\`x\\`"
LABEL_CSV = b"id,title,price,brand,category,availability\n" + b"".join(
    f'P{i},Tote bag {i},{10 + i}.00,B{i % 3},"{HOSTILE_CATEGORY}",in stock\n'.encode() for i in range(60)
)


def stream_turn(url: str, headers: dict | None = None) -> tuple[list[str], list[dict]]:
    """A streamed question about the hostile category: every status line's text, and every event."""
    parts = [
        {"kind": "text", "text": f"Where are the gaps in {HOSTILE_CATEGORY}?"},
        {
            "kind": "file",
            "file": {"bytes": base64.b64encode(LABEL_CSV).decode(), "name": "c.csv", "mimeType": "text/csv"},
        },
    ]
    message = {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": message}}
    statuses, events = [], []
    with httpx.stream("POST", url, json=body, headers=headers or {}, timeout=60) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[len("data: ") :])["result"]
                events.append(event)
                if event.get("kind") == "status-update":
                    message_parts = event["status"].get("message", {}).get("parts", [])
                    statuses += [p["text"] for p in message_parts if p.get("kind") == "text"]
    return statuses, events


def test_a_catalogs_scope_label_is_escaped_in_progress_status_and_notes(server):
    statuses, events = stream_turn(server.url)
    assert events[-1]["status"]["state"] == "completed"
    running = [s for s in statuses if s.startswith("Running ")]
    assert running and all(ESCAPED_LABEL in s for s in running), running
    assert f"Answered on {ESCAPED_LABEL}:" in statuses[-1]
    answer = next(e for e in events if e.get("kind") == "artifact-update")["artifact"]["parts"][0]["text"]
    assert f"the scope is {ESCAPED_LABEL}, the closest broader category" in answer  # the planner's note
    for text in [*statuses, answer]:
        assert RAW_LABEL not in text.replace(ESCAPED_LABEL, ""), text
        assert not LIVE_MARKDOWN.search(text), text


def test_a_catalogs_scope_label_is_escaped_in_a2ui(server):
    statuses, events = stream_turn(server.url, {"X-A2A-Extensions": A2UI})
    assert events[-1]["status"]["state"] == "completed"
    assert all(RAW_LABEL not in s.replace(ESCAPED_LABEL, "") for s in statuses), statuses
    shown = list(_text_literals(events))  # what a renderer shows (a follow-up's action context is data)
    assert any("tote" in value for value in shown)
    for value in shown:
        assert RAW_LABEL not in value.replace(ESCAPED_LABEL, ""), value
        assert not LIVE_MARKDOWN.search(value), value


def _text_literals(node: object):
    """The literal strings of every A2UI Text component under `node`: the Markdown a renderer shows."""
    if isinstance(node, dict):
        text = node.get("Text", {}).get("text") if isinstance(node.get("Text"), dict) else None
        if isinstance(text, dict) and isinstance(text.get("literalString"), str):
            yield text["literalString"]
        for value in node.values():
            yield from _text_literals(value)
    elif isinstance(node, list):
        for value in node:
            yield from _text_literals(value)
