"""The request line's cost per request, in process (issue 16 item 6): `.venv/bin/python bench/bench_log_line.py
[ROOT]`, figures printed, never asserted.

Each mode (readable lines; Cloud Logging JSON, as deployed) runs in its own process, since logging is set up
once per process: a request's trace fields made current, then `logs.request_line` with a `tasks/get`'s
fields, stdout sent to /dev/null. BENCH_ROUNDS (default 7) rounds of BENCH_CALLS (default 2000) calls; the
median of the rounds' per-call means is printed. ROOT (default: this checkout) is the tree whose `agent`
is imported, so two trees can be measured one after the other with the same script.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import os, statistics, sys, time
sys.stdout = open(os.devnull, "w")
from agent import logs
json_lines = sys.argv[1] == "json"
logs.setup("INFO", None, json_lines=json_lines)
logs.event("warm-up")
logs.flush()
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
headers = {"traceparent": TRACEPARENT, "HTTP_TRACEPARENT": TRACEPARENT}  # older trees read the header name
rounds, calls = int(sys.argv[2]), int(sys.argv[3])
means = []
for _ in range(rounds):
    fields = logs.request_context(headers, "POST", "http://127.0.0.1/", "bench/1")
    start = time.perf_counter()
    for _ in range(calls):
        logs.request_line(fields, method="tasks/get", task="0703d0e3-1", context="44d4a369-2", outcome="ok",
                          duration_ms=0.42)
    means.append((time.perf_counter() - start) / calls * 1e6)
sys.__stdout__.write(f"{statistics.median(means):.1f}\n")
"""


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    rounds = os.environ.get("BENCH_ROUNDS", "7")
    calls = os.environ.get("BENCH_CALLS", "2000")
    for mode in ("readable", "json"):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, mode, rounds, calls],
            cwd=root,
            env=dict(os.environ, PYTHONPATH=str(root)),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"{mode:9s} request line: {out} µs per call (median of {rounds} rounds of {calls})")
    print(f"tree: {root}; load: {os.getloadavg()[0]:.1f}; {statistics.__name__} medians")


if __name__ == "__main__":
    main()
