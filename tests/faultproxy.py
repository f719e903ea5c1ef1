"""A fault-injecting HTTP proxy on loopback, in front of a storage emulator: real faults, no mocks.

The agent's server process points STORAGE_EMULATOR_HOST at the proxy; the proxy forwards every request
to the emulator unless a rule matches. A rule picks requests by method, a fragment of the path and
query, and/or a fragment of the body (an upload's JSON metadata carries the task state, so "the final
`completed` write" is one rule) and answers with an HTTP error status, or holds the request for some
seconds first (a hung storage call). Rules can fire a limited number of times (a transient fault).
"""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


@dataclass
class Rule:
    method: str | None = None  # "POST", "GET"…; None: any
    path: str | None = None  # fragment of the unquoted path + query
    body: bytes | None = None  # fragment of the request body
    status: int = 503
    delay: float = 0.0  # seconds to hold the request before answering (or forwarding, with status 0)
    times: int | None = None  # fire this often, then stop; None: always
    hits: int = 0
    released: threading.Event = field(default_factory=threading.Event)  # set by clear()/stop(): a held request ends

    def matches(self, method: str, target: str, body: bytes) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        return (
            (self.method is None or self.method == method)
            and (self.path is None or self.path in target)
            and (self.body is None or self.body in body)
        )


class FaultProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port
        self.rules: list[Rule] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                rule = proxy._match(self.command, unquote(self.path), body)
                if rule is not None:
                    if rule.delay and rule.released.wait(rule.delay):
                        self.close_connection = True  # the test is over: drop it, forward nothing
                        return
                    if rule.status:
                        payload = b'{"error":{"code":%d,"message":"injected fault"}}' % rule.status
                        self.send_response(rule.status)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload)
                        return
                conn = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                conn.request(self.command, self.path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in _HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def _match(self, method: str, target: str, body: bytes) -> Rule | None:
        with self.lock:
            for rule in self.rules:
                if rule.matches(method, target, body):
                    rule.hits += 1
                    return rule
        return None

    def add(self, **kwargs: object) -> Rule:
        rule = Rule(**kwargs)  # type: ignore[arg-type]
        with self.lock:
            self.rules.append(rule)
        return rule

    def clear(self) -> None:
        with self.lock:
            for rule in self.rules:
                rule.released.set()
            self.rules.clear()

    def stop(self) -> None:
        self.clear()
        self.server.shutdown()
        self.server.server_close()
