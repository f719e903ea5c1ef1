"""Slow clients cannot stall the instance (#12 item 4): the body has a read deadline.

Clients that announce more body than they send hold a request thread only until BODY_READ_SECONDS,
then get -32600 and a closed connection; correct requests keep being answered meanwhile.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

DEADLINE_S = 2


@pytest.fixture(scope="module")
def slow_server(start_server):
    return start_server({"BODY_READ_SECONDS": str(DEADLINE_S)})


def slow_body_client(port: int, out: list) -> None:
    """Announce 1,000 bytes of body, send 10, wait: what the server answers, as raw bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(
            b'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"'
        )
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        out.append(data)


@pytest.mark.parametrize("slow", [8, 32])
def test_correct_requests_are_answered_while_slow_bodies_hang(slow_server, slow):
    port = slow_server.port
    answers: list[bytes] = []
    clients = [threading.Thread(target=slow_body_client, args=(port, answers)) for _ in range(slow)]
    for t in clients:
        t.start()
    time.sleep(0.3)  # not a race: the slow clients only need to be connected, however long it takes
    latencies = []
    for i in range(10):
        started = time.monotonic()
        reply = httpx.post(
            slow_server.url,
            json={"jsonrpc": "2.0", "id": i, "method": "tasks/get", "params": {"id": "none"}},
            timeout=60,
        )
        latencies.append(time.monotonic() - started)
        assert reply.status_code == 200 and reply.json()["error"]["code"] == -32001
    for t in clients:
        t.join(60)
    assert len(answers) == slow
    for raw in answers:
        head, _, body = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head  # and the server closed the connection (EOF above)
        assert json.loads(body) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32600, "message": "The request body did not arrive in time."},
        }
    # every slow client is let go after the deadline, so a correct request waits at most a few rounds
    assert max(latencies) < DEADLINE_S * (slow // 8 + 2), latencies
    assert httpx.get(slow_server.url, timeout=10).status_code == 200
