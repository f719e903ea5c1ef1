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
