"""A2A extension negotiation over HTTP headers (`X-A2A-Extensions`, also `A2A-Extensions`)."""

from __future__ import annotations

from typing import Mapping

HEADER = "X-A2A-Extensions"
ALT_HEADER = "A2A-Extensions"


def requested(headers: Mapping[str, str]) -> list[str]:
    """Extension URIs the client lists, comma-separated, in order, without duplicates."""
    uris: list[str] = []
    for name in (HEADER, ALT_HEADER):
        raw = headers.get(name)
        if raw:
            uris.extend(u.strip() for u in raw.split(","))
    return list(dict.fromkeys(u for u in uris if u))
