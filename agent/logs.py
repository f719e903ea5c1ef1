"""Logs on stdout: structured JSON on Cloud Run, readable lines on a developer's machine.

On Cloud Run/Functions (configuration sees K_SERVICE, which the platform sets) each record is one line of
Cloud Logging's structured JSON (`_CloudJsonFormatter`: severity, message, the record's fields, trace,
span, source location, labels, httpRequest): the platform picks the lines off stdout, so no logging
client, credentials or network call is needed. Anywhere else (`make run`, tests' own processes unless they
set K_SERVICE) the same records print as one short line each — time, level, message, then the fields as
key=value. No flag: where it runs decides.

One handler for every record: one stream handler on the root logger, with a filter that stamps the
request's trace and one of the two formatters, both ours. Every record reaches it through `logging`,
except the request line, which that handler's formatter makes and its lock and stream write without a
LogRecord (`_StdoutHandler`: the same text, 11.8 → 7.7 µs a line in a loop). Why ours and not
google-cloud-logging's StructuredLogHandler (which wrote the same JSON until issue 16 item 6): the
library cost ~0.4 s to import (so a writer thread built it off the answer's path) and its filter looked
through Flask's request, per record, for trace fields we already carry; the request line through it cost
~80 µs of a `tasks/get` of a few hundred, enough that it used to be written by a hand-made copy of the
library's line beside `logging`. tests/test_logs.py holds our JSON equal to the library's, key for key.

- The one request line is written once the answer is out: from the response's close for a JSON reply,
  after the last frame of a stream (before its terminating chunk), so it never delays an answer; at a
  LOG_LEVEL above INFO it is not even made.
- The trace (`traceparent` or `X-Cloud-Trace-Context`) is read once per request into a context
  variable; the filter stamps it on every record made while that request runs — incidents included — so
  lines correlate.

`Authorization` is never read. Set up once per process: functions-framework's `create_app` imports
`main.py` again, and a second handler would print every line twice.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import threading
import time
import uuid
from typing import Any

LOGGER_NAME = "agent"
_setup_lock = threading.Lock()
_configured = False
_handler: "_StdoutHandler | None" = None  # the one stdout handler, once setup() has run
_project: str | None = None
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/([0-9]+))?(?:;o=([01]))?$")
_TRACE_FIELDS = ("trace", "span_id", "trace_sampled", "http_request")
_request_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("request_fields", default=None)


def setup(level: str = "INFO", project: str | None = None, json_lines: bool = True) -> None:
    """Attach the one stdout handler to the root logger; later calls are no-ops. `json_lines`: Cloud
    Logging's structured JSON (the app passes config.log_json: on Cloud Run), else readable lines."""
    global _configured, _project, _handler
    with _setup_lock:
        if _configured:
            return
        _project = project
        handler = _StdoutHandler(_CloudJsonFormatter() if json_lines else _ReadableFormatter())
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(level)
        _handler = handler
        for noisy in ("urllib3", "google.auth", "google.api_core", "gunicorn.error"):
            logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
        _configured = True


def flush() -> None:
    """Every record is written by the call that makes it; this only flushes stdout (tests)."""
    sys.stdout.flush()


# Cloud Logging's structured-logging fields (https://cloud.google.com/logging/docs/structured-logging):
# a record's own json_fields may not set them; the formatter does.
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


_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode  # made once, not per line (json.dumps)


def _line_encoder() -> Any:
    """`_ENCODE` for the request line's own values, with the C encoder made once rather than per call.

    Why (issue 16 item 6): `JSONEncoder.encode` builds a new C encoder on every call, ~1 µs of the
    line's ~5 in a loop, on every request. `json.encoder.c_make_encoder` is what that method calls, so
    the text is the same bytes (tests/test_logs.py holds it equal to the formatter's). No circular
    check (the line's values are scalars, lists of them and the small dicts made per request). Without
    the C module (another interpreter) it is `_ENCODE`."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return _ENCODE
    try:
        encoder = make(None, str, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    except TypeError:  # another signature: the public encoder, as every other record uses
        return _ENCODE
    join = "".join

    def encode(value: Any) -> str:
        return join(encoder(value, 0))

    return encode


_ENCODE_LINE = _line_encoder()


class _CloudJsonFormatter(logging.Formatter):
    """One record as one line of Cloud Logging's structured JSON, in the order and with the keys
    google-cloud-logging's StructuredLogHandler writes: the record's json_fields (or a dict message),
    `message` (with its traceback), severity, labels (`python_logger`), trace, spanId, trace_sampled,
    sourceLocation, httpRequest. The platform stamps the time itself."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {}
        fields = getattr(record, "json_fields", None)
        if isinstance(record.msg, dict):
            payload = {**record.msg, **fields} if isinstance(fields, dict) else record.msg
            entry.update((k, v) for k, v in payload.items() if k not in _GCP_KEYS)
        else:
            if isinstance(fields, dict):
                entry.update((k, v) for k, v in fields.items() if k not in _GCP_KEYS)
            # the message, with its traceback and stack below it when it has them (Formatter.format)
            plain = not (record.exc_info or record.exc_text or record.stack_info)
            entry["message"] = record.getMessage() if plain else super().format(record)
        location = {"line": record.lineno, "file": record.pathname, "function": record.funcName}
        return _cloud_text(entry, record.levelname, record.name, record.__dict__, location)

    def request_text(self, fields: dict[str, Any], trace: dict[str, Any]) -> str:
        """The request line, exactly as `format` writes its record (tests/test_logs.py holds the two equal).

        `fields` is the line's own dict (request_line makes it per line, "event" first, so never empty):
        Cloud Logging's keys are taken out of it in place (nearly always none are there). What follows
        the fields is the same on every line but for the trace and the httpRequest, so its constant
        parts are encoded once at import and only the variable ones per line (issue 16 item 6: 4.9 →
        2.4 µs a line in a loop)."""
        if "message" in fields or not _GCP_KEYS.isdisjoint(fields):  # as the record's line, key for key
            for key in fields.keys() & _GCP_KEYS:
                del fields[key]
            fields["message"] = REQUEST_MESSAGE
            return _cloud_text(fields, "INFO", LOGGER_NAME, trace, _REQUEST_LINE_LOCATION)
        encode = _ENCODE_LINE
        return "".join(
            (
                encode(fields)[:-1],
                _LINE_AFTER_FIELDS,
                encode(trace.get("trace") or ""),
                _LINE_AFTER_TRACE,
                encode(trace.get("span_id") or ""),
                _LINE_SAMPLED if trace.get("trace_sampled", False) else _LINE_UNSAMPLED,
                encode(trace.get("http_request") or {}),
                "}",
            )
        )


def _cloud_text(entry: dict[str, Any], severity: str, name: str, trace: Any, location: dict[str, Any]) -> str:
    """`entry` (the fields, then the message) with Cloud Logging's own keys after it, as one JSON line.
    `trace`: where the trace fields are (a record's __dict__, or the request's fields)."""
    entry["severity"] = severity
    entry["logging.googleapis.com/labels"] = {"python_logger": name} if name else {}
    entry["logging.googleapis.com/trace"] = trace.get("trace") or ""
    entry["logging.googleapis.com/spanId"] = trace.get("span_id") or ""
    entry["logging.googleapis.com/trace_sampled"] = bool(trace.get("trace_sampled", False))
    entry["logging.googleapis.com/sourceLocation"] = location
    entry["httpRequest"] = trace.get("http_request") or {}
    return _ENCODE(entry)


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

    def request_text(self, fields: dict[str, Any], trace: dict[str, Any]) -> str:
        """The request line, exactly as `format` writes its record (the time is now's)."""
        when = time.strftime(self.datefmt or "%H:%M:%S", self.converter(time.time()))
        return f"{when} INFO {REQUEST_MESSAGE}" + _readable_fields(fields)


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


class _StdoutHandler(logging.StreamHandler):
    """The one handler: every record through `logging`, and the request line straight from `request_line`.

    Why the request line skips the record (issue 16 item 6): a `tasks/get` is a few hundred µs over
    the wire, and making a LogRecord and walking the logger tree, the filter and `Handler.handle` for
    the one line every request writes cost ~50 µs of it there (bench/README.md, round 13) for
    nothing the line needs: its fields are known, its place in the code is fixed. It is still this
    handler's formatter that makes the text (the same bytes as for its record) and this handler's
    lock and stream that write it, so lines never interleave and there is one writer. What is lost:
    a handler someone else adds to the root logger (pytest's log capture) does not see request lines."""

    def __init__(self, formatter: "_CloudJsonFormatter | _ReadableFormatter") -> None:
        super().__init__(_CurrentStdout())
        self.setFormatter(formatter)
        self.addFilter(_stamp_trace)
        self.line_formatter = formatter

    def write_text(self, text: str) -> None:
        """One line made by this handler's formatter, written and flushed as `emit` writes a record's."""
        with self.lock:  # type: ignore[union-attr]  # made by Handler.__init__
            stream = self.stream
            stream.write(text + self.terminator)
            stream.flush()


class _CurrentStdout:
    """Writes to whatever sys.stdout is now (test runners and some hosts swap it after start-up)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


def _stamp_trace(record: logging.LogRecord) -> bool:
    """The handler's filter: the current request's trace fields onto the record (unless it has its own)."""
    fields = _request_fields.get()
    if fields:
        for name in _TRACE_FIELDS:
            if name in fields and not hasattr(record, name):
                setattr(record, name, fields[name])
    return True


# getLogger takes logging's module lock on every call; the logger it names is one object for the life of
# the process, so it is looked up once (the request line used to look it up twice per request).
_LOGGER = logging.getLogger(LOGGER_NAME)


def logger() -> logging.Logger:
    return _LOGGER


def new_incident_id() -> str:
    return uuid.uuid4().hex[:16]


def incident(message: str, incident_id: str, **fields: Any) -> None:
    """Log an internal error with its traceback; the caller returns only the incident id."""
    logger().error(message, exc_info=True, extra={"json_fields": {"incident": incident_id, **fields}})


def request_context(environ: Any, method: str, url: str, user_agent: str | None) -> dict[str, Any]:
    """Trace and request fields for this request's records; also made current for this thread.

    `environ`: the request's WSGI environ, where a header is its `HTTP_` key (`traceparent` is
    HTTP_TRACEPARENT). Read there, not through werkzeug's header view, which rebuilds the key on
    every lookup (3 µs for the two, against 0.1; issue 16 item 6). Only the trace headers are read;
    nothing else from the headers (never Authorization) is kept.
    """
    trace = span = None
    sampled = False
    raw = environ.get("HTTP_TRACEPARENT")
    m = _TRACEPARENT.match(raw.strip()) if raw else None
    if m:
        trace, span, sampled = m.group(1), m.group(2), m.group(3) == "01"
    else:
        raw = environ.get("HTTP_X_CLOUD_TRACE_CONTEXT")
        m = _CLOUD_TRACE.match(raw.strip()) if raw else None
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


REQUEST_MESSAGE = "a2a request"


def request_line(request_fields: dict[str, Any] | None = None, /, **fields: Any) -> None:
    """The one line per JSON-RPC request: method, task, context, duration, sources, rows, outcome.

    Written by the one handler directly, as its formatter writes the record `logging` would make
    (`_StdoutHandler`); before setup() (a library caller) it goes through `logging` like any record."""
    log = _LOGGER
    if not log.isEnabledFor(logging.INFO):
        return  # LOG_LEVEL above INFO: nothing is written, so nothing is made either
    json_fields = _line_fields(fields)
    handler = _handler
    if handler is not None:
        handler.write_text(handler.line_formatter.request_text(json_fields, _trace_fields(request_fields)))
        return
    extra: dict[str, Any] = dict(request_fields or {})
    extra["json_fields"] = json_fields
    log.handle(
        log.makeRecord(
            LOGGER_NAME, logging.INFO, __file__, _REQUEST_LINE_AT, REQUEST_MESSAGE, (), None, "request_line", extra
        )
    )


def _trace_fields(request_fields: dict[str, Any] | None) -> dict[str, Any]:
    """The trace fields a request line carries: those given, else the current request's (as the
    handler's filter would stamp them on a record that has none of its own)."""
    current = _request_fields.get()
    if current is request_fields or not request_fields:
        return current or {}  # the request's own line (the usual case): its fields are the current ones
    if not current:
        return request_fields
    return {name: request_fields[name] if name in request_fields else current.get(name) for name in _TRACE_FIELDS}


# What one request-line value may take: a client-chosen contextId or a file name can be megabytes, and
# Cloud Logging drops an entry over 256 KB, so the line that says what happened would be lost.
MAX_FIELD_CHARS = 256
MAX_FIELD_ITEMS = 32


_SCALARS = frozenset({int, float, bool, type(None)})


def _line_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The request line's json_fields: "event" first, then `fields` with none named Authorization, each
    `_bounded`. A short string or a number is taken as it is, without the call (one loop, no generator:
    this runs on every request)."""
    out: dict[str, Any] = {"event": "request"}
    for key, value in fields.items():
        if key.lower() == "authorization":
            continue
        kind = type(value)
        if (kind is str and len(value) <= MAX_FIELD_CHARS) or kind in _SCALARS:
            out[key] = value
        else:
            out[key] = _bounded(value)
    return out


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


_REQUEST_LINE_AT = request_line.__code__.co_firstlineno
_REQUEST_LINE_LOCATION = {"line": _REQUEST_LINE_AT, "file": __file__, "function": "request_line"}


def _request_line_parts() -> tuple[str, str, str, str]:
    """The request line's constant text around its variable values, cut from the line `_cloud_text`
    makes with marks for those values, so the two cannot drift apart: (after the fields, up to the
    trace), (after the trace, up to the span), (after the span, up to the httpRequest) sampled, and
    the same unsampled."""
    trace, span, http_request = (_ENCODE(mark) for mark in ("\x00T", "\x00S", "\x00H"))
    marks = {"trace": "\x00T", "span_id": "\x00S", "http_request": "\x00H"}
    cut: dict[bool, tuple[str, str, str]] = {}
    for sampled in (True, False):
        text = _cloud_text(
            {"message": REQUEST_MESSAGE},
            "INFO",
            LOGGER_NAME,
            {**marks, "trace_sampled": sampled},
            _REQUEST_LINE_LOCATION,
        )
        head, rest = text.split(trace, 1)
        middle, rest = rest.split(span, 1)
        after_span, end = rest.split(http_request, 1)
        if not (head.startswith("{") and end == "}"):  # checked under -O too: a wrong cut would write broken lines
            raise RuntimeError(f"the request line's constant text could not be cut from {text!r}")
        cut[sampled] = (", " + head[1:], middle, after_span)
    return cut[True][0], cut[True][1], cut[True][2], cut[False][2]


_LINE_AFTER_FIELDS, _LINE_AFTER_TRACE, _LINE_SAMPLED, _LINE_UNSAMPLED = _request_line_parts()


def event(message: str, **fields: Any) -> None:
    logger().info(message, extra={"json_fields": fields})
