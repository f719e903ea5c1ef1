"""A test-only hold point, so tests that need a run "in the middle" never race the run.

Active only when TEST_STEP_GATE names a folder (agent.config reads it; production never sets it).
At the gate — right after the `working` frame, before the first cancel check — the run writes
`<folder>/<task id>.held` and waits until `<folder>/<task id>.release` exists or the task's cancel
flag is set (at most `timeout` seconds, then it goes on, so a broken test cannot hang a server for
ever). A test sees the run held, does what it needs (a cross-instance cancel, a resubscribe…), and the
run goes on at a moment the test chose.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

HELD, RELEASE = ".held", ".release"
POLL_S = 0.01


def hold(folder: str | None, task_id: str, canceled: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait at the gate for this task's release (file or cancel); returns at once without a gate."""
    if not folder:
        return
    base = Path(folder)
    (base / (task_id + HELD)).write_bytes(b"")
    release = base / (task_id + RELEASE)
    deadline = time.monotonic() + timeout
    while not release.exists() and not canceled() and time.monotonic() < deadline:
        time.sleep(POLL_S)
