"""Logs on stdout: structured JSON on Cloud Run, readable lines on a developer's machine.

On Cloud Run/Functions (configuration sees K_SERVICE, which the platform sets) records go through
google-cloud-logging's StructuredLogHandler: the platform picks the JSON lines off stdout, so no logging
client, credentials or network call is needed. Anywhere else (`make run`, tests' own processes unless they
set K_SERVICE) the same records print as one short line each — time, level, message, then the fields as
key=value — and google-cloud-logging is never imported. No flag: where it runs decides.

Three choices keep logging off the answer's path:
- The first records go through a queue to a writer thread, which builds the StructuredLogHandler
  (google-cloud-logging costs ~0.4 s to import): a cold instance answers its first requests without
  importing the library. Once that handler exists and the queue is empty, records are written on the
  thread that makes them: handing every record to another thread cost more than writing it (on two
  vCPUs the wake-up and the contention for the interpreter lock added ~0.2 ms to the next request,
  while writing a line takes ~50 µs).
- The one request line is written once the answer is out: from the response's close for a JSON
  reply, after the last frame of a stream (before its terminating chunk), so even inline it never
  delays an answer.
- The trace (`traceparent` or `X-Cloud-Trace-Context`) is read once per request into a context
  variable; a filter stamps it on every record made while that request runs — incidents included — so
  lines correlate wherever they are written.

`Authorization` is never read. Set up once per process: functions-framework's `create_app` imports
`main.py` again, and a second handler would print every line twice. The writer thread is started
lazily and again after a fork (gunicorn forks workers after the app is loaded).
"""

from __future__ import annotations

import atexit
import contextvars
import copy
import json
import logging
import logging.handlers
import os
import queue
import re
import sys
import threading
import time
import uuid
from typing import Any, Callable, cast

LOGGER_NAME = "agent"
_setup_lock = threading.Lock()
_configured = False
_project: str | None = None
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/([0-9]+))?(?:;o=([01]))?$")
_TRACE_FIELDS = ("trace", "span_id", "trace_sampled", "http_request")
_request_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("request_fields", default=None)
_queue_handler: _QueueHandler | None = None


def setup(level: str = "INFO", project: str | None = None, json_lines: bool = True) -> None:
    """Attach the queue handler to the root logger; later calls are no-ops. `json_lines`: Cloud Logging's
    structured JSON (the app passes config.log_json: on Cloud Run), else readable lines."""
    global _configured, _project, _queue_handler
    with _setup_lock:
        if _configured:
            return
        _project = project
        _queue_handler = _QueueHandler(project, json_lines)
        root = logging.getLogger()
        root.addHandler(_queue_handler)
        root.setLevel(level)
        for noisy in ("urllib3", "google.auth", "google.api_core", "gunicorn.error"):
            logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
        atexit.register(flush)
        _configured = True


def flush(timeout: float = 5.0) -> None:
    """Wait until every record enqueued so far has been written (tests; shutdown)."""
    if _queue_handler is not None:
        _queue_handler.drain(timeout)


class _QueueHandler(logging.handlers.QueueHandler):
    """Enqueues records stamped with the current request's trace; a writer thread prints them."""

    def __init__(self, project: str | None, json_lines: bool = True) -> None:
        super().__init__(queue.Queue())
        self._project = project
        self._json_lines = json_lines
        self._writer_pid: int | None = None
        self._listener: logging.handlers.QueueListener | None = None
        self._start_lock = threading.Lock()
        self._target: _LazyStructuredHandler | None = None

    def inline_target(self) -> logging.Handler | None:
        """The real handler when records may be written on the calling thread, else None (queue them).

        Inline needs the handler built by this process's writer and nothing still queued (so lines keep
        their order); a record made while the writer runs a queued call is itself queued.
        """
        target = self._target
        if target is None or target.real is None or self._writer_pid != os.getpid():
            return None
        if cast(queue.Queue, self.queue).unfinished_tasks:
            return None
        return target.real

    def emit(self, record: logging.LogRecord) -> None:
        target = self.inline_target()
        if target is None:
            super().emit(record)
            return
        _stamp_trace(record)
        target.handle(record)

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        _stamp_trace(record)
        if isinstance(record.msg, dict) and not record.args and not record.exc_info:
            return copy.copy(record)  # a structured payload (the library's own diagnostics): keep it a dict
        return super().prepare(record)

    def enqueue(self, record: logging.LogRecord) -> None:
        self._ensure_writer()
        super().enqueue(record)

    def _ensure_writer(self) -> None:
        if self._writer_pid == os.getpid():
            return
        with self._start_lock:
            if self._writer_pid == os.getpid():
                return
            self.queue = queue.Queue()  # a queue inherited through fork may hold a dead thread's lock state
            self._target = _LazyStructuredHandler(self._project, self._json_lines)
            self._listener = _Writer(self.queue, self._target)
            self._listener.start()
            self._writer_pid = os.getpid()

    def defer(self, make_record: Callable[[], None]) -> None:
        """Queue a call that logs: the writer thread makes the record (caller lookup, formatting)."""
        self._ensure_writer()
        self.queue.put_nowait(make_record)

    def drain(self, timeout: float) -> None:
        if self._writer_pid != os.getpid():
            return
        done = threading.Event()

        def wait() -> None:
            cast(queue.Queue, self.queue).join()
            done.set()

        threading.Thread(target=wait, daemon=True).start()
        done.wait(timeout)


class _Writer(logging.handlers.QueueListener):
    """The writer thread. Besides records it takes deferred calls, which log when run (here)."""

    def handle(self, record: Any) -> None:
        if callable(record):
            record()  # logs through the root handler: the record comes back round this queue
        else:
            super().handle(record)


class _LazyStructuredHandler(logging.Handler):
    """Delegates to the real handler, created on the first record: google-cloud-logging's
    StructuredLogHandler for JSON lines, else a stream handler with the readable format."""

    def __init__(self, project: str | None, json_lines: bool = True) -> None:
        super().__init__()
        self._project = project
        self._json_lines = json_lines
        self.real: logging.Handler | None = None

    def handle(self, record: logging.LogRecord) -> bool:
        if self.real is None:
            if self._json_lines:
                from google.cloud.logging_v2.handlers import StructuredLogHandler

                self.real = StructuredLogHandler(project_id=self._project, stream=_CurrentStdout())
            else:
                self.real = logging.StreamHandler(_CurrentStdout())
                self.real.setFormatter(_ReadableFormatter())
        return self.real.handle(record)

    def emit(self, record: logging.LogRecord) -> None:  # pragma: no cover - handle() delegates
        self.handle(record)


class _ReadableFormatter(logging.Formatter):
    """`14:03:07 INFO a2a request method=message/send task=… outcome=completed duration_ms=41.2`: the
    record's json_fields as key=value (values with spaces quoted), a traceback on the lines below."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        fields = getattr(record, "json_fields", None)
        if isinstance(fields, dict) and fields:
            line += _readable_fields(fields)
        return line


def _readable_fields(fields: dict[str, Any]) -> str:
    """ " method=… outcome=… duration_ms=… k=v …": the fields of a readable line, the first three first."""
    if not fields:
        return ""
    first = [k for k in _FIRST_FIELDS if k in fields]
    keys = first + [k for k in fields if k not in first and k != "event"]
    return " " + " ".join(f"{k}={_readable(fields[k])}" for k in keys)


_FIRST_FIELDS = ("method", "outcome", "duration_ms")


def _readable(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        value = ",".join(str(v) for v in value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return json.dumps(text, ensure_ascii=False) if (not text or any(c in text for c in ' ="\n')) else text


class _CurrentStdout:
    """Writes to whatever sys.stdout is now (test runners and some hosts swap it after start-up)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


def _stamp_trace(record: logging.LogRecord) -> None:
    fields = _request_fields.get()
    if fields:
        for name in _TRACE_FIELDS:
            if not hasattr(record, name) and name in fields:
                setattr(record, name, fields[name])


def logger() -> logging.Logger:
    return logging.getLogger(LOGGER_NAME)


def new_incident_id() -> str:
    return uuid.uuid4().hex[:16]


def incident(message: str, incident_id: str, **fields: Any) -> None:
    """Log an internal error with its traceback; the caller returns only the incident id."""
    logger().error(message, exc_info=True, extra={"json_fields": {"incident": incident_id, **fields}})


def request_context(headers: Any, method: str, url: str, user_agent: str | None) -> dict[str, Any]:
    """Trace and request fields for this request's records; also made current for this thread.

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
    fields = {"trace": trace or "", "span_id": span or "", "trace_sampled": sampled, "http_request": http_request}
    use_request(fields)
    return fields


def use_request(fields: dict[str, Any] | None) -> None:
    """Make `fields` the current request's trace fields (a stream's generator calls it again)."""
    _request_fields.set(fields)


def request_line(request_fields: dict[str, Any] | None = None, /, **fields: Any) -> None:
    """The one line per JSON-RPC request: method, task, context, duration, sources, rows, outcome."""
    if not logger().isEnabledFor(logging.INFO):
        # LOG_LEVEL above INFO: nothing is written, so nothing is made either (until a first record
        # reaches the real handler, the line would otherwise be queued to the writer thread each time,
        # and waking it costs the next request its interpreter time)
        return
    safe = {k: _bounded(v) for k, v in fields.items() if k.lower() != "authorization"}
    extra: dict[str, Any] = dict(request_fields or {})
    extra["json_fields"] = {"event": "request", **safe}
    target = _queue_handler.inline_target() if _queue_handler is not None else None
    if _queue_handler is not None and target is None:
        # Until the real handler exists, even making the LogRecord is left to the writer thread.
        _queue_handler.defer(lambda: logger().info("a2a request", extra=extra))
    elif target is not None and logging.getLogger().handlers == [_queue_handler] and not logger().handlers:
        _handle_directly(target, extra)
    else:
        logger().info("a2a request", extra=extra)


# What one request-line value may take: a client-chosen contextId or a file name can be megabytes, and
# Cloud Logging drops an entry over 256 KB, so the line that says what happened would be lost.
MAX_FIELD_CHARS = 256
MAX_FIELD_ITEMS = 32


def _bounded(value: Any) -> Any:
    """`value` cut to MAX_FIELD_CHARS (a list: its first MAX_FIELD_ITEMS items, each cut), saying how much
    was left off; anything else as it is."""
    if isinstance(value, str):
        if len(value) <= MAX_FIELD_CHARS:
            return value
        return f"{value[:MAX_FIELD_CHARS]}…(+{len(value) - MAX_FIELD_CHARS} chars)"
    if isinstance(value, (list, tuple)) and any(isinstance(v, str) for v in value):
        kept = [_bounded(v) for v in value[:MAX_FIELD_ITEMS]]
        if len(value) > MAX_FIELD_ITEMS:
            kept.append(f"…(+{len(value) - MAX_FIELD_ITEMS} more)")
        return kept
    return value


def _handle_directly(target: logging.Handler, extra: dict[str, Any]) -> None:
    """The request line written straight to the real handler's stream, formatted as that handler would
    format it (the readable line, or Cloud Logging's structured JSON), in one write under its lock.

    Why (issue 16 item 6): the line is written between a reply and the connection's next request, so
    its cost lands on that request, and through `logging` it cost 55 µs (readable) to 80 µs (JSON: the
    library's filter inspects the web framework's request for trace data this line already carries)
    of a `tasks/get` of a few hundred. Only when our queue handler is the root logger's one handler (so
    nothing else would have seen the record); anything unexpected goes the `logging` way."""
    fields = extra.get("json_fields") or {}
    if "trace" not in extra:  # no request's trace fields: the library would look for them itself
        logger().info("a2a request", extra=extra)
        return
    try:
        if _queue_handler is not None and _queue_handler._json_lines:
            import google.cloud.logging_v2 as cloud_logging

            if not getattr(cloud_logging, "_instrumentation_emitted", False):
                raise ValueError("the library's first line is not out yet")
            line = _structured_line(extra, fields)
        else:
            line = f"{time.strftime('%H:%M:%S')} INFO a2a request" + _readable_fields(fields)
    except (TypeError, ValueError):
        logger().info("a2a request", extra=extra)
        return
    stream = getattr(target, "stream", None)
    if stream is None:
        logger().info("a2a request", extra=extra)
        return
    target.acquire()
    try:
        stream.write(line + "\n")
        stream.flush()
    finally:
        target.release()


_GCP_KEYS = frozenset(
    {
        "severity",
        "httpRequest",
        "time",
        "timestamp",
        "timestampSeconds",
        "timestampNanos",
        "logging.googleapis.com/insertId",
        "logging.googleapis.com/labels",
        "logging.googleapis.com/operation",
        "logging.googleapis.com/sourceLocation",
        "logging.googleapis.com/spanId",
        "logging.googleapis.com/trace",
        "logging.googleapis.com/trace_sampled",
    }
)


def _structured_line(extra: dict[str, Any], fields: dict[str, Any]) -> str:
    """The line google-cloud-logging's StructuredLogHandler writes for this record (its GCP_FORMAT, key
    for key and in its order; tests/test_logs.py holds the two side by side)."""
    payload = {k: v for k, v in fields.items() if k not in _GCP_KEYS}
    payload["message"] = "a2a request"
    body = json.dumps(payload, ensure_ascii=False)[1:-1] + ","
    source = json.dumps({"line": 0, "file": __file__, "function": "request_line"}, ensure_ascii=False)
    return (
        "{" + body + '"severity": "INFO", '
        '"logging.googleapis.com/labels": ' + json.dumps({"python_logger": LOGGER_NAME}, ensure_ascii=False) + ", "
        '"logging.googleapis.com/trace": "' + (extra.get("trace") or "") + '", '
        '"logging.googleapis.com/spanId": "' + (extra.get("span_id") or "") + '", '
        '"logging.googleapis.com/trace_sampled": ' + ("true" if extra.get("trace_sampled") else "false") + ", "
        '"logging.googleapis.com/sourceLocation": ' + source + ", "
        '"httpRequest": ' + json.dumps(extra.get("http_request") or {}, ensure_ascii=False) + " }"
    )


def event(message: str, **fields: Any) -> None:
    logger().info(message, extra={"json_fields": fields})
