"""A catalog's first read (or its repeated reads) on two checkouts side by side, paired per round (issue 16
item 2): `.venv/bin/python bench/bench_ingest_ab.py BASE [OTHER] [--rounds 8] [--repeat N] [--files CSV
PARQUET ...]`, figures printed, never asserted.

BASE and OTHER (default: this checkout) are trees with an `agent/` (a worktree or `git archive` of an older
commit). Each round starts one fresh process per tree and file, in alternating order; the process loads the
allocators as deployed (`reclaim.configure_allocators`), reads a 500-row piece of the file (modules and lazy
data loaded, as on an instance that has answered before) and then times one ingest of the whole file, as
`bench_ingest.py --fresh` does, with what the instance memory `--budget-gib` (4) decides (whether a large CSV is trimmed). The figure is the median of
the per-round ratios OTHER / BASE, with both medians and the range. `--repeat N` (N ≥ 2) times N whole-file
reads in each process instead and takes the median of all but the first: the repeated reads of one
process that `bench_ingest.py`'s in-process figure is made of (the allocators then hold the previous
read's freed pages), paired across trees the same way.

Why: a reader change made for a correctness fix can put a Python pass over every value back on the path
(round 16 of bench/README: a dash check on each image link cost 1M-variant ingests 12-20 %). A paired run
against the last commit with measured figures shows such a change before it lands. Run `bench/gen_catalog.py`
first for the default files.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_ingest import _small_piece  # the same 500-row piece as the --fresh pairs there

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"

# One child: its tree first on the path, the deployed allocators, a piece of the file, then the timed read.
_CHILD = r"""
import json, os, statistics, sys, time
tree, path, piece, budget, repeat = sys.argv[1:6]
sys.path.insert(0, tree)
from agent.service import reclaim
reclaim.configure_allocators()
from agent.catalog import heap, sources
heap.configure(int(budget))  # as a Service does from MEMORY_BUDGET_BYTES: whether a large CSV is trimmed
name = os.path.basename(path)
data = open(path, "rb").read()  # held first, as a download would be (and as bench_ingest's children do)
sources.read_table_bytes(open(piece, "rb").read(), name, "gcs")
times = []
for _ in range(int(repeat)):
    table = None  # the previous read's table is freed first, as when a new generation replaces it
    start = time.perf_counter()
    table, evidence = sources.read_table_bytes(data, name, "gcs")
    times.append(time.perf_counter() - start)
print(json.dumps({"s": statistics.median(times[1:] or times), "rows": table.num_rows, "read": evidence.rows_read}), flush=True)
os._exit(0)  # (pyarrow's pools may abort the interpreter's teardown, after the figure)
"""


def _one(tree: str, path: Path, piece: Path, budget: int, repeat: int) -> dict:
    command = [sys.executable, "-c", _CHILD, tree, str(path), str(piece), str(budget), str(repeat)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=tree)
    if out.returncode or not out.stdout.strip():
        raise SystemExit(f"{tree} on {path.name}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("other", nargs="?", default=str(ROOT))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--budget-gib", type=float, default=4.0)
    parser.add_argument(
        "--repeat", type=int, default=1, help="reads per process; from 2, the median of all but the first"
    )
    parser.add_argument("--files", nargs="*", type=Path, default=[OUT / "catalog-1m.csv", OUT / "catalog-1m.parquet"])
    args = parser.parse_args()
    budget = int(args.budget_gib * (1 << 30))
    trees = {"base": args.base, "other": args.other}
    kind = "a first read" if args.repeat < 2 else f"reads 2-{args.repeat} of one process (median)"
    print(
        f"base {args.base}\nother {args.other}\n{args.rounds} rounds, fresh process each, {kind}, {args.budget_gib:g} GiB"
    )
    for path in (file.resolve() for file in args.files):  # (each child runs in its own tree)
        piece = Path(tempfile.mkstemp(suffix=path.suffix)[1])
        piece.write_bytes(_small_piece(path.read_bytes(), path.suffix == ".parquet"))
        times: dict[str, list[float]] = {"base": [], "other": []}
        rows = set()
        for r in range(args.rounds):
            for name in list(trees) if r % 2 else list(trees)[::-1]:
                got = _one(trees[name], path, piece, budget, args.repeat)
                times[name].append(got["s"])
                rows.add((name, got["rows"], got["read"]))
        piece.unlink()
        ratios = [o / b for o, b in zip(times["other"], times["base"])]
        print(
            f"{path.name:24s} base {statistics.median(times['base']):.3f} s  other {statistics.median(times['other']):.3f} s"
            f"  other/base {statistics.median(ratios):.3f}x (rounds {min(ratios):.2f}-{max(ratios):.2f})"
            f"  rows out/read {sorted(rows)}"
        )


if __name__ == "__main__":
    main()
