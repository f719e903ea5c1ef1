"""A soak of mixed requests at a bounded rate (#12 "How to show it"): latency, errors and server memory.

Starts the real agent (functions-framework on 127.0.0.1, THREADS=8 as deployed) on the bundled demo
catalog and, for BENCH_SECONDS (300), sends BENCH_RATE (10) requests a second on a fixed schedule from
BENCH_CLIENTS (4) kept-alive raw HTTP connections. The kinds take turns, in this order:

- `send`: `message/send`, a question about the demo catalog — expects a `completed` task;
- `stream`: `message/stream`, a gaps question — expects SSE frames ending in a final `completed`;
- `get`: `tasks/get` of a task an earlier request created — expects that task back;
- `attach`: `message/send` with a small real export from tests/corpus/seed/ inline (the three under
  20 KB, in turn) — expects `completed`;
- `followup`: `message/send` in an earlier attach's context without a file — expects `completed`
  (answered from the attached catalog);
- `malformed`: a body that is not JSON — expects HTTP 200 and JSON-RPC error -32700.

Bounded: it stops by itself after BENCH_SECONDS (requests not started by then are not sent) and
every request has a BENCH_TIMEOUT (60 s) socket deadline. The schedule is open-loop (request n is due
at n / rate), so a slow server shows up as latency, not as a lower rate. Server RSS (the process and
its worker) is sampled every 0.5 s. Printed, never asserted: count, p50/p95/max overall and per kind,
errors (target 0), RSS at start (after warm-up), peak, end (5 s after the last request).

    .venv/bin/python bench/bench_soak.py            # BENCH_SECONDS=60 for a short run
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_server import AgentServer, message, post, rpc, spread, sse_events  # noqa: E402

SECONDS = float(os.environ.get("BENCH_SECONDS", "300"))
RATE = float(os.environ.get("BENCH_RATE", "10"))
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "4"))
TIMEOUT = float(os.environ.get("BENCH_TIMEOUT", "60"))
SEED = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "seed"
KINDS = ("send", "stream", "get", "attach", "followup", "malformed")
QUESTIONS = (
    "What is in this catalog?",
    "What is out of stock?",
    "Where are the gaps in outdoor furniture?",
    "Which products are missing a brand?",
)


def seed_files() -> list[tuple[str, str]]:
    """(name, base64) of the small real exports: every seed CSV under 20 KB."""
    files = sorted(p for p in SEED.glob("*.csv") if p.stat().st_size < 20_000)
    return [(p.name, base64.b64encode(p.read_bytes()).decode()) for p in files]


class Shared:
    """Task and context ids earlier requests created, for `get` and `followup`."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tasks: list[str] = []
        self.contexts: list[str] = []

    def add(self, kind: str, task: dict) -> None:
        with self.lock:
            self.tasks = [*self.tasks[-99:], task["id"]]
            if kind == "attach":
                self.contexts = [*self.contexts[-19:], task["contextId"]]

    def pick(self, n: int, which: str) -> str | None:
        with self.lock:
            pool = self.tasks if which == "tasks" else self.contexts
            return pool[n % len(pool)] if pool else None


def body_for(kind: str, n: int, shared: Shared, files: list[tuple[str, str]]) -> tuple[bytes, str | None]:
    """The request body of request n, and the task id a `get` expects back."""
    text = {"kind": "text", "text": QUESTIONS[n % len(QUESTIONS)]}
    if kind == "send":
        return rpc("message/send", message([text], str(uuid.uuid4())), n), None
    if kind == "stream":
        gaps = {"kind": "text", "text": "Where are the gaps in outdoor furniture?"}
        return rpc("message/stream", message([gaps], str(uuid.uuid4())), n), None
    if kind == "get":
        task_id = shared.pick(n, "tasks")
        if task_id:
            return rpc("tasks/get", {"id": task_id}, n), task_id
        return rpc("message/send", message([text], str(uuid.uuid4())), n), None
    if kind == "attach":
        name, data = files[n % len(files)]
        part = {"kind": "file", "file": {"name": name, "mimeType": "text/csv", "bytes": data}}
        return rpc("message/send", message([text, part], str(uuid.uuid4())), n), None
    if kind == "followup":
        context = shared.pick(n, "contexts")
        return rpc("message/send", message([text], str(uuid.uuid4()), context), n), None
    return b'{"jsonrpc": "2.0", "id": ' + str(n).encode() + b', "method": "message/send", "params": {', None


def check(kind: str, response, expected_task: str | None, shared: Shared) -> str | None:
    """None if the answer is what `kind` should get, else what went wrong."""
    if response.status != 200:
        response.read()
        return f"HTTP {response.status}"
    if kind == "stream":
        state = None
        for event in sse_events(response):
            if "error" in event:
                return f"stream error {event['error'].get('code')}"
            result = event.get("result", {})
            if result.get("kind") == "task":
                shared.add(kind, result)
            if result.get("kind") == "status-update" and result.get("final"):
                state = result.get("status", {}).get("state")
        return None if state == "completed" else f"stream final {state}"
    reply = json.loads(response.read())
    if kind == "malformed":
        code = reply.get("error", {}).get("code")
        return None if code == -32700 else f"malformed got {code}"
    if "error" in reply:
        return f"{kind} error {reply['error'].get('code')}"
    result = reply.get("result", {})
    if expected_task is not None:
        return None if result.get("id") == expected_task else f"get returned {result.get('id')}"
    state = result.get("status", {}).get("state")
    if state != "completed":
        return f"{kind} state {state}"
    shared.add(kind, result)
    return None


class Sampler(threading.Thread):
    def __init__(self, server: AgentServer) -> None:
        super().__init__(daemon=True)
        self.server, self.peak, self.done = server, 0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.peak = max(self.peak, self.server.rss())
            self.done.wait(0.5)


def main() -> None:
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs", flush=True)
    files = seed_files()
    server = AgentServer()
    shared = Shared()
    try:
        warm = server.connection()
        for n, kind in enumerate(("send", "attach", "stream")):  # load the demo catalog and the parsers once
            body, expected = body_for(kind, n, shared, files)
            check(kind, post(warm, body), expected, shared)
        warm.close()
        time.sleep(1)
        rss_start = server.rss()
        sampler = Sampler(server)
        sampler.start()
        total = int(SECONDS * RATE)
        counter = iter(range(total))
        counter_lock = threading.Lock()
        latencies: dict[str, list[float]] = {k: [] for k in KINDS}
        errors: dict[str, int] = {}
        record_lock = threading.Lock()
        t0 = time.perf_counter()
        deadline = t0 + SECONDS

        def worker() -> None:
            conn = server.connection(timeout=TIMEOUT)
            while True:
                with counter_lock:
                    n = next(counter, None)
                if n is None:
                    break
                due = t0 + n / RATE
                if due >= deadline:
                    break
                time.sleep(max(0.0, due - time.perf_counter()))
                kind = KINDS[n % len(KINDS)]
                body, expected = body_for(kind, n, shared, files)
                started = time.perf_counter()
                try:
                    error = check(kind, post(conn, body), expected, shared)
                except Exception as exc:  # timeout, reset, bad JSON: an error of its kind, then a new connection
                    error = f"{kind} {type(exc).__name__}"
                    conn.close()
                    conn = server.connection(timeout=TIMEOUT)
                elapsed = time.perf_counter() - started
                with record_lock:
                    latencies[kind].append(elapsed)
                    if error:
                        errors[error] = errors.get(error, 0) + 1
            conn.close()

        workers = [threading.Thread(target=worker, daemon=True) for _ in range(CLIENTS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(SECONDS + TIMEOUT * 2)
        wall = time.perf_counter() - t0
        time.sleep(5)
        rss_end = server.rss()
        sampler.done.set()
        sampler.join()
        everything = [x for values in latencies.values() for x in values]
        mib = 2**20
        load = os.getloadavg()
        print(
            f"{len(everything)} requests in {wall:.1f} s ({len(everything) / wall:.1f}/s, target {RATE:g}/s), "
            f"{CLIENTS} clients, THREADS=8"
        )
        print(f"all:       {spread(everything)}")
        for kind in KINDS:
            print(f"{kind + ':':10} n={len(latencies[kind]):5}  {spread(latencies[kind])}")
        print(f"errors: {sum(errors.values())} {errors if errors else ''}".rstrip())
        print(
            f"server RSS start {rss_start / mib:,.0f} MiB, peak {max(sampler.peak, rss_end) / mib:,.0f} MiB, "
            f"end {rss_end / mib:,.0f} MiB (5 s after the last request); alive {server.alive()}"
        )
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
