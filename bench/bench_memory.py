"""Memory under large sends (#12 item 1): peak and settled RSS of a real functions-framework server.

150 sequential `message/send` requests, each a ~24 MiB JSON-RPC body (an ~18 MiB CSV attachment in
base64), every one in a new conversation (so every attached catalog is a candidate to be kept). The
server's resident memory (the process and its children: gunicorn's worker) is sampled every 50 ms.
Printed: the warm baseline (after a few small sends), the peak, the settled figure 10 s after the
last send, and the figure after the instance's idle period (IDLE_RELEASE_SECONDS, here BENCH_IDLE_S,
default 20 s) plus one small request — the request at which a quiet instance drops idle cache entries
and hands memory back (agent.service.reclaim) — with the server's own log line saying how much each
allocator step returned. Never asserted; the figures go to bench/README.md.

    .venv/bin/python bench/bench_memory.py            # BENCH_SENDS (150), BENCH_BODY_MIB (24)
    BENCH_KEEP=0 .venv/bin/python bench/bench_memory.py   # with CONTEXT_MAX_ATTACHED_BYTES=0
    BENCH_BUDGET_MIB=256 .venv/bin/python bench/bench_memory.py   # with MEMORY_BUDGET_BYTES = 256 MiB
    BENCH_IDLE_S=0 .venv/bin/python bench/bench_memory.py   # idle release off (IDLE_RELEASE_SECONDS=0)
    BENCH_ENV=STATE_MEMORY_BYTES=1048576 .venv/bin/python bench/bench_memory.py   # any agent setting
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.agent_server import settings  # noqa: E402  (BENCH_ENV's "KEY=value,KEY=value")
from tests.agent_process import AGENT_SETTINGS  # noqa: E402  (the agent's settings, derived from agent/config.py)

SENDS = int(os.environ.get("BENCH_SENDS", "150"))
BODY_MIB = float(os.environ.get("BENCH_BODY_MIB", "24"))
IDLE_S = int(os.environ.get("BENCH_IDLE_S", "20"))


def catalog(target_bytes: int) -> bytes:
    lines = ["id,title,price,brand,category,availability,color,description"]
    size, i = len(lines[0]) + 1, 0
    filler = "Weatherproof teak garden chair with stainless fittings and a ten-year warranty. " * 10
    while size < target_bytes:
        line = (
            f"P{i},Garden chair {i},{10 + i % 500}.99,Brand{i % 40},"
            f"Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs,"
            f'{"in stock" if i % 7 else "out of stock"},{["red", "blue", "teak"][i % 3]},"{filler}{i}"'
        )
        lines.append(line)
        size += len(line) + 1
        i += 1
    return ("\n".join(lines) + "\n").encode()


def rss_bytes(pid: int) -> int:
    """Resident set of `pid` and its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            with open(f"/proc/{p}/task/{p}/children") as fh:
                todo.extend(int(c) for c in fh.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0, False

    def run(self) -> None:
        while not self.stop:
            self.peak = max(self.peak, rss_bytes(self.pid))
            time.sleep(0.05)


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS)}  # every agent setting
    env.update({"PUBLIC_URL": url, "THREADS": "8", "LOG_LEVEL": "INFO", "IDLE_RELEASE_SECONDS": str(IDLE_S)})
    if os.environ.get("BENCH_BUDGET_MIB"):  # the one memory budget every cache and store is sized from
        env["MEMORY_BUDGET_BYTES"] = str(int(float(os.environ["BENCH_BUDGET_MIB"]) * 2**20))
    if os.environ.get("BENCH_KEEP") == "0":  # conversations keep no attached catalog: what remains is the rest
        env["CONTEXT_MAX_ATTACHED_BYTES"] = "0"
    env.update(settings(os.environ.get("BENCH_ENV", "")))  # any agent setting, as bench/agent_server.py takes them
    server_log = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={port}"],
        cwd=ROOT,
        env=env,
        stdout=server_log,
        stderr=server_log,
    )
    try:
        for _ in range(300):
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        data = base64.b64encode(catalog(int(BODY_MIB * 1024 * 1024 * 3 / 4) - 4096)).decode()
        client = httpx.Client(timeout=300)

        def send(parts: list[dict]) -> dict:
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "message/send",
                "params": {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}},
            }
            return client.post(url, json=body).json()

        for _ in range(5):
            send([{"kind": "text", "text": "What is in this catalog?"}])
        time.sleep(2)
        baseline = rss_bytes(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        errors, durations = 0, []
        for i in range(SENDS):
            started = time.perf_counter()
            answer = send(
                [
                    {"kind": "text", "text": "What is out of stock?"},
                    {"kind": "file", "file": {"bytes": data, "name": f"big-{i}.csv", "mimeType": "text/csv"}},
                ]
            )
            durations.append(time.perf_counter() - started)
            if answer.get("result", {}).get("status", {}).get("state") != "completed":
                errors += 1
            if (i + 1) % 25 == 0:
                print(
                    f"  {i + 1} sends, RSS now {rss_bytes(proc.pid) / 2**20:,.0f} MiB, peak {sampler.peak / 2**20:,.0f} MiB",
                    flush=True,
                )
        last_send = time.monotonic()
        time.sleep(10)
        settled = rss_bytes(proc.pid)
        after_idle, after_more, idle_request_s, next_request_s = 0, 0, 0.0, 0.0
        if IDLE_S:
            time.sleep(max(0.0, last_send + IDLE_S + 1 - time.monotonic()))
            started = time.perf_counter()
            send([{"kind": "text", "text": "What is in this catalog?"}])
            idle_request_s = time.perf_counter() - started
            time.sleep(2)
            after_idle = rss_bytes(proc.pid)
            started = time.perf_counter()
            send([{"kind": "text", "text": "What is in this catalog?"}])
            next_request_s = time.perf_counter() - started
            for _ in range(7):  # each request thread releases its own heap on its first request after a sweep
                send([{"kind": "text", "text": "What is in this catalog?"}])
            time.sleep(2)
            after_more = rss_bytes(proc.pid)
        sampler.stop = True
        durations.sort()
        mib = 2**20
        print(f"body {len(data) / mib:.1f} MiB of base64 per send, {SENDS} sends, errors {errors}")
        print(
            f"baseline (warm) RSS {baseline / mib:,.0f} MiB; peak {sampler.peak / mib:,.0f} MiB; "
            f"settled (10 s after) {settled / mib:,.0f} MiB ({(settled - baseline) / baseline:+.0%} of baseline)"
        )
        if IDLE_S:
            print(
                f"after the idle period ({IDLE_S} s) and one small request ({idle_request_s * 1000:.0f} ms; "
                f"the next one {next_request_s * 1000:.0f} ms): "
                f"{after_idle / mib:,.0f} MiB ({(after_idle - baseline) / baseline:+.0%} of baseline)"
            )
            print(
                f"after 8 more small requests: {after_more / mib:,.0f} MiB ({(after_more - baseline) / baseline:+.0%} of baseline)"
            )
            server_log.seek(0)
            for line in server_log:
                if "idle release" in line:
                    print("  server:", line.strip()[-220:])
        print(
            f"send p50 {durations[len(durations) // 2]:.2f} s, p95 {durations[int(len(durations) * 0.95)]:.2f} s, "
            f"max {durations[-1]:.2f} s"
        )
    finally:
        proc.terminate()
        try:
            proc.wait(60)  # gunicorn lets a busy worker finish first
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


if __name__ == "__main__":
    main()
