"""Structured JSON logs through google-cloud-logging's StructuredLogHandler (stdout, no credentials).

Cloud Run/Functions pick the JSON lines off stdout, so no logging client or network call is needed.
The handler reads the trace from the Flask request (`X-Cloud-Trace-Context` or `traceparent`) while a
request context is active — which is why streams run under `stream_with_context`.

Set up once per process: functions-framework's `create_app` imports `main.py` again, and a second
handler would print every line twice.
"""

from __future__ import annotations

import logging
import sys
import threading
import uuid
from typing import Any

LOGGER_NAME = "agent"
_setup_lock = threading.Lock()
_configured = False


def setup(level: str = "INFO", project: str | None = None) -> None:
    """Attach one StructuredLogHandler to the root logger; later calls are no-ops."""
    global _configured
    with _setup_lock:
        if _configured:
            return
        from google.cloud.logging_v2.handlers import StructuredLogHandler

        handler = StructuredLogHandler(project_id=project, stream=_CurrentStdout())
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(level)
        for noisy in ("urllib3", "google.auth", "google.api_core", "gunicorn.error"):
            logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
        _configured = True


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


def request_line(**fields: Any) -> None:
    """The one line per JSON-RPC request: method, task, context, duration, sources, rows, outcome."""
    safe = {k: v for k, v in fields.items() if k.lower() != "authorization"}
    logger().info("a2a request", extra={"json_fields": {"event": "request", **safe}})


def event(message: str, **fields: Any) -> None:
    logger().info(message, extra={"json_fields": fields})
