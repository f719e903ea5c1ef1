"""Instructions per in-process `tasks/get`, ours and the bare floor's, counted by callgrind (issue 16 item 6):
`.venv/bin/python bench/diag_get_instructions.py [TREE ...]`, figures printed, never asserted.

Why: on the shared 2-vCPU machine a cut of a few µs in our per-request code is below the spread of any
timing (paired wire rounds spread ±0.1–0.2× under load), so a change could not be told from noise.
Callgrind counts the instructions the interpreter executes, the same on every run whatever the load
(PYTHONHASHSEED=0, PYTHONMALLOC=malloc so the count is valgrind's). Each figure is the difference
between a child that answers CALLS_LOW and one that answers CALLS_HIGH calls, divided by the calls
between them: the start-up (imports, the warm send) cancels out. Instructions are not time — a lock or
a syscall weighs differently — but fewer instructions on the same path is less work.

In process, no sockets, as bench/diag_floor_parts.py: functions-framework's Flask app for `main.py`
(Cloud Logging JSON lines to /dev/null) called as WSGI with a finished task's `tasks/get`; the floor is
a function that reads the body and returns our reply's bytes. TREE (default: this checkout) is any tree
with an `agent/` and `main.py`, e.g. a `git worktree` of an older commit. Needs `valgrind` on PATH;
each tree takes ~4 minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from diag_floor_parts import FLOOR, WSGI_CALL  # noqa: E402 - the same floor and the same in-process call

CALLS_LOW, CALLS_HIGH = 300, 1300

CHILD = (
    r"""
import io, json, os, pathlib, sys
tree, mode, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, tree)
sys.stdout = open(os.devnull, "w")
import functions_framework
app = functions_framework.create_app(target="a2a", source=os.path.join(tree, "main.py"))
"""
    + WSGI_CALL
    + r"""
send = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"role": "user",
        "messageId": "m", "parts": [{"kind": "text", "text": "What is in this file?"}]}}}
task_id = json.loads(call(json.dumps(send).encode()))["result"]["id"]
get = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}}).encode()
if mode == "floor":
    floor = pathlib.Path(os.environ["FLOOR_DIR"])
    (floor / "body.json").write_bytes(call(get))
    app = functions_framework.create_app(target="fixed", source=str(floor / "main.py"))
for _ in range(300 + calls):
    call(get)
"""
)


def instructions(tree: Path, mode: str, calls: int, floor_dir: str) -> int:
    """Instructions callgrind counted for one child answering `calls` tasks/get after its warm-up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOG_LEVEL", "CATALOG_URI"))}
    env.update(K_SERVICE="bench", PYTHONHASHSEED="0", PYTHONMALLOC="malloc", FLOOR_DIR=floor_dir)
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", CHILD]
    done = subprocess.run([*command, str(tree), mode, str(calls)], cwd=tree, env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed ({tree}, {mode}):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_request(tree: Path, mode: str, floor_dir: str) -> float:
    low, high = (instructions(tree, mode, calls, floor_dir) for calls in (CALLS_LOW, CALLS_HIGH))
    return (high - low) / (CALLS_HIGH - CALLS_LOW)


def main() -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    trees = [Path(t).resolve() for t in sys.argv[1:]] or [ROOT]
    with tempfile.TemporaryDirectory() as floor_dir:
        Path(floor_dir, "main.py").write_text(FLOOR)
        floor = per_request(ROOT, "floor", floor_dir)
        print(f"floor (bare function, our reply's bytes): {floor:,.0f} instructions per tasks/get")
        for tree in trees:
            ours = per_request(tree, "ours", floor_dir)
            print(f"{tree}: {ours:,.0f} instructions per tasks/get, {ours / floor:.2f}x the floor")


if __name__ == "__main__":
    main()
