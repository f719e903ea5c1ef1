"""The Makefile's promises to a newcomer: `make run PORT=…` serves there and advertises that address,
`make test` runs the linters (ruff check, ruff format --check, mypy) before pytest, and `make lock`
regenerates the hashed lock from the human-edited list."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.agent_process import AGENT_SETTINGS, free_port
from tests.conftest import ROOT

VENV = Path(sys.prefix)  # the venv this suite runs in: `make` is told to use it, never to build one


def make(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", f"VENV={VENV}", *args], cwd=ROOT, capture_output=True, text=True, **kw
    )


def test_make_test_lints_first():
    """`make -n test` (print, run nothing): ruff check, ruff format --check and mypy come before pytest."""
    # -o: take the installed venv as up to date, so the listing holds the commands and no pip install
    printed = make("-n", "-o", f"{VENV}/.dev", "-o", f"{VENV}/bqemu/.ready", "test", timeout=60)
    assert printed.returncode == 0, printed.stderr
    lines = printed.stdout.splitlines()
    order = [
        next(i for i, line in enumerate(lines) if needle in line)
        for needle in ("ruff check .", "ruff format --check .", "mypy", "-m pytest")
    ]
    assert order == sorted(order), lines


def test_make_run_port_serves_there_and_the_card_says_so():
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS) and k != "PUBLIC_URL"}
    proc = subprocess.Popen(
        ["make", "--no-print-directory", f"VENV={VENV}", "-o", f"{VENV}/.runtime", "run", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # make and the server it starts: one process group, ended together below
    )
    try:
        card = None
        deadline = time.monotonic() + 60
        while card is None and time.monotonic() < deadline:
            assert proc.poll() is None, "make run exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/agent-card.json", timeout=2) as r:
                    card = json.loads(r.read())
            except OSError:
                time.sleep(0.1)
        assert card is not None, "make run did not serve on the port it was given"
        assert card["url"] == f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)


def test_make_lock_regenerates_the_hashed_lock_from_requirements_in():
    printed = make("-n", "-o", f"{VENV}/.dev", "lock", timeout=60)
    assert printed.returncode == 0, printed.stderr
    joined = printed.stdout.replace("\\\n", " ")  # the recipe continues its line with a backslash
    command = next(line for line in joined.splitlines() if "pip-compile" in line)
    for part in ("--generate-hashes", "--output-file=requirements.txt", "requirements.in"):
        assert part in command, part
