"""One line per run: our 1M-row ingest and a bare pyarrow read in one process under one allocator choice.

Why: the allocator choice made at start (agent.service.reclaim.configure_allocators) is process-wide, so
each choice gets a fresh interpreter; run the modes in rotation and compare the medians (bench/README.md,
"Settled memory: the allocators").

    .venv/bin/python bench/bench_allocators.py deployed bench/out/catalog-1m.parquet
    .venv/bin/python bench/bench_allocators.py default  bench/out/catalog-1m.parquet   # mimalloc, dynamic
    .venv/bin/python bench/bench_allocators.py system   bench/out/catalog-1m.parquet   # system pool only
    THR=1 .venv/bin/python bench/bench_allocators.py systhr bench/out/catalog-1m.parquet  # + fixed THR MiB
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def choose(mode: str) -> None:
    """Make the allocator choice `mode` names, before pyarrow is imported."""
    if mode == "deployed":
        from agent.service import reclaim

        reclaim.configure_allocators()
    if mode in ("system", "systhr"):
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    if mode == "systhr":
        from agent.catalog import heap

        heap.libc().mallopt(-3, int(os.environ.get("THR", "1")) << 20)


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    choose(mode)
    import bench_ingest
    import pyarrow as pa

    ours, _ = bench_ingest.our_reader()
    assert ours is not None
    data = Path(path).read_bytes()
    name = Path(path).name
    bare = bench_ingest.bare_parquet if name.endswith(".parquet") else bench_ingest.bare_csv
    ours(data, name), bare(data)
    ours_s, bare_s = [], []
    for _ in range(5):
        start = time.perf_counter()
        ours(data, name)
        ours_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        bare(data)
        bare_s.append(time.perf_counter() - start)
    ratio = statistics.median(o / b for o, b in zip(ours_s, bare_s))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(
        f"{mode} {name} pool={pa.default_memory_pool().backend_name} ours {statistics.median(ours_s):.3f} s"
        f" bare {statistics.median(bare_s):.3f} s paired {ratio:.2f}x peak {peak} MiB"
    )


if __name__ == "__main__":
    main()
