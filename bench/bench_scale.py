"""Scaling: does a catalog of N variants stay warm in an instance of M GiB (issue 16 item 1)?

For each input file and memory budget, in a fresh process (so peak RSS is this file's): the
parsed-catalog cache is sized exactly as a Service sizes it (`agent.config.load` with
MEMORY_BUDGET_BYTES → `cache.configure`), the file is read through the real local-catalog path
(`sources.load_location`, which goes through TABLE_CACHE), and then warm turns are timed: load (a cache
hit, or a re-read when the table did not fit) + plan + `assortment_gaps` + Markdown for "Where are the
gaps in outdoor furniture?". Printed: ingest, table bytes per variant, whether the table is cached,
the warm turn's median, and peak RSS (with the allocators as deployed: `reclaim.configure_allocators`).
Never asserted.

    .venv/bin/python bench/gen_catalog.py --variants 5000000     # bench/out/catalog-5000000.{csv,parquet}
    .venv/bin/python bench/bench_scale.py bench/out/catalog-1m.parquet bench/out/catalog-5000000.parquet \\
        --budget-gib 2 4 [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Where are the gaps in outdoor furniture?"


def one(path: Path, budget_gib: float, runs: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from agent import config
    from agent.analysis.planner import plan
    from agent.analysis.registry import SKILLS, SkillInput
    from agent.catalog import cache, sources
    from agent.catalog.taxonomy import load
    from agent.render.text import render_skill
    from agent.service import reclaim

    reclaim.configure_allocators()  # as agent.app does at start: the deployed allocators' peak RSS
    path = path.resolve()
    cfg = config.load({"MEMORY_BUDGET_BYTES": str(int(budget_gib * 2**30))})
    cache.configure(table_cache_bytes=cfg.table_cache_bytes)
    tax = load()
    t = time.perf_counter()
    table, _ = sources.load_location(str(path), str(path.parent))
    ingest = time.perf_counter() - t
    nbytes, rows = table.nbytes, table.num_rows
    del table

    def turn() -> None:
        own, _ = sources.load_location(str(path), str(path.parent))
        p = plan(QUESTION, own, tax)
        for sid in p.skills:
            render_skill(SKILLS[sid].run(SkillInput(own=own, reference=None, scope=p.scope, taxonomy=tax)), p.notes)

    turn()  # the first turn computes the scope's masks once
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        turn()
        samples.append(time.perf_counter() - t)
    return {
        "file": path.name,
        "budget_gib": budget_gib,
        "rows": rows,
        "table_mib": nbytes / 2**20,
        "bytes_per_variant": nbytes / rows,
        "cache_mib": cfg.table_cache_bytes / 2**20,
        "cached": cache.TABLE_CACHE.stats().entries > 0,
        "ingest_s": ingest,
        "warm_turn_ms": statistics.median(samples) * 1000,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--budget-gib", nargs="+", type=float, default=[2.0, 4.0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(one(args.inputs[0], args.budget_gib[0], args.runs)))
        return
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| file | variants | budget | cache bound | table | B/variant | cached | ingest | warm turn (median) | peak RSS |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for path in args.inputs:
        for gib in args.budget_gib:
            out = subprocess.run(
                [sys.executable, __file__, str(path), "--budget-gib", str(gib), "--runs", str(args.runs), "--child"],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"| {r['file']} | {r['rows']:,} | {gib:g} GiB | {r['cache_mib']:,.0f} MiB | {r['table_mib']:,.0f} MiB | "
                f"{r['bytes_per_variant']:.0f} | {'yes' if r['cached'] else 'no'} | {r['ingest_s']:.1f} s | "
                f"{r['warm_turn_ms']:,.0f} ms | {r['peak_rss_mib']:,.0f} MiB |",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
