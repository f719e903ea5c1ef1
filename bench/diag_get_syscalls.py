"""System calls per `tasks/get` over the wire, ours, the bare functions-framework floor's and that
floor's inside our process, counted by `strace -c` (issue 16 item 6):
`.venv/bin/python bench/diag_get_syscalls.py [N]`, figures printed, never asserted.

Why: in process (bench/diag_floor_parts.py) our code adds ~30 µs to a `tasks/get`, over the wire ~70-90
µs. A per-request system call the in-process loop does not make (a socket timeout, a lock that sleeps, a
write) would show here as a count the floor does not have. Three servers, as bench_floor.py starts them
(gthread, THREADS=8): ours (K_SERVICE=bench: the request line as Cloud Logging JSON to stdout, which is
/dev/null here; BENCH_ENV adds settings as in bench_floor.py), the floor, and "inner", the floor's
function in a process that has built our whole app (what the process costs, none of our per-request
code). Each is warmed, then
`strace -f -c` is attached to its processes for N (400) back-to-back requests on one fresh kept-alive
connection. futex calls are the GIL and the executor's queue changing hands between gunicorn's poller
thread and a worker; their count falls in one of two modes (~8-13 or ~18-21) from run to run, for the
floor too, so compare it over several runs. The other counts are exact. Needs `strace` on PATH and
leave to ptrace (root in this container).
"""

from __future__ import annotations

import http.client
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
from bench_floor import IN_OUR_PROCESS, floor_process  # noqa: E402 - the floors exactly as bench_floor starts them
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
    floors: list[subprocess.Popen] = []
    try:
        client = RawClient(server.port)
        stream = _body("message/stream", _message("What is in this file?"))
        _, last = client.first_event_ms(stream)
        task_id = json.loads(last.split(b"data: ", 1)[1].split(b"\n", 1)[0])["result"]["id"]
        get = _body("tasks/get", {"id": task_id})
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "main.py").write_text(FIXED)
            Path(tmp, "in_our_process.py").write_text(IN_OUR_PROCESS)
            Path(tmp, "body.json").write_bytes(_reply(server.port, get))
            ports = {"ours": server.port}
            for name, source in (("floor", "main.py"), ("inner", "in_our_process.py")):
                proc, ports[name] = floor_process(tmp, "fixed", "8", source=source)
                floors.append(proc)
            got = {name: _counts(port, get, calls) for name, port in ports.items()}
    finally:
        for proc in floors:
            proc.terminate()
            proc.wait(10)
        server.stop()
    print(f"system calls per tasks/get ({calls} requests each, strace -c over the server's processes)")
    print(f"{'call':16s}" + "".join(f"{name:>8s}" for name in got))
    for call in sorted(set().union(*got.values()), key=lambda n: -got["ours"].get(n, 0)):
        print(f"{call:16s}" + "".join(f"{counts.get(call, 0) / calls:8.2f}" for counts in got.values()))


def _reply(port: int, body: bytes) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    return conn.getresponse().read()


if __name__ == "__main__":
    main()
