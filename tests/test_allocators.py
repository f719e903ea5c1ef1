"""The allocator choices made at start (agent.service.reclaim.configure_allocators, issue 12 item 1): Arrow's
pool is glibc's malloc unless the operator named another, and glibc's thresholds stay fixed after a large
block is freed. Each check runs in a fresh interpreter, because both are process-wide and are set
once; each also runs the same steps without the choice, so the check is seen to fail without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env

ROOT = Path(__file__).resolve().parents[1]

POOL = """
import json, sys
from agent.app import get_app_state
get_app_state()  # what main.py does at import
import pyarrow as pa
print(json.dumps(pa.default_memory_pool().backend_name))
"""

# glibc raises its mmap threshold to the size of a mapped block when it is freed, and its trim threshold to
# twice that; a 20 MiB block then comes from the heap and, freed, stays there (the heap's `arena` bytes keep
# it) unless the thresholds are fixed, when the freed top of the heap goes back to the system at once.
THRESHOLD = """
import ctypes, json, sys
libc = ctypes.CDLL("libc.so.6")
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc.mallinfo2.restype = Info
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "configured":
    from agent.service import reclaim
    reclaim.configure_allocators()
libc.free(libc.malloc(24 << 20))
before = libc.mallinfo2().arena
block = libc.malloc(20 << 20)
ctypes.memset(block, 1, 20 << 20)
libc.free(block)
print(json.dumps((libc.mallinfo2().arena - before) >> 20))  # MiB the heap kept of the freed block
"""


def _run(code: str, *args: str, **env: str) -> object:
    environment = clean_env(**env)
    environment.pop("ARROW_DEFAULT_MEMORY_POOL", None)
    environment.update(env)
    out = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_started_agent_parses_catalogs_with_the_system_allocator():
    assert _run(POOL) == "system"


def test_the_operators_pool_choice_is_kept():
    assert _run(POOL, ARROW_DEFAULT_MEMORY_POOL="mimalloc") == "mimalloc"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt and mallinfo2")
def test_a_large_block_freed_goes_back_to_the_system_at_once():
    assert _run(THRESHOLD, "plain") >= 19  # dynamic thresholds: the heap keeps the freed 20 MiB
    assert _run(THRESHOLD, "configured") < 1  # fixed: the freed top of the heap is trimmed as it is freed
