"""content_quality and attribute_coverage on a bq:// Products_ table, both ways, in the local emulator.

The table is the demo offers with their Google category ids in the full transfer schema (descriptions,
destinations and item issues included: tests/bq_seed.py), multiplied inside the emulator as
bench_bigquery.py does. For each size and skill, two fresh children answer the skill's example
question: through the in-memory path (Storage Read of the partition, then the skill on Arrow) and
through the pushdown path (BIGQUERY_IN_MEMORY_BYTES=0: the skill's SQL in the emulator). Each reports
its wall time from load to result and its peak RSS; the answers' tables must be equal.

The emulator runs GoogleSQL on DuckDB through a translation layer and some functions as per-row
Python, so pushdown times here say nothing of BigQuery's; the RSS column is the point (it must not grow
with the table on the pushdown path). Usage: python bench/bench_bigquery_quality.py [k ...] (default 1 10)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import hashlib, json, resource, sys, time
from agent import config
from agent.catalog.sources import load_catalog_inputs, load_demo
from agent.analysis import planner
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.catalog import taxonomy
settings = config.load(json.loads(sys.argv[2])).bigquery
skill, question = sys.argv[3], sys.argv[4]
load_demo()  # warm caches, as a running instance has them
tax = taxonomy.load()
t = time.perf_counter()
inputs = load_catalog_inputs([], catalog_uri=sys.argv[1], bigquery=settings)
assert not inputs.problems, inputs.problems
own = inputs.own
scope = planner.plan(question, own.table, tax, None).scope
result = SKILLS[skill].run(SkillInput(own=own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(own.sources)))
took = time.perf_counter() - t
digest = hashlib.sha256(json.dumps(result.table.to_pylist(), default=str).encode()).hexdigest()[:12]
print(json.dumps({"rows": own.sources[0].rows_read, "pushdown": own.sources[0].pushdown is not None,
                  "answer_s": round(took, 2), "table": digest,
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""

QUESTIONS = {
    "content_quality": "Is my catalog ready for Google Shopping?",
    "attribute_coverage": "How well are colours filled in?",
}


def _child(uri: str, env: dict[str, str], skill: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, uri, json.dumps(env), skill, QUESTIONS[skill]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=1800,
    )
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(ks: list[int]) -> None:
    from tests import bq_seed
    from tests.bigquery_emulator import BqEmulator

    emu = BqEmulator().start()
    try:
        base = bq_seed.create_products_table(emu.client, emu.project, rows=bq_seed.demo_products_rows_with_google_ids())
        for k in ks:
            where = base if k == 1 else bq_seed.create_copies_table(emu.client, emu.project, base, k)
            uri = f"bq://{where}.Products_123456"
            for skill in QUESTIONS:
                memory = _child(uri, {**emu.env, "BIGQUERY_IN_MEMORY_BYTES": str(1 << 40)}, skill)
                pushed = _child(uri, {**emu.env, "BIGQUERY_IN_MEMORY_BYTES": "0"}, skill)
                same = memory["table"] == pushed["table"]
                print(json.dumps({"copies": k, "skill": skill, "memory": memory, "pushdown": pushed, "same": same}))
    finally:
        emu.stop()


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [1, 10])
