"""The real agent for the long benches: a functions-framework process on loopback, and its memory.

Started by tests/agent_process.py, as tests/conftest.py's Server is (the agent's own settings never leak in
from the shell), with a raw HTTP/SSE client on `http.client`, so the figures measure the server, not a client library.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.agent_process import AgentProcess  # noqa: E402  (the one way to start the agent, shared with tests/)


def settings(text: str) -> dict[str, str]:
    """ "ANALYSIS_SLOTS=2,FIRST_FRAME_WAIT_MS=0" as a dict: the agent's settings a bench passes on
    (tests/agent_process.py keeps the shell's own from the server, so BENCH_ENV is how a run sets them)."""
    pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
    return {key.strip(): value.strip() for key, value in pairs}


class AgentServer(AgentProcess):
    """`functions-framework --target=a2a` on 127.0.0.1 with `threads` gthread workers (the deploy default: 8),
    and the settings of BENCH_ENV, then `env`."""

    def __init__(
        self, threads: int = int(os.environ.get("BENCH_THREADS", "8")), env: dict[str, str] | None = None
    ) -> None:
        chosen = {"LOG_LEVEL": "WARNING", **settings(os.environ.get("BENCH_ENV", "")), **(env or {})}
        super().__init__(chosen, threads=threads, ready_timeout=60.0)
        self.settings = chosen

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
