"""`tasks/get` against the bare functions-framework floor, and the first event's tail, paired (issue 16
item 6): `.venv/bin/python bench/bench_floor.py`, figures printed, never asserted.

bench_protocol.py measures ours, then the reference, then the floor, one after the other; on a shared
machine the load moves between them. Here our server and the floor run side by side and are asked in
alternating rounds (BENCH_ROUNDS, default 20, of BENCH_PER_ROUND, default 50, back-to-back requests on
one kept-alive connection each): every round gives one ratio of medians, and the median of those
ratios is the figure. The same rounds time `message/stream`'s first event (p50, p95, max) on our
server, with the floor's streaming twin (one fixed SSE frame) beside it. BENCH_ENV sets our server's settings
("K_SERVICE=bench": the request line as Cloud Logging JSON, as deployed).
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from agent_server import settings
from bench_protocol import FIXED, RawClient, _body, wait_ready

from tests.agent_process import free_port
from tests.conftest import Server

STREAM_FIXED = """
import functions_framework
from flask import Response

FRAME = open("frame.txt", "rb").read()


@functions_framework.http
def stream(request):
    request.get_data()

    def frames():
        yield FRAME

    return Response(frames(), 200, mimetype="text/event-stream")
"""


def floor_process(tmp: str, target: str, threads: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "functions_framework", f"--target={target}", f"--port={port}", "--host=127.0.0.1"],
        cwd=tmp,
        env=dict(os.environ, THREADS=threads),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_ready(port, "/")
    return proc, port


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    rounds = int(os.environ.get("BENCH_ROUNDS", "20"))
    per_round = int(os.environ.get("BENCH_PER_ROUND", "50"))
    threads = os.environ.get("BENCH_THREADS", "8")
    # BENCH_ENV: the agent's settings for our server, e.g. "K_SERVICE=bench" for Cloud Logging JSON lines
    server = Server({"THREADS": threads, **settings(os.environ.get("BENCH_ENV", ""))})
    procs: list[subprocess.Popen] = []
    try:
        ours = RawClient(server.port)
        stream = _body(
            "message/stream",
            {
                "message": {
                    "role": "user",
                    "messageId": "m",
                    "parts": [{"kind": "text", "text": "What is in this file?"}],
                }
            },
        )
        for _ in range(10):
            _, last = ours.first_event_ms(stream)
        task_id = json.loads(last.split(b"data: ", 1)[1].split(b"\n", 1)[0])["result"]["id"]
        get = _body("tasks/get", {"id": task_id})
        ours.unary_ms(get)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("POST", "/", body=get, headers={"Content-Type": "application/json"})
        get_reply = conn.getresponse().read()
        first_data = last.split(b"data: ", 1)[1].split(b"\n", 1)[0]
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "main.py").write_text(FIXED + STREAM_FIXED)
            Path(tmp, "body.json").write_bytes(get_reply)
            Path(tmp, "frame.txt").write_bytes(b"data: " + first_data + b"\n\n")
            proc, floor_port = floor_process(tmp, "fixed", threads)
            procs.append(proc)
            proc, stream_port = floor_process(tmp, "stream", threads)
            procs.append(proc)
            floor = RawClient(floor_port)
            floor_stream = RawClient(stream_port)
            for _ in range(20):
                floor.unary_ms(get)
                floor_stream.first_event_ms(stream)
                ours.unary_ms(get)
            get_ratios, ours_gets, floor_gets = [], [], []
            first_ratios, ours_firsts, floor_firsts = [], [], []
            for r in range(rounds):
                if r % 2:  # the floor first every second round
                    b = [floor.unary_ms(get) for _ in range(per_round)]
                    a = [ours.unary_ms(get) for _ in range(per_round)]
                    d = [floor_stream.first_event_ms(stream)[0] for _ in range(per_round)]
                    c = [ours.first_event_ms(stream)[0] for _ in range(per_round)]
                else:
                    a = [ours.unary_ms(get) for _ in range(per_round)]
                    b = [floor.unary_ms(get) for _ in range(per_round)]
                    c = [ours.first_event_ms(stream)[0] for _ in range(per_round)]
                    d = [floor_stream.first_event_ms(stream)[0] for _ in range(per_round)]
                get_ratios.append(statistics.median(a) / statistics.median(b))
                first_ratios.append(statistics.median(c) / statistics.median(d))
                ours_gets += a
                floor_gets += b
                ours_firsts += c
                floor_firsts += d
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        server.stop()
    n = rounds * per_round
    print(f"{rounds} rounds of {per_round}, THREADS={threads}, load {os.getloadavg()[0]:.1f} at the end")
    print(
        f"tasks/get: ours median {statistics.median(ours_gets):.3f} ms, floor {statistics.median(floor_gets):.3f} ms; "
        f"paired ratio median {statistics.median(get_ratios):.2f}x "
        f"(rounds {min(get_ratios):.2f}-{max(get_ratios):.2f}x)"
    )
    print(
        f"first event: ours p50 {statistics.median(ours_firsts):.3f} / p95 {pct(ours_firsts, 0.95):.3f} / "
        f"max {max(ours_firsts):.2f} ms; streaming floor p50 {statistics.median(floor_firsts):.3f} / "
        f"p95 {pct(floor_firsts, 0.95):.3f} ms; paired ratio of medians {statistics.median(first_ratios):.2f}x ({n} each)"
    )
    slow = sorted(range(len(ours_firsts)), key=lambda i: -ours_firsts[i])[: max(1, n // 20)]
    print(f"first event: the slowest 5 % sit at positions (mod {per_round}) {sorted(i % per_round for i in slow)}")


if __name__ == "__main__":
    main()
