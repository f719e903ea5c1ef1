"""Builders for the A2A 0.3.0 objects we emit: every one has `kind`, server-made UUIDs, role "agent".

Plain dicts, not classes: they go to JSON at once and to the store as-is, and tests validate them
against the official schema. Keeping them here means no other layer spells a wire field name.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

TERMINAL_STATES = frozenset({"completed", "canceled", "failed", "rejected"})


class Encoded(dict):
    """A result dict that carries its own compact JSON as UTF-8 bytes (`data`), made once.

    Why (issue 16 item 6): a finished task does not change, and `tasks/get` on it was mostly the JSON
    encoding of its ~4 KB; the service keeps the JSON of a finished task and the transport splices it
    into the reply (agent.protocol.jsonrpc.success_body) — the same bytes as encoding it each time. Kept
    as bytes, not text: the reply is bytes on the wire, so nothing is encoded per call (a 3.5 KB text with
    one non-ASCII character took 2 µs to splice and encode, the bytes 0.15), and bytes take half the
    memory of such a text. It is still the task as a dict for anyone who reads it; nobody may change it
    (the bytes would not follow)."""

    __slots__ = ("data",)

    def __init__(self, value: dict[str, Any]) -> None:
        import json

        super().__init__(value)
        self.data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def new_id() -> str:
    return str(uuid.uuid4())


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def text_part(text: str) -> dict[str, Any]:
    return {"kind": "text", "text": text}


def agent_message(parts: list[dict[str, Any]], *, task_id: str, context_id: str) -> dict[str, Any]:
    return {
        "kind": "message",
        "messageId": new_id(),
        "role": "agent",
        "parts": parts,
        "taskId": task_id,
        "contextId": context_id,
    }


def status(state: str, message: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"state": state, "timestamp": now_iso()}
    if message is not None:
        out["message"] = message
    return out


def task(
    task_id: str,
    context_id: str,
    task_status: dict[str, Any],
    *,
    artifacts: list[dict[str, Any]] | None = None,
    history: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "task", "id": task_id, "contextId": context_id, "status": task_status}
    if artifacts:
        out["artifacts"] = artifacts
    if history is not None:
        out["history"] = history
    return out


def artifact(
    name: str,
    parts: list[dict[str, Any]],
    *,
    description: str | None = None,
    extensions: list[str] | None = None,
    artifact_id: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"artifactId": artifact_id or new_id(), "name": name, "parts": parts}
    if description:
        out["description"] = description
    if extensions:
        out["extensions"] = extensions
    return out


def status_update(task_id: str, context_id: str, task_status: dict[str, Any], *, final: bool) -> dict[str, Any]:
    return {"kind": "status-update", "taskId": task_id, "contextId": context_id, "status": task_status, "final": final}


def artifact_update(
    task_id: str, context_id: str, art: dict[str, Any], *, append: bool = False, last_chunk: bool = True
) -> dict[str, Any]:
    return {
        "kind": "artifact-update",
        "taskId": task_id,
        "contextId": context_id,
        "artifact": art,
        "append": append,
        "lastChunk": last_chunk,
    }


def trim_history(history: list[dict[str, Any]], length: int | None) -> list[dict[str, Any]]:
    """historyLength semantics: the most recent `length` messages; None keeps all, 0 keeps none."""
    if length is None:
        return list(history)
    length = int(length)  # JSON Schema's "integer" admits 2.0
    return list(history[-length:]) if length > 0 else []
