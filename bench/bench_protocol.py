"""Protocol benchmarks, printed not asserted (issue 2): run with `.venv/bin/python bench/bench_protocol.py`.

- time to the first SSE event of `message/stream` (warm, back to back, one keep-alive connection)
- `tasks/get` round trip (warm, back to back)
- warm `message/send` on the demo catalog (overview and the gaps question)
- cold start: process start → first agent-card response, ours vs a bare functions-framework hello world

Medians and ratios, over many runs; a stdlib http.client on a kept-alive connection keeps client
overhead out of the figures.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import Server, free_port  # noqa: E402

HELLO = '''import functions_framework

@functions_framework.http
def hello(request):
    return {"ok": True}
'''


def _body(method: str, params: dict, rid: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def _message(text: str) -> dict:
    return {"message": {"role": "user", "parts": [{"kind": "text", "text": text}]}}


def first_event_ms(conn: http.client.HTTPConnection, text: str) -> float:
    body = _body("message/stream", _message(text))
    start = time.perf_counter()
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    line = response.fp.readline()
    elapsed = (time.perf_counter() - start) * 1000
    while line and not line.startswith(b"data:"):
        line = response.fp.readline()
        elapsed = (time.perf_counter() - start) * 1000
    response.read()  # drain the rest of the stream so the connection can be reused
    return elapsed


def unary_ms(conn: http.client.HTTPConnection, body: bytes) -> tuple[float, dict]:
    start = time.perf_counter()
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    data = conn.getresponse().read()
    return (time.perf_counter() - start) * 1000, json.loads(data)


def median(values: list[float]) -> float:
    return statistics.median(values)


def cold_start_ms(argv: list[str], url: str, path: str, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                host, port = url.split("//")[1].rstrip("/").split(":")
                conn = http.client.HTTPConnection(host, int(port), timeout=1)
                conn.request("GET", path)
                if conn.getresponse().status == 200:
                    return (time.perf_counter() - start) * 1000
            except OSError:
                time.sleep(0.005)
    finally:
        proc.terminate()
        proc.wait(10)


def bench_cold(runs: int) -> None:
    ours, bare = [], []
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "main.py").write_text(HELLO)
        for _ in range(runs):
            port = free_port()
            url = f"http://127.0.0.1:{port}/"
            env = dict(os.environ, PUBLIC_URL=url)
            ours.append(cold_start_ms([sys.executable, "-m", "functions_framework", "--target=a2a", f"--port={port}",
                                       "--host=127.0.0.1"], url, "/.well-known/agent-card.json", ROOT, env))
            port = free_port()
            url = f"http://127.0.0.1:{port}/"
            bare.append(cold_start_ms([sys.executable, "-m", "functions_framework", "--target=hello", f"--port={port}",
                                       "--host=127.0.0.1"], url, "/", Path(tmp), dict(os.environ)))
    print(f"cold start to first card: ours median {median(ours):.0f} ms, bare hello-world {median(bare):.0f} ms, "
          f"ratio {median(ours) / median(bare):.2f}x  ({runs} runs each)")


def main() -> None:
    runs = int(os.environ.get("BENCH_RUNS", "200"))
    server = Server()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        for _ in range(5):  # warm: imports, demo catalog parsed and cached
            first_event_ms(conn, "Where are the gaps in outdoor furniture?")
        firsts = [first_event_ms(conn, "What is in this file?") for _ in range(runs)]
        _, sent = unary_ms(conn, _body("message/send", _message("What is in this file?")))
        task_id = sent["result"]["id"]
        gets = [unary_ms(conn, _body("tasks/get", {"id": task_id}))[0] for _ in range(runs)]
        sends = [unary_ms(conn, _body("message/send", _message("What is in this file?")))[0] for _ in range(max(20, runs // 4))]
        gaps = [unary_ms(conn, _body("message/send", _message("Where are the gaps in outdoor furniture?")))[0]
                for _ in range(max(20, runs // 4))]
        print(f"time to first SSE event (warm, back to back): median {median(firsts):.2f} ms over {runs}")
        print(f"tasks/get round trip (warm, back to back):    median {median(gets):.2f} ms over {runs}")
        print(f"message/send overview on demo (warm):          median {median(sends):.2f} ms over {len(sends)}")
        print(f"message/send gaps question on demo (warm):     median {median(gaps):.2f} ms over {len(gaps)}")
    finally:
        server.stop()
    bench_cold(int(os.environ.get("BENCH_COLD_RUNS", "7")))


if __name__ == "__main__":
    main()
