"""Where a cold first send goes (issue 16 item 5), printed not asserted.

`bench_protocol.py --cold-send` times process start → first completed send against a bare function
that imports the same libraries; the difference is our own work. This script measures that own work
alone, and side by side for two checkouts: each round starts a fresh interpreter per checkout that
first imports every third-party module a first demo send leaves imported (found by bench_protocol's
probe, pandas hidden as in the runtime), then times the first `message/send` in process — wall time
and the process's CPU time (CPU time moves less with the machine's load than wall time does).

    .venv/bin/python bench/bench_cold.py [--other PATH] [--rounds N]

`--other` is a second checkout (e.g. `git worktree add --detach /tmp/main main`); the rounds
alternate between the two, and the paired ratio is this checkout's CPU over the other's, per round.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_protocol import COLD_QUESTION, loaded_after_first_send, no_pandas_path  # noqa: E402

FIRST_SEND = r"""
import importlib, json, sys, time
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception:
        pass
import main
from flask import Flask, request
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "role": "user", "parts": [{"kind": "text", "text": sys.argv[2]}]}}})
app = Flask("probe")
with app.test_request_context(main.STATE.config.rpc_path, method="POST", data=body, content_type="application/json"):
    wall, cpu = time.perf_counter(), time.process_time()
    reply = main.a2a(request).get_data()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
assert b'"completed"' in reply, reply[:300]
print("FIRST " + json.dumps([wall * 1000, cpu * 1000]))
"""


def first_send(checkout: Path, modules: list[str], no_pandas: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of a fresh process's first send, its libraries imported before."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env["PYTHONPATH"] = f"{no_pandas}{os.pathsep}{checkout}"
    done = subprocess.run(
        [sys.executable, "-c", FIRST_SEND, json.dumps(modules), COLD_QUESTION],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("FIRST "))
    wall, cpu = json.loads(line[len("FIRST ") :])
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--other", type=Path, help="a second checkout to run side by side")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    checkouts = [ROOT] + ([args.other.resolve()] if args.other else [])
    with tempfile.TemporaryDirectory() as hidden:
        no_pandas = no_pandas_path(hidden)
        modules = loaded_after_first_send(no_pandas)
        got: dict[Path, list[tuple[float, float]]] = {path: [] for path in checkouts}
        for _ in range(args.rounds + 1):  # the first round warms the page cache
            for path in checkouts:
                got[path].append(first_send(path, modules, no_pandas))
    for path in checkouts:
        runs = got[path][1:]
        print(
            f"{path}: first send after the same {len(modules)} imports: wall median "
            f"{median(w for w, _ in runs):.0f} ms, CPU median {median(c for _, c in runs):.0f} ms ({len(runs)} runs)"
        )
    if args.other:
        ratios = [a[1] / b[1] for a, b in zip(got[ROOT][1:], got[checkouts[1]][1:])]
        print(f"paired CPU ratio this/other: median {median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
