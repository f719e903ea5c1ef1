"""What the transport learned from HTTP that the A2A methods need (a2a-python's `ServerCallContext`).

The transport builds one per request and hands it to the `RequestHandler`; the handler fills in what
goes back out (activated extensions, the request log's fields). It lives in the protocol layer so the
transport never imports the service that implements the methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

MAX_CALLER_CHARS = 512


@dataclass(slots=True)
class CallContext:
    """One request's transport facts, and what the handler reports back to the transport."""

    requested_extensions: list[str] = field(default_factory=list)
    activated_extensions: list[str] = field(default_factory=list)  # filled by the handler, echoed in headers
    log: dict[str, Any] = field(default_factory=dict)  # fields for the request log line
    log_context: dict[str, Any] = field(default_factory=dict)  # trace and request fields for that line
    caller: str | None = None  # the authenticated caller, when the operator named the header that says so


def caller_identity(environ: Mapping[str, Any], header: str | None) -> str | None:
    """The authenticated caller, from the one header the operator named (CALLER_IDENTITY_HEADER) as set
    by a front end that authenticates (IAP's X-Goog-Authenticated-User-Email, an API gateway's user
    header). Without that setting no header is believed: a client could send any value.

    `environ`: the request's WSGI environ, where the header is its CGI key (`HTTP_X_GOOG_…`), as
    werkzeug's header view would look it up; read there so a request without the setting builds no
    header view at all (issue 16 item 6)."""
    if not header:
        return None
    raw = environ.get("HTTP_" + header.upper().replace("-", "_"))
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_CALLER_CHARS:
        return None
    return raw.strip()
