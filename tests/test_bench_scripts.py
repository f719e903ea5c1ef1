"""Every bench/ script still loads: its imports of the test harness resolve.

The benchmarks run on demand, never in the suite, so a rename in tests/ (conftest's helpers moved to
tests/agent_process.py this round) broke two of them without any test noticing. Each script is loaded
in a fresh interpreter under a name other than "__main__", so nothing is measured or started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "bench").glob("*.py"))

LOAD = "import runpy, sys; sys.path.insert(0, 'bench'); runpy.run_path(sys.argv[1], run_name='bench_load_check')"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_loads(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_there_are_bench_scripts() -> None:
    assert len(SCRIPTS) >= 10
