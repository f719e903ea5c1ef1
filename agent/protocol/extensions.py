"""A2A extension negotiation over HTTP headers (`X-A2A-Extensions`, also `A2A-Extensions`)."""

from __future__ import annotations

from typing import Any, Mapping

HEADER = "X-A2A-Extensions"
ALT_HEADER = "A2A-Extensions"


# The two headers as WSGI environ keys (a header named twice reaches the app joined with commas).
_ENVIRON_KEYS = ("HTTP_" + HEADER.upper().replace("-", "_"), "HTTP_" + ALT_HEADER.upper().replace("-", "_"))


def requested(environ: Mapping[str, Any]) -> list[str]:
    """Extension URIs the client lists, comma-separated, in order, without duplicates.

    `environ`: the request's WSGI environ, read directly (werkzeug's header view rebuilds each key on
    every lookup, 2.5 µs a request for nothing when, as nearly always, neither header is sent)."""
    uris: list[str] = []
    for key in _ENVIRON_KEYS:
        raw = environ.get(key)
        if raw:
            uris.extend(u.strip() for u in raw.split(","))
    return list(dict.fromkeys(u for u in uris if u)) if uris else uris
