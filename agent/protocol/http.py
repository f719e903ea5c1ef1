"""The HTTP transport: Flask request in, JSON or SSE response out. Every JSON-RPC outcome is HTTP 200.

Routing stays in `main.py`; this module reads the body (bounded), runs the staged parse, calls the
service method, and frames the result. Any unexpected exception becomes -32603 with an incident id;
its detail goes only to the log.
"""

from __future__ import annotations

import io
import json
import socket
import time
from typing import Any, Iterator

from flask import Response

from agent import logs

from . import arrivals, errors, extensions, jsonrpc, sse
from .context import CallContext, caller_identity
from .handler import RequestHandler

STREAM_METHODS = frozenset({jsonrpc.STREAM, jsonrpc.RESUBSCRIBE})
# On every response (JSON and SSE alike): a browser must never sniff an answer into HTML or script.
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff"}
JSON_TYPE = "application/json"  # what werkzeug makes of the mimetype: JSON takes no charset parameter


def secure_every_response(app: Any) -> None:
    """Send SECURITY_HEADERS on every response of `app` (functions-framework's Flask app), not only on ours.

    functions-framework answers some requests itself, before or after our function: 404 for GET /robots.txt
    and /favicon.ico, a routing error (404/405) if one ever comes, and its crash page (HTTP 500 text) if a function
    raises. So the headers are not added where each response is made but around the whole app, as WSGI
    middleware on `app.wsgi_app` (Flask's documented place for it): every response Flask sends passes
    it, and one that already says a header (the preview's) keeps its own. Why not an `after_request`
    hook, as before: Flask runs each hook through `ensure_sync`, an `inspect` walk on every response,
    and werkzeug's header lookups scan the list once per header added (together ~150 bytecodes of a
    `tasks/get`; issue 16 item 6). What gunicorn itself answers before Flask (a malformed request
    line: 400) cannot be reached from here."""
    app.wsgi_app = _SecureHeaders(app.wsgi_app)


class _SecureHeaders:
    """WSGI middleware: SECURITY_HEADERS appended to each response's headers that lacks them."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._names = frozenset(name.lower() for name in SECURITY_HEADERS)
        self._items = list(SECURITY_HEADERS.items())

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            names = self._names
            for name, _ in headers:
                if name.lower() in names:  # the response says one itself (the preview's): it keeps its own
                    said = {name.lower() for name, _ in headers}
                    headers = headers + [item for item in self._items if item[0].lower() not in said]
                    break
            else:
                headers = headers + self._items
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def json_response(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Any:
    return text_response(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), status, headers)


def text_response(body: str | bytes, status: int = 200, headers: dict[str, str] | None = None) -> Any:
    """A JSON body already encoded (jsonrpc.success_body: UTF-8 bytes, sent as they are), with the
    headers every response carries.

    The content type is given whole and the headers added after, not passed in: werkzeug then neither
    works out the type's charset nor copies a headers mapping through its generic path, and the
    response costs what the bare floor's does (3.9 against 7.2 µs in a loop; issue 16 item 6).
    SECURITY_HEADERS are added around the app (`secure_every_response`), on this response as on any."""
    response = Response(body, status=status, content_type=JSON_TYPE)
    add = response.headers.add
    if headers:
        for name, value in headers.items():
            add(name, value)
    return response


class BodyLate(errors.RpcError):
    """The body did not arrive within the read deadline; the connection is then closed."""

    def __init__(self) -> None:
        super().__init__(errors.INVALID_REQUEST, "The request body did not arrive in time.")


def _read_body(request: Any, limit: int, deadline_s: float | None = None) -> bytes:
    """The body, at most `limit` bytes, within `deadline_s` seconds in all (not per read).

    A client that announces more than it sends (or sends it a byte at a time) would otherwise hold one
    of the instance's few request threads for as long as it likes. The deadline is enforced on the
    connection's socket (gunicorn hands it to the app as `gunicorn.socket`); without one (another
    server) the read is only bounded by size."""
    length = request.content_length
    if length is not None and length > limit:
        raise _too_large(limit)
    # Never ask for more than can come: werkzeug's stream allocates each read's whole size up front
    # (io.RawIOBase.read), and a read of the 32 MiB limit cost a small tasks/get ~25 µs (issue 16 item 6).
    want = limit + 1 if length is None else length
    sock = request.environ.get("gunicorn.socket")
    if sock is None or not deadline_s or (length is not None and _buffered(request.environ) >= length):
        body = request.stream.read(want)
        if len(body) > limit:
            raise _too_large(limit)
        return body
    end = time.monotonic() + deadline_s
    previous = sock.gettimeout()
    chunks: list[bytes] = []
    total = 0
    late = False
    try:
        while total < want:
            remaining = end - time.monotonic()
            if remaining <= 0:
                late = True
                raise BodyLate()
            sock.settimeout(remaining)
            try:
                chunk = request.stream.read(min(1 << 20, want - total))
            except (TimeoutError, OSError):
                late = True
                raise BodyLate() from None
            except Exception as exc:  # werkzeug: the client went away before sending all it announced
                if type(exc).__name__ == "ClientDisconnected":
                    late = True
                    raise BodyLate() from None
                raise
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        try:
            sock.settimeout(previous)
            if late:
                # The rest of the body may still come, and the server would read it (without a
                # deadline) before the next request: stop reading this connection; the answer is
                # still written, then the connection closes. (A Connection: close header from the app
                # is dropped by gunicorn as hop-by-hop.)
                sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass
    if total > limit:
        raise _too_large(limit)
    return b"".join(chunks)


def _buffered(environ: dict[str, Any]) -> int:
    """How many body bytes gunicorn already holds for this request (0 if that cannot be told).

    A small request's body usually arrives in the same packet as its head, and gunicorn's reader keeps
    what it read beyond the head. A body wholly held there is read without touching the socket, so it
    needs no read deadline, and arming one cost a `tasks/get` ~17 µs over the wire (the first
    `settimeout` of a request; bench/README.md, round 10). Read from gunicorn's own body reader
    (`wsgi.input` -> its length reader -> its unreader's buffer): if its shape is not that (another
    server, another gunicorn), 0, and the deadline is armed as before."""
    unreader = getattr(getattr(environ.get("wsgi.input"), "reader", None), "unreader", None)
    held = getattr(unreader, "buf", None)
    if not isinstance(held, io.BytesIO):
        return 0
    return held.getbuffer().nbytes


def _too_large(limit: int) -> errors.RpcError:
    mib = 1024 * 1024
    size = f"{limit // mib} MiB" if limit >= mib and limit % mib == 0 else f"{limit:,}-byte"
    return errors.RpcError(errors.INVALID_REQUEST, f"The request body is larger than the {size} limit.")


def handle_rpc(
    request: Any,
    service: RequestHandler,
    max_body_bytes: int,
    caller_header: str | None = None,
    body_deadline_s: float | None = None,
) -> Any:
    started = time.perf_counter()
    environ = request.environ  # headers are read here as HTTP_* keys (see logs.request_context)
    url = f"{environ.get('wsgi.url_scheme', 'http')}://{environ.get('HTTP_HOST', '')}{environ.get('PATH_INFO', '')}"
    call = CallContext(
        requested_extensions=extensions.requested(environ),
        caller=caller_identity(environ, caller_header),
        log_context=logs.request_context(environ, request.method, url, environ.get("HTTP_USER_AGENT")),
    )
    request_id: jsonrpc.RequestId = None
    method = None
    token = arrivals.arrived()  # answered at its first bytes: analysis waits for them (agent.protocol.arrivals)
    streaming = False
    try:
        payload = jsonrpc.parse_json(_read_body(request, max_body_bytes, body_deadline_s))  # -32700: null id
        # (the body bytes are not kept: only the parsed payload, whose file parts the service turns into
        # references once it has decoded them)
        request_id = jsonrpc.read_id(payload)
        rpc = jsonrpc.validate(payload)
        method = rpc.method
        if method in STREAM_METHODS:
            events = _stream_call(service, rpc, call)
            streaming = True  # the stream answers the token at its first frame
            return _sse_response(rpc.id, events, call, started, method, token)
        if method != jsonrpc.GET:
            arrivals.answered(token)  # a send's own analysis, a cancel's wait: not held for their own reply
        result = _unary_call(service, rpc, call)
        return _logged(
            text_response(jsonrpc.success_body(rpc.id, result), headers=_headers(call)),
            call,
            method,
            started,
            outcome=call.log.get("outcome", "ok"),
        )
    except errors.RpcError as exc:
        return _logged(
            json_response(jsonrpc.failure(request_id, exc), headers=_headers(call)),
            call,
            method,
            started,
            outcome="error",
            code=exc.code,
        )
    except Exception:
        incident = logs.new_incident_id()
        logs.incident("request failed", incident, method=method)
        return _logged(
            json_response(jsonrpc.failure(request_id, errors.internal_error(incident)), headers=_headers(call)),
            call,
            method,
            started,
            outcome="error",
            code=errors.INTERNAL_ERROR,
            incident=incident,
        )
    finally:
        if not streaming:
            arrivals.answered(token)


def _logged(response: Any, call: CallContext, method: str | None, started: float, **fields: Any) -> Any:
    """Write the request line once the response has been sent: logging never delays an answer."""
    duration = time.perf_counter() - started
    response.call_on_close(lambda: _log(call, method, started, duration=duration, **fields))
    return response


def _unary_call(service: RequestHandler, rpc: jsonrpc.Request, call: CallContext) -> dict[str, Any]:
    if rpc.method == jsonrpc.SEND:
        return service.send(rpc.params, call)
    if rpc.method == jsonrpc.GET:
        return service.get(rpc.params, call)
    if rpc.method == jsonrpc.CANCEL:
        return service.cancel(rpc.params, call)
    raise errors.RpcError(errors.METHOD_NOT_FOUND, "The method is not supported by this agent.")


def _stream_call(service: RequestHandler, rpc: jsonrpc.Request, call: CallContext) -> Iterator[dict[str, Any]]:
    if rpc.method == jsonrpc.STREAM:
        return service.stream(rpc.params, call)
    return service.resubscribe(rpc.params, call)


def _sse_response(
    request_id: Any, events: Iterator[dict[str, Any]], call: CallContext, started: float, method: str, token: int
) -> Any:
    from flask import stream_with_context

    def frames() -> Iterator[bytes]:
        outcome = "ok"
        logs.use_request(call.log_context)  # this thread may have served another request meanwhile
        try:
            for event in events:
                yield sse.frame(jsonrpc.success(request_id, event))
                arrivals.answered(token)  # the server has written the first frame (idempotent after it)
                arrivals.hold_back()  # this stream's next work yields to newer requests' first frames
        except errors.RpcError as exc:
            outcome = "error"
            yield sse.frame(jsonrpc.failure(request_id, exc))
        except Exception:
            outcome = "error"
            incident = logs.new_incident_id()
            logs.incident("stream failed", incident, method=method)
            yield sse.frame(jsonrpc.failure(request_id, errors.internal_error(incident)))
        finally:
            arrivals.answered(token)
            # A client that went away closes this generator at a yield: close the run first, so the
            # task is ended (failed, "connection closed") and the line logs the outcome it ended with.
            close = getattr(events, "close", None)
            if close is not None:
                close()
            # After the last frame has been written and before the stream's terminating chunk: work
            # left for after that chunk would sit in front of the client's next request on this
            # connection (measured: ~0.13 ms more to its first event).
            _log(call, method, started, outcome=call.log.get("outcome", outcome))

    headers = dict(sse.HEADERS)  # SECURITY_HEADERS: around the app (secure_every_response)
    headers.update(_headers(call))
    return Response(stream_with_context(frames()), status=200, mimetype=sse.CONTENT_TYPE, headers=headers)


def _headers(call: CallContext) -> dict[str, str]:
    if call.activated_extensions:
        return {extensions.HEADER: ", ".join(call.activated_extensions)}
    return {}


def _log(call: CallContext, method: str | None, started: float, duration: float | None = None, **fields: Any) -> None:
    data = dict(call.log)
    data.update(fields)
    data["method"] = method
    elapsed = duration if duration is not None else time.perf_counter() - started
    data["duration_ms"] = round(elapsed * 1000, 2)
    logs.request_line(call.log_context, **data)
    logs.use_request(None)  # the thread's next records belong to no request until the next one starts
