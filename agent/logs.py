"""Structured JSON logs through google-cloud-logging's StructuredLogHandler (stdout, no credentials).

Cloud Run/Functions pick the JSON lines off stdout, so no logging client or network call is needed.
The handler reads the trace from the Flask request (`X-Cloud-Trace-Context` or `traceparent`) while a
request context is active — which is why streams run under `stream_with_context`.

Set up once per process: functions-framework's `create_app` imports `main.py` again, and a second
handler would print every line twice.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import uuid
from typing import Any

LOGGER_NAME = "agent"
_setup_lock = threading.Lock()
_configured = False
_project: str | None = None
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/([0-9]+))?(?:;o=([01]))?$")


def setup(level: str = "INFO", project: str | None = None) -> None:
    """Attach one structured handler to the root logger; later calls are no-ops.

    google-cloud-logging costs ~0.4 s to import, so the StructuredLogHandler is built when the first
    record is written rather than at start: a cold instance answers its first card request without
    paying for it.
    """
    global _configured, _project
    with _setup_lock:
        if _configured:
            return
        _project = project
        root = logging.getLogger()
        root.addHandler(_LazyStructuredHandler(project))
        root.setLevel(level)
        for noisy in ("urllib3", "google.auth", "google.api_core", "gunicorn.error"):
            logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
        _configured = True


class _LazyStructuredHandler(logging.Handler):
    """Delegates to google-cloud-logging's StructuredLogHandler, created on the first record."""

    def __init__(self, project: str | None) -> None:
        super().__init__()
        self._project = project
        self._real: logging.Handler | None = None
        self._build_lock = threading.Lock()

    def _handler(self) -> logging.Handler:
        if self._real is None:
            with self._build_lock:
                if self._real is None:
                    from google.cloud.logging_v2.handlers import StructuredLogHandler

                    self._real = StructuredLogHandler(project_id=self._project, stream=_CurrentStdout())
        return self._real

    def handle(self, record: logging.LogRecord) -> bool:
        return self._handler().handle(record)

    def emit(self, record: logging.LogRecord) -> None:  # pragma: no cover - handle() delegates
        self._handler().emit(record)


class _CurrentStdout:
    """Writes to whatever sys.stdout is now (test runners and some hosts swap it after start-up)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


def logger() -> logging.Logger:
    return logging.getLogger(LOGGER_NAME)


def new_incident_id() -> str:
    return uuid.uuid4().hex[:16]


def incident(message: str, incident_id: str, **fields: Any) -> None:
    """Log an internal error with its traceback; the caller returns only the incident id."""
    logger().error(message, exc_info=True, extra={"json_fields": {"incident": incident_id, **fields}})


def request_context(headers: Any, method: str, url: str, user_agent: str | None) -> dict[str, Any]:
    """Trace and request fields for log records, read from the headers while the request is at hand.

    Taken eagerly because the request line is written after the response has gone (so logging never
    delays an answer), when Flask's request — where the handler would look for them — is gone.
    Only the trace headers are read; nothing else from the headers (never Authorization) is kept.
    """
    trace = span = None
    sampled = False
    m = _TRACEPARENT.match((headers.get("traceparent") or "").strip())
    if m:
        trace, span, sampled = m.group(1), m.group(2), m.group(3) == "01"
    else:
        m = _CLOUD_TRACE.match((headers.get("X-Cloud-Trace-Context") or "").strip())
        if m:
            trace, span, sampled = m.group(1).lower(), m.group(2), m.group(3) == "1"
    if trace and _project:
        trace = f"projects/{_project}/traces/{trace}"
    http_request = {"requestMethod": method, "requestUrl": url, "protocol": "HTTP/1.1"}
    if user_agent:
        http_request["userAgent"] = user_agent
    return {"trace": trace or "", "span_id": span or "", "trace_sampled": sampled, "http_request": http_request}


def request_line(request_fields: dict[str, Any] | None = None, /, **fields: Any) -> None:
    """The one line per JSON-RPC request: method, task, context, duration, sources, rows, outcome."""
    safe = {k: v for k, v in fields.items() if k.lower() != "authorization"}
    extra: dict[str, Any] = dict(request_fields or {})
    extra["json_fields"] = {"event": "request", **safe}
    logger().info("a2a request", extra=extra)


def event(message: str, **fields: Any) -> None:
    logger().info(message, extra={"json_fields": fields})
