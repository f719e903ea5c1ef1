"""50 concurrent `message/stream` turns (#12 "How to show it"): first event and completion under load.

Starts the real agent (functions-framework on 127.0.0.1, THREADS=8 as deployed) on the bundled demo
catalog, opens BENCH_STREAMS (50) raw HTTP connections, releases them together on a barrier, and
has each ask a gaps question over `message/stream`, reading the SSE frames as they come. Repeated
BENCH_ROUNDS (3) times, each round the same turns one at a time first (their sum is what the burst is held
to, taken next to it in time). BENCH_THREADS sets the server's threads, BENCH_ENV its settings, BENCH_PAIR a
second server's settings asked in alternating rounds (see `main`), BENCH_REFERENCE=1 adds the a2a-sdk
reference server as a third side (the anchor: first events with no analysis behind them). Bounded: every stream has a BENCH_TIMEOUT (120 s) socket deadline and the whole
run stops after rounds × streams turns. Printed (never asserted): time to the first event and to the
final frame, p50/p95/max, and the errors (HTTP status other than 200, a JSON-RPC error frame, a final
state other than `completed`, no final frame, a socket error or timeout) — target 0.

    BENCH_STREAMS=32 BENCH_THREADS=32 BENCH_PAIR="FIRST_FRAME_WAIT_MS=0,RESULT_MEMO_ENTRIES=0" \
        .venv/bin/python bench/bench_concurrency.py
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_server import AgentServer, message, percentile, post, rpc, settings, spread, sse_events  # noqa: E402

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


def warm_up(server: AgentServer) -> None:
    """Each question once, so the demo catalog is loaded and cached (and, with the memo, each answer kept)."""
    warm = server.connection()
    for question in QUESTIONS:
        for _ in sse_events(
            post(warm, rpc("message/stream", message([{"kind": "text", "text": question}], str(uuid.uuid4()))))
        ):
            pass
    warm.close()


def singles(server: AgentServer) -> float:
    """The same turns one at a time: the sum of single-stream times a burst is held to."""
    total = 0.0
    for i in range(STREAMS):
        out1: list = [None] * STREAMS
        one_stream(server, threading.Barrier(1), i, out1)
        if out1[i] and out1[i][1] is not None:
            total += out1[i][1]
    return total


def burst(server: AgentServer) -> list:
    """One round of STREAMS concurrent streams released together: (first, final, error) per stream."""
    out: list = [None] * STREAMS
    barrier = threading.Barrier(STREAMS)
    threads = [threading.Thread(target=one_stream, args=(server, barrier, i, out), daemon=True) for i in range(STREAMS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT * 2)
    return [item if item else (None, None, "thread did not finish") for item in out]


class Side:
    """One configuration's figures over the rounds: first events, completions, bursts, sums, errors."""

    def __init__(self, name: str, server: AgentServer) -> None:
        self.name, self.server = name, server
        self.firsts: list[float] = []
        self.finals: list[float] = []
        self.p95s: list[float] = []
        self.ratios: list[float] = []
        self.errors: dict[str, int] = {}

    def round(self, round_no: int) -> None:
        """Singles, then the burst, back to back: the burst's ratio to the sum is paired in time."""
        total_single = singles(self.server)
        out = burst(self.server)
        span = max((o[1] for o in out if o[1] is not None), default=float("nan"))
        firsts = [o[0] for o in out if o[0] is not None]
        self.firsts += firsts
        self.finals += [o[1] for o in out if o[1] is not None and o[2] is None]
        for _, _, error in out:
            if error:
                self.errors[error] = self.errors.get(error, 0) + 1
        self.p95s.append(percentile(firsts, 0.95) if firsts else float("nan"))
        self.ratios.append(span / total_single if total_single else float("nan"))
        print(
            f"  {self.name} round {round_no + 1}: first event {spread(firsts)}; burst {span * 1000:.0f} ms, "
            f"sum of singles {total_single * 1000:.0f} ms ({self.ratios[-1]:.2f}x)",
            flush=True,
        )

    def report(self) -> None:
        print(f"{self.name} ({self.server.settings}): THREADS={self.server.threads}")
        print(
            f"  first event: {spread(self.firsts)}; p95 per round median {statistics.median(self.p95s) * 1000:.1f} ms"
        )
        print(f"  completion:  {spread(self.finals)}")
        print(f"  burst / sum of singles, per round: {', '.join(f'{r:.2f}x' for r in self.ratios)}")
        print(f"  errors: {sum(self.errors.values())} {self.errors if self.errors else ''}".rstrip())


class ReferenceServer:
    """The a2a-sdk reference server (bench/reference_server.py: Starlette + uvicorn, an executor that
    answers at once) as a burst's anchor: what 32 concurrent first events cost with no analysis at all."""

    threads = "uvicorn (one event loop)"
    settings: dict[str, str] = {}

    def __init__(self) -> None:
        import subprocess

        from bench_protocol import wait_ready

        from tests.agent_process import free_port

        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve().parent / "reference_server.py"), str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_ready(self.port, "/.well-known/agent-card.json")

    def connection(self, timeout: float = 120):
        import http.client

        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def rss(self) -> int:
        import psutil

        return psutil.Process(self.proc.pid).memory_info().rss

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def main() -> None:
    """BENCH_PAIR (settings as BENCH_ENV spells them, e.g. "FIRST_FRAME_WAIT_MS=0,RESULT_MEMO_ENTRIES=0"):
    a second server with them beside the first, asked in alternating rounds, so both see the same load."""
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs", flush=True)
    pair = os.environ.get("BENCH_PAIR")
    sides: list[Side] = []
    try:
        sides.append(Side("this", AgentServer()))
        if pair is not None:
            sides.append(Side("pair", AgentServer(env=settings(pair))))
        if os.environ.get("BENCH_REFERENCE"):
            sides.append(Side("reference", ReferenceServer()))  # type: ignore[arg-type]
        for side in sides:
            warm_up(side.server)
        rss_before = [side.server.rss() for side in sides]
        for round_no in range(ROUNDS):
            for side in sides if round_no % 2 == 0 else sides[::-1]:
                side.round(round_no)
        for side, before in zip(sides, rss_before):
            side.report()
            print(
                f"  server RSS before {before / 2**20:,.0f} MiB, after {side.server.rss() / 2**20:,.0f} MiB; "
                f"alive {side.server.alive()}"
            )
        for other in sides[1:]:
            paired = [a / b for a, b in zip(sides[0].p95s, other.p95s)]
            print(
                f"first-event p95, this / {other.name}, per round: {', '.join(f'{r:.2f}x' for r in paired)} "
                f"(median {statistics.median(paired):.2f}x)"
            )
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        for side in sides:
            side.server.stop()


if __name__ == "__main__":
    main()
