"""nosniff on the responses functions-framework makes itself (#12 item 8), seen over raw HTTP.

Our own responses carry the header (tests/reliability/test_hostile_input.py); these are the ones our
code never builds: the framework's 404 for GET/HEAD /robots.txt and /favicon.ico (other methods on
them reach main.py, which answers 404 JSON), and its crash page (HTTP 500 text) when a function raises. The crash case runs a real
functions-framework process on a two-line function that raises, hooked the way main.py hooks the agent.
"""

from __future__ import annotations

import http.client
import subprocess
import sys
import time

import pytest

from tests.agent_process import ROOT, agent_environment, free_port

pytestmark = pytest.mark.server


def raw(port: int, method: str, path: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=b"" if method == "POST" else None)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


@pytest.mark.parametrize(
    "method, path, status",
    [
        ("GET", "/robots.txt", 404),
        ("GET", "/favicon.ico", 404),
        ("HEAD", "/favicon.ico", 404),
        ("POST", "/robots.txt", 404),
    ],
)
def test_the_frameworks_own_answers_say_nosniff(server, method, path, status):
    response = raw(server.port, method, path)
    assert response.status == status
    assert response.getheader("X-Content-Type-Options") == "nosniff"


CRASHING = """
import flask
import functions_framework

from agent.protocol import http

http.secure_every_response(flask.current_app)


@functions_framework.http
def crash(request):
    raise RuntimeError("a function that raises")
"""


def test_the_frameworks_crash_page_says_nosniff(tmp_path):
    (tmp_path / "main.py").write_text(CRASHING)
    port = free_port()
    env = agent_environment(f"http://127.0.0.1:{port}/", 1, {"PYTHONPATH": str(ROOT)})
    argv = [sys.executable, "-m", "functions_framework", "--target=crash", "--host=127.0.0.1", f"--port={port}"]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        response = None
        deadline = time.monotonic() + 30
        while response is None and time.monotonic() < deadline:
            assert proc.poll() is None, "the crashing function's server exited"
            try:
                response = raw(port, "GET", "/")
            except OSError:
                time.sleep(0.05)
        assert response is not None, "the crashing function's server did not start"
        assert response.status == 500  # functions-framework's crash page, not ours
        assert response.getheader("X-Content-Type-Options") == "nosniff"
    finally:
        proc.terminate()
        proc.wait(10)
