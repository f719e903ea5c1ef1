"""Give memory back to the system after a turn that parsed a large attachment.

Parsing a 24 MiB CSV makes Arrow's allocator (mimalloc) and glibc's malloc grow their heaps; both keep
freed pages for reuse, so an instance that served a few large files stays hundreds of MiB above its
warm size although nothing holds that memory (bench/bench_memory.py). Returning it once the turn is
over keeps the instance's resident size close to what the bounded caches and stores really hold.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

LARGE_TURN_BYTES = 1024 * 1024  # below this, what a turn allocated is not worth a trim


@functools.cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def after_turn(attached_bytes: int) -> None:
    """Return unused allocator memory after a large turn (cheap no-op after a small one)."""
    if attached_bytes < LARGE_TURN_BYTES:
        return
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - best effort; memory stays bounded without it, just less tight
        pass
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
