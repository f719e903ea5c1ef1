"""50 concurrent `message/stream` turns (#12 "How to show it"): first event and completion under load.

Starts the real agent (functions-framework on 127.0.0.1, THREADS=8 as deployed) on the bundled demo
catalog, opens BENCH_STREAMS (50) raw HTTP connections, releases them together on a barrier, and
has each ask a gaps question over `message/stream`, reading the SSE frames as they come. Repeated
BENCH_ROUNDS (3) times. Bounded: every stream has a BENCH_TIMEOUT (120 s) socket deadline and the whole
run stops after rounds × streams turns. Printed (never asserted): time to the first event and to the
final frame, p50/p95/max, and the errors (HTTP status other than 200, a JSON-RPC error frame, a final
state other than `completed`, no final frame, a socket error or timeout) — target 0.

    .venv/bin/python bench/bench_concurrency.py
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_server import AgentServer, message, post, rpc, spread, sse_events  # noqa: E402

STREAMS = int(os.environ.get("BENCH_STREAMS", "50"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
TIMEOUT = float(os.environ.get("BENCH_TIMEOUT", "120"))
QUESTIONS = (
    "Where are the gaps in outdoor furniture?",
    "What gaps are there in the garden tools?",
    "Where are the gaps in the catalog?",
    "Which categories have gaps in lighting?",
)


def one_stream(server: AgentServer, barrier: threading.Barrier, i: int, out: list) -> None:
    """One turn: (first-event seconds, completion seconds, error or None)."""
    conn = server.connection(timeout=TIMEOUT)
    try:
        conn.connect()
        body = rpc(
            "message/stream",
            message([{"kind": "text", "text": QUESTIONS[i % len(QUESTIONS)]}], str(uuid.uuid4())),
            rid=i,
        )
        barrier.wait(timeout=TIMEOUT)
        started = time.perf_counter()
        response = post(conn, body)
        if response.status != 200:
            out[i] = (None, None, f"HTTP {response.status}")
            return
        first = final = None
        state = None
        for event in sse_events(response):
            if first is None:
                first = time.perf_counter() - started
            if "error" in event:
                out[i] = (first, None, f"JSON-RPC error {event['error'].get('code')}")
                return
            result = event.get("result", {})
            if result.get("kind") == "status-update" and result.get("final"):
                final = time.perf_counter() - started
                state = result.get("status", {}).get("state")
        if final is None:
            out[i] = (first, None, "no final frame")
        elif state != "completed":
            out[i] = (first, final, f"final state {state}")
        else:
            out[i] = (first, final, None)
    except Exception as exc:  # a timeout or reset counts as an error, with its kind
        out[i] = (None, None, type(exc).__name__)
    finally:
        conn.close()


def main() -> None:
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs", flush=True)
    server = AgentServer()
    try:
        warm = server.connection()  # each question once first, so the demo catalog is loaded and cached
        for question in QUESTIONS:
            for _ in sse_events(
                post(warm, rpc("message/stream", message([{"kind": "text", "text": question}], str(uuid.uuid4()))))
            ):
                pass
        warm.close()
        rss_before = server.rss()
        # The same turns one at a time first: the sum of single-stream times is what a burst is held to
        singles: list[float] = []
        for i in range(STREAMS):
            out1: list = [None] * STREAMS
            one_stream(server, threading.Barrier(1), i, out1)
            if out1[i] and out1[i][1] is not None:
                singles.append(out1[i][1])
        firsts: list[float] = []
        bursts: list[float] = []
        finals: list[float] = []
        errors: dict[str, int] = {}
        wall_started = time.perf_counter()
        for round_no in range(ROUNDS):
            out: list = [None] * STREAMS
            barrier = threading.Barrier(STREAMS)
            threads = [
                threading.Thread(target=one_stream, args=(server, barrier, i, out), daemon=True) for i in range(STREAMS)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(TIMEOUT * 2)
            bursts.append(max((o[1] for o in out if o and o[1] is not None), default=float("nan")))
            for item in out:
                first, final, error = item if item else (None, None, "thread did not finish")
                if first is not None:
                    firsts.append(first)
                if final is not None and error is None:
                    finals.append(final)
                if error:
                    errors[error] = errors.get(error, 0) + 1
            print(
                f"  round {round_no + 1}: first event {spread([o[0] for o in out if o and o[0] is not None])}",
                flush=True,
            )
        wall = time.perf_counter() - wall_started
        total = STREAMS * ROUNDS
        print(
            f"{total} streams ({ROUNDS} round(s) of {STREAMS} concurrent), THREADS={server.threads}, wall {wall:.1f} s"
        )
        print(f"first event: {spread(firsts)}")
        print(f"completion:  {spread(finals)}")
        print(f"errors: {sum(errors.values())} {errors if errors else ''}".rstrip())
        total_single = sum(singles)
        print(
            f"one at a time: {len(singles)} streams, sum {total_single * 1000:.0f} ms (median {sorted(singles)[len(singles) // 2] * 1000:.1f} ms); "
            f"burst of {STREAMS} (first request to last final frame), per round: "
            + ", ".join(f"{b * 1000:.0f} ms ({b / total_single:.2f}x the sum)" for b in bursts)
        )
        print(
            f"server RSS before {rss_before / 2**20:,.0f} MiB, after {server.rss() / 2**20:,.0f} MiB; "
            f"alive {server.alive()}"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
