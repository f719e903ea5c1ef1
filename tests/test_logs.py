"""Logs: one structured JSON line per request with trace correlation; internal errors keep their detail
in the log (with an incident id) and out of the response."""

from __future__ import annotations

import dataclasses
import json
import logging
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
    and google-cloud-logging's JSON (and its diagnostics entry) nowhere."""
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


def test_records_are_written_inline_once_the_handler_exists(capsys):
    """After the writer has built the handler and drained, a record is on stdout before the call returns
    (no thread hop), still stamped with its request's trace; a traceback stays in the incident line."""
    from agent import logs

    logs.setup("INFO")
    logs.event("warm-up")
    logs.flush()
    assert logs._queue_handler.inline_target() is not None
    capsys.readouterr()
    fields = logs.request_context({"traceparent": f"00-{TRACE}-00f067aa0ba902b7-01"}, "POST", "http://x/", None)
    logs.request_line(fields, method="tasks/get", outcome="ok")
    try:
        raise KeyError("inline detail")
    except KeyError:
        logs.incident("inline incident", "abc123")
    logs.use_request(None)
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    request = [r for r in records if r.get("event") == "request"]
    assert request and TRACE in request[0]["logging.googleapis.com/trace"]
    failure = [r for r in records if r.get("incident") == "abc123"]
    assert failure and "Traceback" in failure[0]["message"] and "inline detail" in failure[0]["message"]


def _request_record(extra: dict) -> logging.LogRecord:
    record = logging.LogRecord("agent", logging.INFO, __file__, 1, "a2a request", None, None, "request_line")
    record.__dict__.update(extra)
    return record


def test_the_direct_request_line_is_the_handlers_own_line():
    """Issue 16 item 6: the request line is written without the `logging` walk; it must be the line the
    handler itself writes — Cloud Logging's structured JSON key for key and in order (only the source
    location differs: it names request_line), and the readable line character for character."""
    import io

    from google.cloud.logging_v2.handlers import StructuredLogHandler

    from agent import logs

    context = logs.request_context(
        {"traceparent": f"00-{TRACE}-00f067aa0ba902b7-01"}, "POST", "http://x/", "agent/1 (ünï)"
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
    }
    extra = {**context, "json_fields": fields}
    handler = StructuredLogHandler(stream=io.StringIO())
    record = _request_record(extra)
    assert handler.filter(record)  # what Handler.handle does before it formats (the library's own fields)
    theirs = json.loads(handler.format(record))
    ours = json.loads(logs._structured_line(extra, fields))
    assert list(ours) == list(theirs)
    assert ours.pop("logging.googleapis.com/sourceLocation")["function"] == "request_line"
    theirs.pop("logging.googleapis.com/sourceLocation")
    assert ours == theirs and TRACE in ours["logging.googleapis.com/trace"]
    readable = logs._ReadableFormatter().format(_request_record(extra))
    assert readable[8:] == " INFO a2a request" + logs._readable_fields(fields)
