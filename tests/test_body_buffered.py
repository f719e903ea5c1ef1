"""The body read's deadline is armed only when the body is not already held (agent.protocol.http, issue 16
item 6): a small request's body usually comes in the same packet as its head, and gunicorn keeps it; a
body wholly held is read without touching the socket, so it cannot stall and needs no deadline.

Real gunicorn objects over a real socket pair: its parser reads the head (and whatever came with it), its
WSGI environ is what our function receives. The slow-body behaviour itself (a body announced and not
sent is cut off at the deadline) is tests/reliability/test_slow_clients.py's, through a real server."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.parser import RequestParser
from werkzeug.wrappers import Request

from agent.protocol import http

BODY = b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"}}'
HEAD = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    yield server, client
    server.close()
    client.close()


def _environ(server: socket.socket) -> dict:
    """The WSGI environ gunicorn builds for the next request on `server` (its head parsed, body not read)."""
    cfg = Config()
    request = next(iter(RequestParser(cfg, server, ("127.0.0.1", 1))))
    _, environ = wsgi.create(request, server, ("127.0.0.1", 1), ("127.0.0.1", 8080), cfg)
    environ["gunicorn.socket"] = server
    return environ


class _Watched:
    """The connection's socket as `_read_body` sees it, counting the deadline's `settimeout` calls."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.set = sock, 0

    def gettimeout(self) -> float | None:
        return self.sock.gettimeout()

    def settimeout(self, value: float | None) -> None:
        self.set += 1
        self.sock.settimeout(value)

    def shutdown(self, how: int) -> None:
        self.sock.shutdown(how)


def test_a_body_sent_with_its_head_is_held_and_read_without_a_deadline(pair):
    server, client = pair
    client.sendall(HEAD % len(BODY) + BODY)
    environ = _environ(server)
    assert http._buffered(environ) >= len(BODY)
    watched = environ["gunicorn.socket"] = _Watched(server)
    assert http._read_body(Request(environ), 1 << 20, 5.0) == BODY
    assert watched.set == 0


def test_a_body_still_on_its_way_is_read_under_the_deadline(pair):
    server, client = pair
    client.sendall(HEAD % len(BODY) + BODY[:10])
    environ = _environ(server)
    assert http._buffered(environ) < len(BODY)
    watched = environ["gunicorn.socket"] = _Watched(server)
    sender = threading.Thread(target=client.sendall, args=(BODY[10:],))  # the rest comes after the head was parsed
    sender.start()
    try:
        assert http._read_body(Request(environ), 1 << 20, 5.0) == BODY
    finally:
        sender.join()
    assert watched.set >= 2  # armed, then put back as it was


def test_a_body_that_never_comes_is_still_cut_off(pair):
    server, client = pair
    client.sendall(HEAD % len(BODY) + BODY[:10])
    environ = _environ(server)
    with pytest.raises(http.BodyLate):
        http._read_body(Request(environ), 1 << 20, 0.2)


def test_another_server_s_environ_holds_nothing_known():
    assert http._buffered({}) == 0
    assert http._buffered({"wsgi.input": object()}) == 0
