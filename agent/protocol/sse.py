"""Server-Sent Events framing: one `data:` line of compact JSON per event, then a blank line.

Compact JSON never contains a raw newline, so one event is always exactly one `data:` line and a
client never has to join lines. There is no `[DONE]` sentinel: the final frame has `final: true` and
the connection closes.
"""

from __future__ import annotations

import json
from typing import Any

CONTENT_TYPE = "text/event-stream"
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def frame(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n\n"
