"""Logs: one structured JSON line per request with trace correlation; internal errors keep their detail
in the log (with an incident id) and out of the response."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import time
import uuid

import httpx
import pytest

from tests.helpers import raw_stream, stream_body

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.fixture(scope="module")
def cloud_server(start_server):
    """A server that sees what Cloud Run sets (K_SERVICE), so it logs Cloud Logging's JSON lines."""
    return start_server({"K_SERVICE": "catalog-gap-analyst"})


def _request_lines(server, task_id: str, timeout: float = 5.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [r for r in server.log_records() if r.get("event") == "request" and r.get("task") == task_id]
        if lines:
            return lines
        time.sleep(0.05)
    return []


def test_one_line_per_send_with_trace(cloud_server):
    server = cloud_server
    body = dict(stream_body("What is in this file?"), method="message/send")
    headers = {"X-Cloud-Trace-Context": f"{TRACE}/1;o=1", "Authorization": "Bearer secret-token-123"}
    task = httpx.post(server.url, json=body, headers=headers, timeout=60).json()["result"]
    lines = _request_lines(server, task["id"])
    assert len(lines) == 1, lines
    line = lines[0]
    assert line["method"] == "message/send" and line["context"] == task["contextId"]
    assert line["outcome"] == "completed" and line["duration_ms"] > 0
    assert line["rows_read"] > 0 and line["sources"]
    assert TRACE in json.dumps(line)
    assert "secret-token-123" not in server.output()


def test_stream_log_line_has_traceparent(cloud_server):
    server = cloud_server
    trace = uuid.uuid4().hex
    frames = raw_stream(server.url, stream_body("overview"), headers={"traceparent": f"00-{trace}-00f067aa0ba902b7-01"})
    task_id = frames[0]["result"]["id"]
    lines = _request_lines(server, task_id)
    assert len(lines) == 1 and lines[0]["method"] == "message/stream"
    assert trace in json.dumps(lines[0])


def test_error_outcomes_are_logged(cloud_server):
    server = cloud_server
    httpx.post(server.url, content=b"{broken", timeout=10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        errors = [r for r in server.log_records() if r.get("event") == "request" and r.get("code") == -32700]
        if errors:
            break
        time.sleep(0.05)
    assert errors and errors[-1]["outcome"] == "error"


def test_local_lines_are_readable_not_json(server):
    """Without K_SERVICE (make run, a developer's machine): one short line per request, key=value fields,
    and no JSON line anywhere."""
    body = dict(stream_body("What is in this file?"), method="message/send")
    task = httpx.post(server.url, json=body, timeout=60).json()["result"]
    deadline = time.monotonic() + 5
    lines: list[str] = []
    while time.monotonic() < deadline and not lines:
        lines = [line for line in server.output().splitlines() if f"task={task['id']}" in line]
        time.sleep(0.05)
    assert len(lines) == 1, server.output()[-2000:]
    line = lines[0]
    assert " INFO a2a request method=message/send outcome=completed duration_ms=" in line
    assert f"context={task['contextId']}" in line and "rows_read=" in line and "skills=catalog_overview" in line
    assert not any(out.lstrip().startswith("{") for out in server.output().splitlines())


def test_readable_format_quotes_what_would_split_a_field():
    import logging

    from agent.logs import _ReadableFormatter

    record = logging.LogRecord("agent", logging.WARNING, __file__, 1, "stream failed", None, None)
    record.json_fields = {"event": "x", "incident": "ab12", "sources": ["a.csv", "b c.csv"], "note": "", "n": 3}
    text = _ReadableFormatter().format(record)
    assert text.endswith('WARNING stream failed incident=ab12 sources="a.csv,b c.csv" note="" n=3')


class _Exploding:
    """A service whose method fails the way a bug would: the message carries internal detail."""

    def send(self, params, call):
        raise RuntimeError("boom at /srv/agent/secret.py reading gs://acme-private/x.csv")


def test_internal_error_detail_goes_to_log_not_response(capsys):
    from flask import Flask

    from agent import logs
    from agent.protocol import http

    logs.setup("INFO")
    app = Flask("t")
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "message/send",
            "params": {"message": {"parts": [{"kind": "text", "text": "hi"}]}},
        }
    )
    headers = {"traceparent": f"00-{TRACE}-00f067aa0ba902b7-01"}
    with app.test_request_context("/", method="POST", data=body, content_type="application/json", headers=headers):
        from flask import request

        response = http.handle_rpc(request, _Exploding(), 1 << 20)
    payload = json.loads(response.get_data())
    assert payload["id"] == 3 and payload["error"]["code"] == -32603
    assert payload["error"]["message"] == "The analysis service encountered an error. Please try again."
    incident = payload["error"]["data"]["incident"]
    assert set(payload["error"]["data"]) == {"incident"}
    assert "boom" not in response.get_data(as_text=True) and "gs://" not in response.get_data(as_text=True)
    logs.flush()
    out = capsys.readouterr().out
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    failure = [r for r in records if r.get("incident") == incident and "Traceback" in r.get("message", "")]
    assert failure and "boom at /srv/agent/secret.py" in failure[0]["message"]
    assert TRACE in failure[0]["logging.googleapis.com/trace"]  # incidents correlate with their request


def test_failed_run_gives_failed_task_with_sanitized_message(monkeypatch, capsys):
    from agent import config, logs
    from agent.analysis import registry
    from agent.protocol.context import CallContext
    from agent.service.handler import Service

    logs.setup("INFO")

    def broken(_inputs):
        raise ValueError("internal detail /tmp/x")

    spec = registry.SKILLS["catalog_overview"]
    monkeypatch.setitem(registry.SKILLS, "catalog_overview", dataclasses.replace(spec, run=broken))
    service = Service(config.load({}))
    task = service.send({"message": {"parts": [{"kind": "text", "text": "What is in this file?"}]}}, CallContext())
    assert task["status"]["state"] == "failed"
    text = task["status"]["message"]["parts"][0]["text"]
    assert text.startswith("The analysis service encountered an error. Please try again. (incident ")
    assert "internal detail" not in json.dumps(task)
    logs.flush()
    assert "internal detail /tmp/x" in capsys.readouterr().out


def test_records_are_written_by_the_call_that_makes_them(capsys):
    """A record is on stdout before the call returns (no thread hop, nothing to flush), stamped with its
    request's trace; a traceback stays in the incident line."""
    from agent import logs

    logs.setup("INFO")
    capsys.readouterr()
    fields = logs.request_context({"HTTP_TRACEPARENT": f"00-{TRACE}-00f067aa0ba902b7-01"}, "POST", "http://x/", None)
    logs.request_line(fields, method="tasks/get", outcome="ok")
    try:
        raise KeyError("inline detail")
    except KeyError:
        logs.incident("inline incident", "abc123")
    logs.use_request(None)
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    request = [r for r in records if r.get("event") == "request"]
    assert request and TRACE in request[0]["logging.googleapis.com/trace"]
    assert request[0]["httpRequest"]["requestUrl"] == "http://x/" and request[0]["severity"] == "INFO"
    failure = [r for r in records if r.get("incident") == "abc123"]
    assert failure and "Traceback" in failure[0]["message"] and "inline detail" in failure[0]["message"]
    assert failure[0]["severity"] == "ERROR" and TRACE in failure[0]["logging.googleapis.com/trace"]


def _record(extra: dict, msg: object = "a2a request", level: int = logging.INFO, exc_info=None) -> logging.LogRecord:
    record = logging.LogRecord("agent", level, __file__, 7, msg, None, exc_info, "request_line")
    record.__dict__.update(extra)
    return record


def _library_line(record: logging.LogRecord) -> dict:
    """google-cloud-logging's StructuredLogHandler's own line for `record` (a test-only dependency)."""
    import io

    from google.cloud.logging_v2.handlers import StructuredLogHandler

    handler = StructuredLogHandler(stream=io.StringIO())
    assert handler.filter(record)  # what Handler.handle does before it formats (the library's own fields)
    return json.loads(handler.format(record))


def test_our_cloud_json_is_the_librarys_line_key_for_key():
    """Issue 16 item 6: Cloud Logging JSON comes from our formatter, one `logging` path for every record;
    it must be the line google-cloud-logging's StructuredLogHandler writes — keys, order and values — for
    a request line with its trace, an incident with its traceback, a dict payload and a record outside
    any request; the readable line is the readable formatter's, fields in their order."""
    from agent import logs

    context = logs.request_context(
        {"HTTP_TRACEPARENT": f"00-{TRACE}-00f067aa0ba902b7-01"}, "POST", "http://x/", "agent/1 (ünï)"
    )
    logs.use_request(None)
    fields = {
        "event": "request",
        "method": "tasks/get",
        "task": "t-1",
        "outcome": "ok",
        "duration_ms": 0.42,
        "sources": ["a b.csv", "ü.csv"],
        "rows_read": 3,
        "note": 'say "hi"',
        "severity": "not ours to set",
    }
    try:
        raise KeyError("detail")
    except KeyError:
        import sys

        failure = sys.exc_info()
    cases = [
        ({**context, "json_fields": fields}, "a2a request", logging.INFO, None),
        ({**context, "json_fields": {"incident": "ab12"}}, "stream failed", logging.ERROR, failure),
        ({"json_fields": {"extra": 1}}, {"diagnostic": {"x": "ü"}}, logging.INFO, None),
        ({}, "plain", logging.WARNING, None),
    ]
    formatter = logs._CloudJsonFormatter()
    for extra, msg, level, exc_info in cases:
        ours = json.loads(formatter.format(_record(extra, msg, level, exc_info)))
        theirs = _library_line(_record(extra, msg, level, exc_info))
        assert list(ours) == list(theirs), (list(ours), list(theirs))
        assert ours == theirs
    first = json.loads(formatter.format(_record({**context, "json_fields": fields})))
    assert TRACE in first["logging.googleapis.com/trace"] and first["severity"] == "INFO"
    assert first["httpRequest"]["userAgent"] == "agent/1 (ünï)"
    readable = logs._ReadableFormatter().format(_record({**context, "json_fields": fields}))
    assert readable[8:] == " INFO a2a request" + logs._readable_fields(fields)


def test_the_line_is_not_made_above_info(monkeypatch):
    """LOG_LEVEL above INFO: request_line returns before it makes its text or calls `logging`."""
    from agent import logs

    logs.setup("INFO")
    made: list[str] = []
    monkeypatch.setattr(logs._handler, "write_text", made.append)
    monkeypatch.setattr(logs.logger(), "handle", lambda record: made.append(record.getMessage()))
    logs.request_line({}, method="tasks/get", outcome="ok")
    assert len(made) == 1 and '"a2a request"' in made[0]  # at INFO the one handler writes it
    made.clear()
    level = logs.logger().level
    logs.logger().setLevel(logging.WARNING)
    try:
        logs.request_line({}, method="tasks/get", outcome="ok")
    finally:
        logs.logger().setLevel(level)
    assert made == []


def test_the_direct_request_line_is_the_records_line(monkeypatch):
    """Issue 16 item 6: request_line writes its text without a LogRecord (_StdoutHandler). That text must
    be what the formatter writes for the record `logging` would have made — and, in JSON, the library's
    line — for given trace fields, for the current request's, and for none; the fields cut as before."""
    from agent import logs

    context = logs.request_context({"HTTP_TRACEPARENT": f"00-{TRACE}-00f067aa0ba902b7-01"}, "POST", "http://x/", "ua/ü")
    fields = {"method": "tasks/get", "task": "t-1", "outcome": "ok", "duration_ms": 0.42, "context": "c" * 300}
    fields |= {"sources": ["a b.csv"] * 40, "Authorization": "Bearer secret", "note": 'say "ü"\n'}
    # the usual line (its constant parts spliced) and lines with a Cloud Logging key or a message (the
    # general path), with trace fields given, current, partly given and none; unsampled too
    unsampled = {**context, "trace_sampled": False}
    cases = [(given, current, fields) for given, current in ((context, None), (None, context), ({}, context))]
    cases += [({"trace": "own"}, context, fields), ({}, None, fields), (unsampled, None, fields)]
    cases += [(context, None, fields | {"severity": "not ours to set"}), (None, context, fields | {"message": "m"})]
    for given, current, fields in cases:
        logs.use_request(current)
        for formatter in (logs._CloudJsonFormatter(), logs._ReadableFormatter()):
            written: list[str] = []
            handler = logs._StdoutHandler(formatter)
            monkeypatch.setattr(handler, "write_text", written.append)
            monkeypatch.setattr(logs, "_handler", handler)
            logs.request_line(given, **fields)
            monkeypatch.setattr(logs, "_handler", None)
            made: list[logging.LogRecord] = []
            monkeypatch.setattr(logs.logger(), "handle", made.append)
            logs.request_line(given, **fields)
            monkeypatch.undo()
            (record,) = made
            assert handler.filter(record)  # the trace stamp, as Handler.handle does before it formats
            line = formatter.format(record)
            if isinstance(formatter, logs._ReadableFormatter):  # "HH:MM:SS ": each its own clock's second
                assert re.match(r"\d\d:\d\d:\d\d ", written[0])
                written, line = [written[0][8:]], line[8:]
            assert written == [line]
            assert "secret" not in written[0] and "(+44 chars)" in written[0]
            if isinstance(formatter, logs._CloudJsonFormatter):
                assert json.loads(written[0]) == _library_line(record)
                assert list(json.loads(written[0])) == list(_library_line(record))
    logs.use_request(None)


def test_a_request_line_that_cannot_be_cut_stops_the_import_even_under_O(monkeypatch):
    """The constant text is cut once at import; a cut that does not hold is an error (not an assert,
    which `python -O` would drop and leave every request line broken)."""
    from agent import logs

    monkeypatch.setattr(logs, "_cloud_text", lambda *args: '["\\u0000T" "\\u0000S" "\\u0000H"]')
    with pytest.raises(RuntimeError, match="could not be cut"):
        logs._request_line_parts()
