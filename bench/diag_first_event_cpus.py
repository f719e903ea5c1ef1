"""The first event's tail with the client and our server on the same CPUs or on separate ones (issue 16
item 6): `.venv/bin/python bench/diag_first_event_cpus.py`, figures printed, never asserted.

One server (Cloud Logging JSON lines, THREADS=8) and one kept-alive client; in alternating rounds
(BENCH_ROUNDS, default 10, of 50 back-to-back `message/stream`s) every thread of the server's processes
and the client are either free to run on every CPU ("shared", as bench_floor.py runs) or the server is
held to CPU 0 and the client to CPU 1 ("pinned"). After its first frame our server goes on with the
turn's analysis on the same thread; the floor and the reference have nothing left to do. Needs two CPUs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

from bench_floor import pct  # noqa: E402
from bench_protocol import RawClient, _body, wait_ready  # noqa: E402

from tests.agent_process import ROOT, agent_environment, free_port  # noqa: E402


def _hold(pids: list[int], server: set[int], client: set[int]) -> None:
    for pid in pids:
        for thread in os.listdir(f"/proc/{pid}/task"):
            os.sched_setaffinity(int(thread), server)
    os.sched_setaffinity(0, client)


def main() -> None:
    port = free_port()
    env = dict(agent_environment(f"http://127.0.0.1:{port}/", 8, {"K_SERVICE": "bench"}), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={port}"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(port, "/")
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        pids = [proc.pid, *map(int, children)]
        client = RawClient(port)
        text = {"kind": "text", "text": "What is in this file?"}
        stream = _body("message/stream", {"message": {"role": "user", "messageId": "m", "parts": [text]}})
        for _ in range(20):
            client.first_event_ms(stream)
        every = set(range(os.cpu_count() or 2))
        times: dict[str, list[float]] = {"shared": [], "pinned": []}
        for r in range(int(os.environ.get("BENCH_ROUNDS", "10"))):
            for mode in ("shared", "pinned") if r % 2 else ("pinned", "shared"):
                _hold(pids, {0} if mode == "pinned" else every, {1} if mode == "pinned" else every)
                times[mode] += [client.first_event_ms(stream)[0] for _ in range(50)]
        for mode, values in times.items():
            print(
                f"{mode}: first event p50 {statistics.median(values):.3f} / p95 {pct(values, 0.95):.3f} / "
                f"max {max(values):.2f} ms ({len(values)})"
            )
        print(f"load {os.getloadavg()[0]:.1f}")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
