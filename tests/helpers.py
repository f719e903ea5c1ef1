"""Helpers shared by test modules, in one place: test modules import from here, never from each other.

Fixtures live in `tests/conftest.py` and, for the storage emulators, in `tests/emulators.py` (loaded
as a plugin by conftest's `pytest_plugins`, so no test module imports a fixture).
"""

from __future__ import annotations

import json
import re
import time
import uuid

import httpx

# --- the wire ---------------------------------------------------------------------------------------


def raw_stream(url: str, body: dict, headers: dict | None = None) -> list[dict]:
    """Read SSE frames raw, checking each is exactly one `data:` line followed by a blank line."""
    frames = []
    with httpx.stream("POST", url, json=body, headers=headers or {}, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        buffer = ""
        for chunk in response.iter_text():
            buffer += chunk
        blocks = buffer.split("\n\n")
        assert blocks[-1] == "", "stream must end with a blank line"
        for block in blocks[:-1]:
            lines = block.split("\n")
            assert len(lines) == 1 and lines[0].startswith("data: "), block[:200]
            frames.append(json.loads(lines[0][len("data: ") :]))
    return frames


def stream_body(text: str, rid: str = "s1", **params) -> dict:
    """A message/stream request with one text part."""
    message = {"role": "user", "parts": [{"kind": "text", "text": text}], "messageId": str(uuid.uuid4())}
    return {"jsonrpc": "2.0", "id": rid, "method": "message/stream", "params": {"message": message, **params}}


async def official_client(url: str, streaming: bool, extensions: list[str] | None = None):
    """The official A2A client (a2a-sdk) for the agent at `url`, and the httpx client to close after."""
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory

    http = httpx.AsyncClient(timeout=60)
    card = await A2ACardResolver(http, url).get_agent_card()
    config = ClientConfig(streaming=streaming, httpx_client=http, extensions=extensions or [])
    return ClientFactory(config).create(card), http


def wait_for(condition, timeout: float = 60.0) -> None:
    """Wait for an explicit event (a file, an object) — not for time to pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the awaited event did not happen"
        time.sleep(0.02)


# --- catalogs and questions -------------------------------------------------------------------------

ALL_SKILLS_QUESTION = (
    "Give me an overview, the gaps in outdoor furniture, the price ladder, missing colours, "
    "brands competitors carry, what is out of stock, and is it ready for Google Shopping?"
)


def big_csv(rows: int) -> bytes:
    """A generic CSV of `rows` outdoor chairs: large enough that a run has steps to cancel between."""
    lines = ["id,title,price,brand,category,availability"]
    for i in range(rows):
        lines.append(
            f"P{i},Garden chair {i},{10 + i % 500}.99,Brand{i % 40},Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs,in stock"
        )
    return ("\n".join(lines) + "\n").encode()


# --- answers: every number in the bullets is a number in the rendered table -------------------------

NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def bullets(markdown: str) -> list[str]:
    return [line[2:] for line in markdown.splitlines() if line.startswith("- ")]


def table_text(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if line.startswith("|"))


def numbers_in(text: str) -> set[str]:
    return {m.group(0).rstrip(",") for m in NUMBER.finditer(text)}


def prose_numbers_missing_from_table(markdown: str) -> set[str]:
    """Numbers that appear in a bullet but in no cell of the rendered table."""
    in_table = numbers_in(table_text(markdown))
    missing = set()
    for b in bullets(markdown):
        missing |= numbers_in(b) - in_table
    return missing


def assert_prose_numbers_in_table(markdown: str) -> None:
    missing = prose_numbers_missing_from_table(markdown)
    assert not missing, f"numbers in bullets but not in the table: {sorted(missing)}\n{markdown}"
    assert len(bullets(markdown)) <= 7
