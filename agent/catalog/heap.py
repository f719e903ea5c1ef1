"""The process heap: glibc's `malloc_trim`, for the two places that hand freed pages back.

Arrow's pool is glibc's malloc as deployed (`service.reclaim.configure_allocators`), so every buffer a
parse frees goes back to glibc's heaps, which keep the pages resident for reuse. `service.reclaim`
trims after a large turn and after an idle sweep; the Parquet ingest trims once between a large
file's read and its normalisation (`after_read`). One loader of the C library for both (this module).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from concurrent.futures import Future
from typing import Any

# Below this, a file's read leaves too little freed memory to be worth a trim (which walks every arena).
TRIM_AFTER_READ_BYTES = 16 * 1024 * 1024


@functools.cache
def libc() -> Any:
    """The C library, or None where it cannot be loaded or has no `malloc_trim` (not glibc)."""
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return lib if lib is not None and hasattr(lib, "malloc_trim") else None


def trim() -> None:
    """Return the free pages of every glibc arena to the system (no-op without glibc)."""
    lib = libc()
    if lib is not None:
        lib.malloc_trim(0)


def after_read(file_bytes: int, rows: int) -> Future | None:
    """After a large Parquet file's read and before its normalisation: trim, on the ingest pool.

    Why: the read frees its row groups' pieces as it combines them, and those freed pages stay
    resident in the arenas of the threads that freed them while the normalisation allocates the
    canonical columns anew, so the ingest's peak is the read's leftovers plus the table. Trimmed, the
    peak of a fresh process's 1M-row Parquet ingest drops 569 -> 543 MiB and of a 5M one 2,170 ->
    2,032 MiB, below the bare `pyarrow.parquet.read_table`'s (bench/README.md, round 11), for
    +1-2 % of the ingest's time: pages the normalisation then reuses are faulted in again. The trim
    runs as a pool job beside the normalisation's first steps, not on this thread, and nothing waits
    for it. Decision: CSV reads are not trimmed. Their peak is already below the bare reader's, and
    the re-faults cost a 1M-2.5M-row CSV ingest 3-5 % (measured; at 5M rows the trim instead saved
    18 % of the time and 470 MiB of peak, not explained yet: round 11's note).
    """
    if file_bytes < TRIM_AFTER_READ_BYTES or libc() is None:
        return None
    from agent.catalog.parallel import submit

    return submit(trim, rows)  # (the future: for a test to wait on)
