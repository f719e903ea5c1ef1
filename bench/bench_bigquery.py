"""bq:// in-memory path: time and peak RSS of reading a Products_ transfer table's newest partition
through the Storage Read API into the canonical table, at growing sizes, in the local emulator.

The table is the demo catalog in the transfer schema (tests/bq_seed.py), multiplied inside the
emulator with `INSERT … SELECT … CROSS JOIN UNNEST(GENERATE_ARRAY(1, k))` (distinct offer and item group
ids per copy), so seeding costs no client upload. Each size is read in a fresh child process, which
reports its wall time and peak RSS (ru_maxrss). Usage: python bench/bench_bigquery.py [k ...]

`--gaps` (issue 15 item 2): each size is answered twice, in two fresh children — "Where are the gaps in
outdoor furniture?" through the in-memory path (BIGQUERY_IN_MEMORY_BYTES huge: Storage Read, then
assortment_gaps on the Arrow table) and through the pushdown path (BIGQUERY_IN_MEMORY_BYTES=0: the
aggregation as SQL in the emulator, agent/analysis/gaps_sql.py). The base table is then the demo offers
with their Google category ids (bq_seed.demo_products_rows_with_google_ids), which the SQL groups by.
Usage: python bench/bench_bigquery.py --gaps [--narrow] [--demand] [--in-memory-up-to=K] [k ...]
`--demand` asks demand_gaps instead ("What are shoppers buying in outdoor furniture that I don't
carry?", tests/bestsellers attached): above the line its own side is one SQL aggregate
(agent/analysis/demand_sql.py). The printed `in_scope` is the first row's variants (gaps) or your
products in the scope (demand).

`--narrow` seeds a table of only the columns in tests/bq_seed.NARROW (what the pushdown reads, plus
title, GTIN, sale price and its schedule, category path and destinations): the emulator holds its
tables in memory (DuckDB), and the full transfer rows of 10M offers would take several GB on a shared
machine. The base offers carry the demo's "was" prices as sale prices with schedules
(bq_seed.with_sales), so the sale columns hold values. The in-memory path still reads no descriptions,
links or images from a narrow table (content_quality's columns), so for that skill its figures are a
lower bound; for gaps they are what it reads. `--in-memory-up-to=K` runs the in-memory path only up to K copies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time
from agent import config
from agent.catalog.sources import load_catalog_inputs
from agent.analysis.registry import SKILLS
settings = config.load(json.loads(sys.argv[2])).bigquery
from agent.catalog.sources import load_demo
t = time.perf_counter()
load_demo()  # warms the taxonomy and mapping caches, as a running instance has them
warm = time.perf_counter() - t
rss_warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
inputs = load_catalog_inputs([], catalog_uri=sys.argv[1], bigquery=settings)
read = time.perf_counter() - t
assert not inputs.problems, inputs.problems
print(json.dumps({"rows": inputs.own.table.num_rows, "demo_csv_s": warm, "rss_after_demo_mb": rss_warm, "read_s": read,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


GAPS_CHILD = r"""
import json, resource, sys, time
import pyarrow as pa
from agent import config
from agent.catalog.sources import load_catalog_inputs, load_demo
from agent.analysis import demand, gaps, planner
from agent.analysis.inputs import SkillInput
from agent.catalog import bestsellers, taxonomy
settings = config.load(json.loads(sys.argv[2])).bigquery
skill = sys.argv[3]
load_demo()  # warm caches, as a running instance has them
tax = taxonomy.load()
report = None
if skill == "demand":  # the Best sellers downloads, attached (small: read in memory on both paths)
    report = pa.concat_tables([bestsellers.read_csv_bytes(open(f"tests/bestsellers/{name}", "rb").read(), name,
                                                          "attached file")[0] for name in ("products.csv", "brands.csv")])
rss_warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
inputs = load_catalog_inputs([], catalog_uri=sys.argv[1], bigquery=settings)
assert not inputs.problems, inputs.problems
own = inputs.own
question = {"gaps": "Where are the gaps in outdoor furniture?",
            "demand": "What are shoppers buying in outdoor furniture that I don't carry?"}[skill]
scope = planner.plan(question, own.table, tax, None).scope
run = gaps.run if skill == "gaps" else demand.run
result = run(SkillInput(own=own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(own.sources),
                        demand=report))
took = time.perf_counter() - t
ev = own.sources[0]
first = result.table.to_pylist()[0]
print(json.dumps({"rows": ev.rows_read, "pushdown": ev.pushdown is not None, "answer_s": took,
                  "in_scope": first["Variants"] if skill == "gaps" else first["Your products"],
                  "rss_after_warm_mb": rss_warm,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def copies_table(emu, base: str, k: int, schema=None) -> str:
    """A new dataset whose Products_2 holds `k` copies of `base`.Products_1 (tests/bq_seed.py)."""
    from tests import bq_seed

    return bq_seed.create_copies_table(emu.client, emu.project, base, k, merchant_id=1, to_merchant_id=2, schema=schema)


def main_gaps(ks: list[int], narrow: bool = False, in_memory_up_to: int | None = None, skill: str = "gaps") -> None:
    from tests import bq_seed
    from tests.bigquery_emulator import BqEmulator

    schema = bq_seed.narrow_schema() if narrow else bq_seed.products_schema()
    emu = BqEmulator().start()
    try:
        t = time.perf_counter()
        base = bq_seed.create_products_table(
            emu.client,
            emu.project,
            rows=bq_seed.with_sales(bq_seed.demo_products_rows_with_google_ids()),
            merchant_id=1,
            schema=schema,
        )
        print(json.dumps({"base_rows_seed_s": round(time.perf_counter() - t, 1), "narrow": narrow}), flush=True)
        env = {**{k: v for k, v in os.environ.items()}, **emu.env}
        common = {**emu.env, "BIGQUERY_MAXIMUM_BYTES_BILLED": str(1 << 45)}
        for k in ks:
            t = time.perf_counter()
            ds = copies_table(emu, base, k, schema)
            seed = time.perf_counter() - t
            modes = [("pushdown", "0")]
            if in_memory_up_to is None or k <= in_memory_up_to:
                modes.append(("in-memory", str(1 << 40)))
            for mode, line in modes:
                print(f"uptime: {os.getloadavg()}", flush=True)
                out = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        GAPS_CHILD,
                        f"bq://{ds}.Products_2",
                        json.dumps({**common, "BIGQUERY_IN_MEMORY_BYTES": line}),
                        skill,
                    ],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=3600,
                )
                if out.returncode:
                    print(f"k={k} {mode}: failed: {out.stderr[-600:]}", flush=True)
                    continue
                got = json.loads(out.stdout.strip().splitlines()[-1])
                print(
                    json.dumps(
                        {
                            "copies": k,
                            "mode": mode,
                            "seed_s": round(seed, 1),
                            **{a: round(b, 2) if isinstance(b, float) else b for a, b in got.items()},
                        }
                    ),
                    flush=True,
                )
            emu.client.delete_dataset(ds, delete_contents=True)  # the emulator holds tables in memory
    finally:
        emu.stop()


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
            t = time.perf_counter()
            ds = copies_table(emu, base, k)
            seed = time.perf_counter() - t
            out = subprocess.run(
                [sys.executable, "-c", CHILD, f"bq://{ds}.Products_2", json.dumps(settings)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=3600,
            )
            if out.returncode:
                print(f"k={k}: failed: {out.stderr[-800:]}")
                break
            got = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                json.dumps(
                    {
                        "copies": k,
                        "seed_s": round(seed, 1),
                        **{a: round(b, 2) if isinstance(b, float) else b for a, b in got.items()},
                    }
                ),
                flush=True,
            )
    finally:
        emu.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--gaps"]:
        args = sys.argv[2:]
        narrow = "--narrow" in args
        up_to = next((int(a.split("=", 1)[1]) for a in args if a.startswith("--in-memory-up-to=")), None)
        ks = [int(a) for a in args if not a.startswith("--")]
        skill = "demand" if "--demand" in args else "gaps"
        main_gaps(ks or [1, 35, 350], narrow=narrow, in_memory_up_to=up_to, skill=skill)
    else:
        main([int(a) for a in sys.argv[1:]] or [1, 10, 35])
