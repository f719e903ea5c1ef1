"""The real agent as a process: `functions-framework --target=a2a` on a free loopback port.

One way to start it, shared by the tests (`tests/conftest.py`'s `Server`, which keeps what it printed)
and the long benches (`bench/agent_server.py`'s `AgentServer`, which measures its memory). It lives
with the test harness because that is what it is: bench/ already builds on tests/ (the emulators,
`tests.conftest.Server`, `tests.bq_seed`), and tests never import bench. Standard library only, so a
bench needs no client library to start it.
"""

from __future__ import annotations

import ast
import http.client
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]

# Settings a process also reads besides agent/config.py's: what Cloud Run sets (K_SERVICE switches the
# logs to JSON; config.py reads it too), the PUBLIC_URL/THREADS every start sets itself, and what the
# Google clients and the test hooks read (a developer's emulator host or project never leaks in).
_ALSO_STRIPPED = (
    "K_SERVICE",
    "PUBLIC_URL",
    "THREADS",
    "GOOGLE_CLOUD_PROJECT",
    "STORAGE_EMULATOR_HOST",
    "TEST_STEP_GATE",
    "PREVIEW",
)


def config_settings(source: Path = ROOT / "agent" / "config.py") -> tuple[str, ...]:
    """Every environment variable agent/config.py reads, found in its source: the first string argument of
    `env.get(...)`/`os.environ.get(...)` and the string passed after `env` to its parsers (`_int(env,
    "THREADS", ...)`). Read from the source rather than listed by hand so that a new setting is stripped
    from the developer's shell the day it is added (tests/test_agent_process.py checks this against what
    `config.load` really asks for); parsed rather than imported so a bench needs no agent dependency."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        args = node.args
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and args:
            names.update(_setting_name(args[0]))
        for index, arg in enumerate(args[:-1]):
            if isinstance(arg, ast.Name) and arg.id == "env":
                names.update(_setting_name(args[index + 1]))
    return tuple(sorted(names))


def _setting_name(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"[A-Z][A-Z0-9_]+", node.value):
        return [node.value]
    return []


# The agent's own settings: never inherited from the developer's shell, so a test or a bench sees the
# defaults unless it sets one (used with str.startswith, so an exact name strips only itself and longer
# spellings of it).
AGENT_SETTINGS = tuple(sorted(set(config_settings()) | set(_ALSO_STRIPPED)))
CARD_PATH = "/.well-known/agent-card.json"


def free_port() -> int:
    """A loopback port that was free a moment ago (the process binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agent_environment(url: str, threads: int, env: dict[str, str] | None) -> dict[str, str]:
    """The process environment: the shell's without the agent's settings, then PUBLIC_URL, THREADS, `env`."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS)}
    full.update({"PUBLIC_URL": url, "THREADS": str(threads), "PYTHONUNBUFFERED": "1"})
    full.update(env or {})
    return full


class AgentProcess:
    """A started agent: `port`, `url` and `proc`; ready (its card answers 200) when the constructor returns."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        threads: int = 8,
        output: IO[bytes] | int = subprocess.DEVNULL,
        ready_timeout: float = 30.0,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.threads = threads
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={self.port}"],
            cwd=ROOT,
            env=agent_environment(self.url, threads, env),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready(ready_timeout)

    def output(self) -> str:
        """What the process printed, where it is kept (nothing here: a subclass keeps a log)."""
        return ""

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start:\n" + self.output())
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                try:
                    conn.request("GET", CARD_PATH)
                    if conn.getresponse().status == 200:
                        return
                finally:
                    conn.close()
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not start:\n" + self.output())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
