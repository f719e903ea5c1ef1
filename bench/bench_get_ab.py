"""`tasks/get` on two checkouts side by side, paired per round (issue 16 item 6): `.venv/bin/python
bench/bench_get_ab.py BASE [OTHER]`, figures printed, never asserted.

BASE and OTHER (default: this checkout) are trees with an `agent/` (e.g. a `git archive` of main). Each
runs twice — Cloud Logging JSON lines at INFO (as deployed), and at LOG_LEVEL=WARNING (no request
line) — so one run gives OTHER/BASE with and without the line, and the line's own share on each; four
servers, asked in alternating order in BENCH_ROUNDS (default 16) rounds of 50 back-to-back calls each.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from bench_protocol import RawClient, _body, wait_ready  # noqa: E402

from tests.agent_process import ROOT, agent_environment, free_port  # noqa: E402


def _start(tree: str, extra: dict[str, str]) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = dict(agent_environment(f"http://127.0.0.1:{port}/", 8, {"K_SERVICE": "bench", **extra}), PYTHONPATH=tree)
    command = [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={port}"]
    proc = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(port, "/")
    return proc, port


def main() -> None:
    base, other = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else str(ROOT)
    specs = {"base": (base, {}), "other": (other, {}), "base-W": (base, {"LOG_LEVEL": "WARNING"})}
    specs["other-W"] = (other, {"LOG_LEVEL": "WARNING"})
    procs, clients, gets = [], {}, {}
    text = {"kind": "text", "text": "What is in this file?"}
    stream = _body("message/stream", {"message": {"role": "user", "messageId": "m", "parts": [text]}})
    try:
        ports = {}
        for name, (tree, extra) in specs.items():  # every server up before any connection is opened: an
            proc, ports[name] = _start(tree, extra)  # idle kept-alive connection is closed after 2 s
            procs.append(proc)
        for name, port in ports.items():
            client = clients[name] = RawClient(port)
            for _ in range(5):
                _, last = client.first_event_ms(stream)
            task_id = json.loads(last.split(b"data: ", 1)[1].split(b"\n", 1)[0])["result"]["id"]
            gets[name] = _body("tasks/get", {"id": task_id})
        for name, port in ports.items():  # new connections: the first ones sat idle while the others warmed up
            clients[name] = RawClient(port)
            for _ in range(50):
                clients[name].unary_ms(gets[name])
        medians: dict[str, list[float]] = {name: [] for name in specs}
        for r in range(int(os.environ.get("BENCH_ROUNDS", "16"))):
            for name in list(specs) if r % 2 else list(specs)[::-1]:
                medians[name].append(statistics.median(clients[name].unary_ms(gets[name]) for _ in range(50)))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    print(f"base {base}, other {other}; load {os.getloadavg()[0]:.1f} at the end")
    for name, values in medians.items():
        print(f"  {name:8s} tasks/get, median of round medians {statistics.median(values):.3f} ms")
    for top, bottom in (("other", "base"), ("other-W", "base-W"), ("base", "base-W"), ("other", "other-W")):
        ratios = [a / b for a, b in zip(medians[top], medians[bottom])]
        print(f"  {top}/{bottom}: {statistics.median(ratios):.3f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
