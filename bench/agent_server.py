"""The real agent for the long benches: a functions-framework process on loopback, and its memory.

Started as tests/conftest.py's Server does it (the agent's own settings never leak in from the shell),
with a raw HTTP/SSE client on `http.client`, so the figures measure the server, not a client library.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
AGENT_SETTINGS = (
    "CATALOG_",
    "A2UI_",
    "STATE_",
    "REFERENCE_",
    "ALLOWED_",
    "CONTEXT_",
    "MAX_BODY_BYTES",
    "LOG_LEVEL",
    "GOOGLE_CLOUD_PROJECT",
    "STORAGE_EMULATOR_HOST",
    "TEST_STEP_GATE",
    "CALLER_",
    "MEMORY_",
    "BODY_READ_SECONDS",
    "TURN_STORAGE_SECONDS",
    "PROVIDER_",
    "K_SERVICE",
    "PREVIEW",
)


class AgentServer:
    """`functions-framework --target=a2a` on 127.0.0.1 with `threads` gthread workers (the deploy default: 8)."""

    def __init__(
        self, threads: int = int(os.environ.get("BENCH_THREADS", "8")), env: dict[str, str] | None = None
    ) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS)}
        self.threads = threads
        full_env.update({"PUBLIC_URL": self.url, "THREADS": str(threads), "LOG_LEVEL": "WARNING"})
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={self.port}"],
            cwd=ROOT,
            env=full_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start")
            try:
                conn = self.connection(timeout=1)
                conn.request("GET", "/.well-known/agent-card.json")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def connection(self, timeout: float = 120) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def rss(self) -> int:
        """Resident bytes of the server process and its descendants (gunicorn's worker)."""
        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0
        total = 0
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return total

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def rpc(method: str, params: dict, rid: int | str = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def message(parts: list[dict], message_id: str, context_id: str | None = None) -> dict:
    msg: dict = {"role": "user", "kind": "message", "messageId": message_id, "parts": parts}
    if context_id:
        msg["contextId"] = context_id
    return {"message": msg}


def post(conn: http.client.HTTPConnection, body: bytes) -> http.client.HTTPResponse:
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    return conn.getresponse()


def sse_events(response: http.client.HTTPResponse):
    """Yield each SSE `data:` frame of `response` as parsed JSON, as it arrives."""
    data: list[str] = []
    while True:
        line = response.readline()
        if not line:
            break
        text = line.decode("utf-8").rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].lstrip())
        elif text == "" and data:
            yield json.loads("\n".join(data))
            data = []
    if data:
        yield json.loads("\n".join(data))


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered) + 0.5)) - 1))]


def spread(values: list[float]) -> str:
    if not values:
        return "n/a"
    return (
        f"p50 {percentile(values, 0.5) * 1000:,.1f} ms, p95 {percentile(values, 0.95) * 1000:,.1f} ms, "
        f"max {max(values) * 1000:,.1f} ms"
    )
