"""The process heap: glibc's `malloc_trim`, for the two places that hand freed pages back.

Arrow's pool is glibc's malloc as deployed (`service.reclaim.configure_allocators`), so every buffer a
parse frees goes back to glibc's heaps, which keep the pages resident for reuse. `service.reclaim`
trims after a large turn and after an idle sweep; the ingest trims once between a large file's read
and its normalisation (`after_read`). One loader of the C library for both (this module).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from concurrent.futures import Future
from typing import Any

from agent.config import DEFAULT_MEMORY_BUDGET_BYTES

# Below this, a file's read leaves too little freed memory to be worth a trim (which walks every arena).
TRIM_AFTER_READ_BYTES = 16 * 1024 * 1024
# A CSV read is trimmed once the file is this share of the instance's memory (MEMORY_BUDGET_BYTES) or
# more: its parse then peaks near the instance's limit (a 1M-variant CSV file grows the process by
# ~2.5× its size), where the eighth of the peak a trim saves counts for more than its time.
CSV_TRIM_SHARE = 0.2
_BUDGET = [DEFAULT_MEMORY_BUDGET_BYTES]


def configure(memory_budget_bytes: int) -> None:
    """The instance's memory (`Config.memory_budget_bytes`); called once by `service.handler.Service`."""
    _BUDGET[0] = memory_budget_bytes


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


def after_read(file_bytes: int, rows: int, csv: bool = False) -> Future | None:
    """After a large file's read and before its normalisation: trim, on the ingest pool.

    Why: the read frees a lot as it ends (a Parquet file's row-group pieces once combined, a CSV's
    per-block dictionaries once unified and the reader's working buffers), and those freed pages stay
    resident in the arenas of the threads that freed them while the normalisation allocates the
    canonical columns anew, so the ingest's peak is the read's leftovers plus the table. Measured in
    fresh processes (bench/README.md, round 11):
    - Parquet: the peak of a 1M-row ingest drops 569 -> 543 MiB and of a 5M one 2,170 -> 2,032 MiB,
      below the bare `pyarrow.parquet.read_table`'s, for +1-2 % of the time (pages the normalisation
      then reuses are faulted in again). Every Parquet file from TRIM_AFTER_READ_BYTES on that is
      normalised is trimmed (a canonical table, `ingest._read_canonical`, has no normalisation).
    - CSV: the peak drops by an eighth (1M 0.90 -> 0.77 GiB, 5M 3.9 -> 3.45 GiB), but the re-faults
      cost a 1M-2.5M-row ingest 3-5 % (at 5M it was 18 % faster instead, not explained yet). Decision:
      a CSV is trimmed only when the file is CSV_TRIM_SHARE of the instance's memory or more, where
      its peak threatens the instance (a 2 GiB instance: files from ~410 MB, ~1.8M Shopify variants).
    The trim runs as a pool job beside the normalisation's first steps, not on this thread, and
    nothing waits for it.
    """
    if file_bytes < TRIM_AFTER_READ_BYTES or libc() is None:
        return None
    if csv and file_bytes < CSV_TRIM_SHARE * _BUDGET[0]:
        return None
    from agent.catalog.parallel import submit

    return submit(trim, rows)  # (the future: for a test to wait on)
