"""Where our `tasks/get` spends its time beyond the bare functions-framework floor, by component (issue 16
item 6): `.venv/bin/python bench/diag_floor_parts.py`, figures printed, never asserted.

In process, no sockets: functions-framework's Flask app for `main.py` (Cloud Logging JSON lines to
/dev/null, as deployed but without the write's destination) called as WSGI with a finished task's
`tasks/get`, next to the floor's app (a function that reads the body and returns our reply's bytes). Each
component is then replaced by what the floor does instead (or by nothing), one at a time, in rounds
alternating with the unchanged app; the median of the paired differences is that component's cost. Over
the wire a component costs more than here (cold caches between requests: the request line is ~15 µs in a
tight loop, ~35 µs here, ~60–70 µs over the wire in bench_floor.py with LOG_LEVEL=WARNING beside it), so
read these as shares, not as the wire's microseconds. BENCH_ROUNDS (default 9) rounds of BENCH_CALLS
(default 400) calls. The body read's deadline (on gunicorn's socket) is not exercised here: no socket.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

# One request through the WSGI app `app` (a global of the child), no socket: shared with
# diag_get_instructions.py's child.
WSGI_CALL = r"""
def call(body):
    env = {"REQUEST_METHOD": "POST", "PATH_INFO": "/", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8080",
           "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)),
           "CONTENT_TYPE": "application/json", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1:8080",
           "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
           "wsgi.run_once": False, "wsgi.version": (1, 0)}
    it = app(env, lambda status, headers, exc_info=None: None)
    data = b"".join(it)
    getattr(it, "close", lambda: None)()
    return data
"""

CHILD = (
    r"""
import io, json, os, sys, time, statistics, logging
sys.stdout = open(os.devnull, "w")
mode, source, rounds, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
import functions_framework
app = functions_framework.create_app(target="a2a" if mode == "ours" else "fixed", source=source)

"""
    + WSGI_CALL
    + r"""


def per_call(body):
    start = time.perf_counter()
    for _ in range(calls):
        call(body)
    return (time.perf_counter() - start) / calls * 1e6


if mode == "floor":
    get = open(os.path.join(os.path.dirname(source), "get.json"), "rb").read()
    for _ in range(300):
        call(get)
    sys.__stdout__.write(json.dumps({"floor": statistics.median(per_call(get) for _ in range(rounds))}) + "\n")
    raise SystemExit
send = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"role": "user",
        "messageId": "m", "parts": [{"kind": "text", "text": "What is in this file?"}]}}}
task_id = json.loads(call(json.dumps(send).encode()))["result"]["id"]
get = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}}).encode()
reply = call(get)
open(os.path.join(sys.argv[5], "get.json"), "wb").write(get)
open(os.path.join(sys.argv[5], "body.json"), "wb").write(reply)

from agent import logs
from agent.app import get_app_state
from agent.protocol import arrivals, http, jsonrpc

service = get_app_state().service
payload = json.loads(get)
request = jsonrpc.validate(payload)
result = service.get(request.params, __import__("agent.protocol.context", fromlist=["x"]).CallContext())
text = jsonrpc.success_body(1, result)
root = logging.getLogger()


def swap(obj, name, value):
    old = getattr(obj, name)
    setattr(obj, name, value)
    return lambda: setattr(obj, name, old)


PARTS = {
    "the request line (LOG_LEVEL=WARNING)": lambda: root.setLevel(logging.WARNING) or (lambda: root.setLevel(logging.INFO)),
    "body read (request.get_data())": lambda: swap(http, "_read_body", lambda req, limit, deadline=None: req.get_data()),
    "JSON parse": lambda: swap(jsonrpc, "parse_json", lambda body: payload),
    "validation (the lean path)": lambda: swap(jsonrpc, "validate", lambda p: request),
    "trace fields (request_context)": lambda: swap(logs, "request_context", lambda *a: None),
    "arrivals count": lambda: (lambda undo1, undo2: lambda: (undo1(), undo2()))(
        swap(arrivals, "arrived", lambda: 0), swap(arrivals, "answered", lambda token: None)),
    "service.get (owner, store, kept text)": lambda: swap(service, "get", lambda params, call: result),
    "reply body (success_body)": lambda: swap(jsonrpc, "success_body", lambda rid, res: text),
}
for _ in range(300):
    call(get)
out = {"ours": statistics.median(per_call(get) for _ in range(rounds))}
for name, remove in PARTS.items():
    diffs = []
    for r in range(rounds):
        if r % 2:
            undo = remove(); without = per_call(get); undo(); full = per_call(get)
        else:
            full = per_call(get); undo = remove(); without = per_call(get); undo()
        diffs.append(full - without)
    out[name] = statistics.median(diffs)
sys.__stdout__.write(json.dumps(out) + "\n")
"""
)

FLOOR = """import functions_framework
from flask import Response

BODY = open(__file__.rsplit("/", 1)[0] + "/body.json", "rb").read()


@functions_framework.http
def fixed(request):
    request.get_data()
    return Response(BODY, 200, mimetype="application/json")
"""


def main() -> None:
    rounds, calls = os.environ.get("BENCH_ROUNDS", "9"), os.environ.get("BENCH_CALLS", "400")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOG_LEVEL", "CATALOG_URI"))}
    env.update(K_SERVICE="bench", PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "main.py").write_text(FLOOR)
        run = [sys.executable, "-c", CHILD]
        ours = json.loads(
            subprocess.run(
                [*run, "ours", "main.py", rounds, calls, tmp], cwd=ROOT, env=env, capture_output=True, check=True
            ).stdout
        )
        floor = json.loads(
            subprocess.run(
                [*run, "floor", str(Path(tmp, "main.py")), rounds, calls, tmp],
                cwd=tmp,
                env=env,
                capture_output=True,
                check=True,
            ).stdout
        )
    total, base = ours.pop("ours"), floor["floor"]
    print(
        f"in process, load {os.getloadavg()[0]:.1f}: ours {total:.1f} µs, floor {base:.1f} µs, gap {total - base:.1f} µs"
    )
    for name, cost in ours.items():
        print(f"  {name:42s} {cost:6.1f} µs")
    print(
        f"  {'the rest (Flask Response, headers hook, routing, CallContext)':42s} {total - base - sum(ours.values()):6.1f} µs"
    )


if __name__ == "__main__":
    main()
