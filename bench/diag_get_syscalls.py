"""System calls per `tasks/get` over the wire, ours and the bare functions-framework floor's, counted by
`strace -c` (issue 16 item 6): `.venv/bin/python bench/diag_get_syscalls.py [N]`, figures printed, never
asserted.

Why: in process (bench/diag_floor_parts.py) our code adds ~30 µs to a `tasks/get`, over the wire ~70-90
µs. A per-request system call the in-process loop does not make (a socket timeout, a lock that sleeps, a
write) would show here as a count the floor does not have. Both servers run as bench_floor.py starts
them (gthread, THREADS=8; ours with K_SERVICE=bench, the request line as Cloud Logging JSON to stdout,
which is /dev/null here; BENCH_ENV adds settings as in bench_floor.py). Each is warmed, then
`strace -f -c` is attached to its processes for N (400) back-to-back requests on one fresh kept-alive
connection. futex calls are the GIL and the executor's queue changing hands between gunicorn's poller
thread and a worker, and move a little from run to run; the other counts are exact. Needs `strace` on
PATH and leave to ptrace (root in this container).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from agent_server import settings  # noqa: E402
from bench_floor import floor_process  # noqa: E402 - the floor exactly as bench_floor starts it
from bench_protocol import FIXED, RawClient, _body, _message  # noqa: E402

from tests.conftest import Server  # noqa: E402

_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$")


def _server_pids(port: int) -> list[str]:
    """The listening process (gunicorn's arbiter) and its children (the worker)."""
    listing = subprocess.run(["ss", "-ltnp", f"sport = :{port}"], capture_output=True, text=True).stdout
    pids = sorted(set(re.findall(r"pid=(\d+)", listing)))
    children = [
        c for p in pids for c in subprocess.run(["pgrep", "-P", p], capture_output=True, text=True).stdout.split()
    ]
    return sorted(set(pids + children))


def _counts(port: int, get: bytes, calls: int) -> dict[str, int]:
    """Syscall name -> calls, over `calls` requests on one new connection."""
    client = RawClient(port)
    for _ in range(20):  # a fresh connection, settled
        client.unary_ms(get)
    with tempfile.NamedTemporaryFile(suffix=".strace") as out:
        attach = sum((["-p", pid] for pid in _server_pids(port)), [])
        tracer = subprocess.Popen(["strace", "-f", "-c", "-o", out.name, *attach], stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached (strace has no ready signal); the connection stays within keep-alive
        for _ in range(calls):
            client.unary_ms(get)
        time.sleep(0.3)
        tracer.terminate()
        tracer.wait(10)
        rows = (_ROW.match(line) for line in Path(out.name).read_text().splitlines())
        return {m.group(2): int(m.group(1)) for m in rows if m and m.group(2) != "total"}


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    if not shutil.which("strace"):
        raise SystemExit("strace is not on PATH")
    server = Server({"THREADS": "8", "K_SERVICE": "bench", **settings(os.environ.get("BENCH_ENV", ""))})
    floor = None
    try:
        client = RawClient(server.port)
        stream = _body("message/stream", _message("What is in this file?"))
        _, last = client.first_event_ms(stream)
        task_id = json.loads(last.split(b"data: ", 1)[1].split(b"\n", 1)[0])["result"]["id"]
        get = _body("tasks/get", {"id": task_id})
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "main.py").write_text(FIXED)
            Path(tmp, "body.json").write_bytes(_reply(server.port, get))
            floor, floor_port = floor_process(tmp, "fixed", "8")
            got = {"ours": _counts(server.port, get, calls), "floor": _counts(floor_port, get, calls)}
    finally:
        if floor is not None:
            floor.terminate()
            floor.wait(10)
        server.stop()
    print(f"system calls per tasks/get ({calls} requests each, strace -c over the server's processes)")
    print(f"{'call':16s} {'ours':>8s} {'floor':>8s}")
    for name in sorted(set(got["ours"]) | set(got["floor"]), key=lambda n: -got["ours"].get(n, 0)):
        ours, bare = got["ours"].get(name, 0) / calls, got["floor"].get(name, 0) / calls
        print(f"{name:16s} {ours:8.2f} {bare:8.2f}")


def _reply(port: int, body: bytes) -> bytes:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    return conn.getresponse().read()


if __name__ == "__main__":
    main()
