"""File parts by reference: once a turn has read an attached file, only its description is kept.

A stored task, its history, the live events kept for `tasks/resubscribe` and the request itself would
otherwise each hold the user's base64 file (up to 32 MiB) for as long as they live. The reference keeps
what a client or an operator needs to recognise the file — name, media type, size, SHA-256 — as an
A2A FileWithUri part whose `urn:sha256:` URI is not fetchable (sent back, it is reported as a link that
is not fetched), with the size and digest also in the part's metadata.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

METADATA_KEY = "storedByReference"


def _decoded(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError):
        try:
            return base64.urlsafe_b64decode(data.strip())
        except (binascii.Error, ValueError):
            return None


def by_reference(part: dict[str, Any]) -> dict[str, Any]:
    """The part itself unless it is a file part with inline bytes; then its reference."""
    file = part.get("file") if part.get("kind") == "file" else None
    if not isinstance(file, dict) or "bytes" not in file:
        return part
    data = _decoded(file["bytes"])
    size = len(data) if data is not None else None
    digest = hashlib.sha256(data).hexdigest() if data is not None else None
    del data
    ref = {k: v for k, v in file.items() if k in ("name", "mimeType")}
    ref["uri"] = f"urn:sha256:{digest}" if digest else "urn:cga:unreadable-bytes"
    metadata = dict(part.get("metadata") or {}) if isinstance(part.get("metadata"), dict) else {}
    metadata[METADATA_KEY] = {"size": size, "sha256": digest}
    return {"kind": "file", "file": ref, "metadata": metadata}


def strip_message(message: dict[str, Any]) -> None:
    """Replace the message's inline file bytes by references, in place (so the request's own dict lets
    go of the base64 text once the turn has decoded it)."""
    parts = message.get("parts")
    if isinstance(parts, list):
        message["parts"] = [by_reference(p) if isinstance(p, dict) else p for p in parts]
