"""bq:// in-memory path: time and peak RSS of reading a Products_ transfer table's newest partition
through the Storage Read API into the canonical table, at growing sizes, in the local emulator.

The table is the demo catalog in the transfer schema (tests/bq_seed.py), multiplied inside the
emulator with `INSERT … SELECT … CROSS JOIN UNNEST(GENERATE_ARRAY(1, k))` (distinct offer and item group
ids per copy), so seeding costs no client upload. Each size is read in a fresh child process, which
reports its wall time and peak RSS (ru_maxrss). Usage: python bench/bench_bigquery.py [k ...]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time
from agent import config
from agent import bqref
from agent.catalog.sources import load_catalog_inputs
from agent.analysis.registry import SKILLS
bqref.configure(config.load(json.loads(sys.argv[2])).bigquery)
from agent.catalog.sources import load_demo
t = time.perf_counter()
load_demo()  # warms the taxonomy and mapping caches, as a running instance has them
warm = time.perf_counter() - t
rss_warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
inputs = load_catalog_inputs([], catalog_uri=sys.argv[1])
read = time.perf_counter() - t
assert not inputs.problems, inputs.problems
print(json.dumps({"rows": inputs.own.table.num_rows, "demo_csv_s": warm, "rss_after_demo_mb": rss_warm, "read_s": read,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main(ks: list[int]) -> None:
    from tests import bq_seed
    from tests.bigquery_emulator import BqEmulator

    emu = BqEmulator().start()
    try:
        base = bq_seed.create_products_table(emu.client, emu.project, rows=bq_seed.demo_products_rows(), merchant_id=1)
        env = {**{k: v for k, v in os.environ.items()}, **emu.env}
        settings = {**emu.env, "BIGQUERY_IN_MEMORY_BYTES": str(1 << 40), "BIGQUERY_MAXIMUM_BYTES_BILLED": str(1 << 45)}
        print(f"uptime: {os.getloadavg()}")
        for k in ks:
            ds = bq_seed.create_products_table(emu.client, emu.project, rows=[], merchant_id=2)
            t = time.perf_counter()
            names = [f.name for f in bq_seed.products_schema()]
            select = ", ".join(f"CONCAT(p.{n}, '-', CAST(k AS STRING))" if n in ("offer_id", "item_group_id") else f"p.{n}"
                               for n in names)
            emu.client.query(
                f"INSERT INTO `{ds}.Products_2` ({', '.join(names)}) SELECT {select} "
                f"FROM `{base}.Products_1` AS p CROSS JOIN UNNEST(GENERATE_ARRAY(1, {k})) AS k").result()
            seed = time.perf_counter() - t
            out = subprocess.run([sys.executable, "-c", CHILD, f"bq://{ds}.Products_2", json.dumps(settings)],
                                 cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
            if out.returncode:
                print(f"k={k}: failed: {out.stderr[-800:]}")
                break
            got = json.loads(out.stdout.strip().splitlines()[-1])
            print(json.dumps({"copies": k, "seed_s": round(seed, 1), **{a: round(b, 2) if isinstance(b, float) else b
                                                                       for a, b in got.items()}}), flush=True)
    finally:
        emu.stop()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1, 10, 35])
