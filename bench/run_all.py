"""`make bench`: every benchmark in one go, figures printed (never asserted).

Generates the 1,000,000-variant catalog once (bench/out/, git-ignored), then runs the protocol,
ingest and skills benchmarks, then 50 concurrent streams and the 5-minute soak, in turn. Each can
also be run on its own; see bench/README.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"


def run(*args: str) -> None:
    print(f"\n$ python {' '.join(args)}", flush=True)
    subprocess.run([sys.executable, *args], cwd=BENCH.parent, check=True)


def main() -> None:
    if not (OUT / "catalog-1m.csv").exists() or not (OUT / "catalog-1m.parquet").exists():
        run("bench/gen_catalog.py")
    run("bench/bench_protocol.py")
    run("bench/bench_cold.py", "--rounds", "3")
    run("bench/bench_ingest.py", "--runs", "5")
    run("bench/bench_skills.py", "--runs", "7")
    run("bench/bench_concurrency.py")
    run("bench/bench_soak.py")  # BENCH_SECONDS (300) sets its length


if __name__ == "__main__":
    main()
