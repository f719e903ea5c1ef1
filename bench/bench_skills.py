"""Skill benchmark: every analysis skill on the 1,000,000-variant catalog, warm, plus the full gaps turn.

Side by side in the same run: the core aggregation of `assortment_gaps` (per subcategory of the scope:
distinct products, variants, in-stock variants, min/median/max price) written as DuckDB SQL over the
same Arrow table (DuckDB is a bench-only dependency), against our pyarrow implementation of the same
aggregation and against the whole skill.

Usage:
    .venv/bin/python bench/gen_catalog.py                 # once: bench/out/catalog-1m.parquet
    .venv/bin/python bench/bench_skills.py [--runs 7] [--threads 2] [--input bench/out/catalog-1m.parquet] [--no-skills]

The core aggregation is timed in alternating rounds (ours, then DuckDB) and its ratio is the median
of the per-round ratios, so a change of the machine's load between the two sides does not land on one.

Figures are printed (median and min of the warm runs), never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTION = "Where are the gaps in outdoor furniture?"


def _load(path: Path):
    try:
        from agent.catalog.ingest import read_table_bytes
    except ImportError:  # older layout
        from agent.catalog.sources import read_table_bytes  # type: ignore[no-redef]
    t = time.perf_counter()
    table, evidence = read_table_bytes(path.read_bytes(), path.name, "local file")
    return table, evidence, time.perf_counter() - t


CPU: dict[int, float] = {}  # id(fn) -> median process CPU seconds (all threads) of its last timing


def _time(fn, runs: int) -> tuple[float, float]:
    """(median, min) wall seconds of warm runs; the median CPU time is kept in CPU[id(fn)].

    CPU time is reported too because this machine is shared: under contention wall time stretches,
    while the CPU a run needs stays close to what it needs on an idle machine."""
    fn()  # warm
    samples, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        samples.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    CPU[id(fn)] = statistics.median(cpu)
    return statistics.median(samples), min(samples)


def _paired(ours, duck, runs: int) -> tuple[float, float, float, float, float, float, float]:
    """Ours and DuckDB timed in alternating rounds (ours, then DuckDB, `runs` times): (ours median,
    ours min, DuckDB median, DuckDB min, median of the per-round ratios, ours median CPU, DuckDB
    median CPU). Pairing each of our runs with the DuckDB run right after it keeps a change in the
    machine's load from landing on one side only."""
    ours()
    duck()
    o, d, oc, dc, ratios = [], [], [], [], []
    for _ in range(runs):
        for fn, wall, cpu in ((ours, o, oc), (duck, d, dc)):
            t, c = time.perf_counter(), time.process_time()
            fn()
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        ratios.append(o[-1] / d[-1])
    med = statistics.median
    return med(o), min(o), med(d), min(d), med(ratios), med(oc), med(dc)


def _memo_rows(tables: dict, tax) -> list[tuple[str, float, float, float]]:
    """A full gaps turn (plan, skill, Markdown) computed vs with the skill's result reused
    (agent.analysis.memo): alternating, paired; what the memo saves a repeated question."""
    from agent.analysis import memo
    from agent.analysis.planner import plan
    from agent.analysis.registry import SKILLS, SkillInput
    from agent.render.text import render_skill

    out = []
    for label, (table, runs) in tables.items():

        def turn(reuse: bool, table=table) -> None:
            if not reuse:
                memo.clear()
            pl = plan(QUESTION, table, tax)
            for sid in pl.skills:
                inp = SkillInput(own=table, reference=None, scope=pl.scope, taxonomy=tax)
                render_skill(memo.run(sid, SKILLS[sid].run, inp), pl.notes)

        computed, _, reused, _, ratio, _, _ = _paired(lambda: turn(False), lambda: turn(True), runs)
        out.append((label, computed, reused, 1 / ratio if ratio else float("nan")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", default=str(ROOT / "bench" / "out" / "catalog-1m.parquet"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-skills", action="store_true", help="skip the per-skill table: turns and core only")
    args = ap.parse_args()

    import pyarrow as pa

    pa.set_cpu_count(args.threads)
    pa.set_io_thread_count(args.threads)

    from agent.analysis import common, gaps
    from agent.analysis.planner import plan
    from agent.analysis.registry import SKILLS, SkillInput
    from agent.catalog.taxonomy import load
    from agent.render.text import render_skill

    path = Path(args.input)
    if not path.exists():
        sys.exit(f"{path} not found: run bench/gen_catalog.py first")
    own, evidence, load_s = _load(path)
    tax = load()
    print(
        f"input: {path.name}, {own.num_rows:,} rows, {common.count_products(own):,} products; "
        f"ingest {load_s:.2f} s (not part of the figures below); threads {args.threads}; "
        f"machine load average {os.getloadavg()[0]:.1f}"
    )

    p = plan(QUESTION, own, tax)
    print(
        f"plan: {p.skills} scope {p.scope.taxonomy_path} (id {p.scope.taxonomy_id}), "
        f"{len(p.scope.merchant_categories)} merchant categories"
    )
    scopes = {"whole catalog": plan("overview", own, tax).scope, "outdoor furniture": p.scope}

    rows = []
    for skill_id, spec in () if args.no_skills else SKILLS.items():
        for label, scope in scopes.items():
            inp = SkillInput(own=own, reference=None, scope=scope, taxonomy=tax, sources=(evidence,))
            fn = lambda: spec.run(inp)  # noqa: E731
            med, best = _time(fn, args.runs)
            rows.append((skill_id, label, med, best, CPU[id(fn)]))

    def turn():
        pl = plan(QUESTION, own, tax)
        for sid in pl.skills:
            render_skill(SKILLS[sid].run(SkillInput(own=own, reference=None, scope=pl.scope, taxonomy=tax)), pl.notes)

    turn_med, turn_best = _time(turn, args.runs)
    demo, _, _ = _load(ROOT / "data" / "demo" / "catalog.csv")

    def demo_turn():
        pl = plan(QUESTION, demo, tax)
        for sid in pl.skills:
            render_skill(SKILLS[sid].run(SkillInput(own=demo, reference=None, scope=pl.scope, taxonomy=tax)), pl.notes)

    demo_med, demo_best = _time(demo_turn, max(args.runs, 20))
    memo_rows = _memo_rows(
        {"1M rows": (own, args.runs), f"demo ({demo.num_rows:,} rows)": (demo, max(args.runs, 20))}, tax
    )
    plan_med, _ = _time(lambda: plan(QUESTION, own, tax), args.runs)

    # --- the core aggregation, ours vs DuckDB, for the gaps scope and for the whole catalog --------------
    import duckdb

    con = duckdb.connect()
    con.execute(f"PRAGMA threads={args.threads}")
    con.register("canon", own)
    in_stock = """sum(CASE WHEN coalesce(CAST(availability AS VARCHAR), 'unknown') = 'in_stock'
                         OR (coalesce(CAST(availability AS VARCHAR), 'unknown') = 'unknown' AND inventory_qty > 0)
                        THEN 1 ELSE 0 END)"""
    core = []
    for label, scope in scopes.items():
        if scope.taxonomy_id is not None:
            ids = ",".join(str(i) for i in common.scope_ids(scope, tax))
            where = f"AND (google_category_id IN ({ids})" + (
                " OR CAST(category_path AS VARCHAR) IN (SELECT unnest(?)))" if scope.merchant_categories else ")"
            )
            params = [list(scope.merchant_categories)] if scope.merchant_categories else []
        else:
            where, params = "", []
        sql = f"""
            SELECT coalesce(google_category_id, -1) AS key, count(DISTINCT product_key) AS products, count(*) AS variants,
                   {in_stock} AS in_stock,
                   min(CASE WHEN price > 0 THEN price END) AS min_price,
                   quantile_cont(CASE WHEN price > 0 THEN price END, 0.5) AS median_price,
                   max(CASE WHEN price > 0 THEN price END) AS max_price
            FROM canon
            WHERE coalesce(CAST(status AS VARCHAR), 'unknown') IN ('active', 'unknown') {where}
            GROUP BY 1
        """

        def duck_core(sql=sql, params=params):
            return con.sql(sql, params=params).to_arrow_table() if params else con.sql(sql).to_arrow_table()

        def ours_core(scope=scope):
            return gaps._aggregate(common.population(own, scope, tax, gaps.READ).table, scope, tax)

        ours_med, ours_best, duck_med, duck_best, ratio, ours_cpu, duck_cpu = _paired(ours_core, duck_core, args.runs)
        duck = {r["key"]: r for r in duck_core().to_pylist()}
        mine = ours_core()
        assert all(
            mine[k]["products"] == duck[k]["products"]
            and mine[k]["variants"] == duck[k]["variants"]
            and abs((mine[k]["median"] or 0) - (duck[k]["median_price"] or 0)) < 1e-6
            for k in duck
        ), "ours and DuckDB disagree"
        core.append((label, ours_med, ours_best, duck_med, duck_best, ours_cpu, duck_cpu, ratio))

    print()
    print("| skill | scope | wall median | wall min | CPU median (all threads) |")
    print("|---|---|---:|---:|---:|")
    for skill_id, label, med, best, cpu in rows:
        print(f"| `{skill_id}` | {label} | {med * 1000:.0f} ms | {best * 1000:.0f} ms | {cpu * 1000:.0f} ms |")
    print(
        f"| full turn: plan + `assortment_gaps` + Markdown | “{QUESTION}” | {turn_med * 1000:.0f} ms | {turn_best * 1000:.0f} ms | {CPU[id(turn)] * 1000:.0f} ms |"
    )
    print(f"| planner alone (catalog index cached per table) | “{QUESTION}” | {plan_med * 1000:.1f} ms | | |")
    print()
    print(
        "| the same turn asked again (issue 16 item 4) | computed, median | result reused, median | reused / computed, median of pairs |"
    )
    print("|---|---:|---:|---:|")
    for label, computed, reused, ratio in memo_rows:
        print(f"| {label} | {computed * 1000:.2f} ms | {reused * 1000:.2f} ms | {ratio:.2f}x |")
    print()
    print(
        f"| full turn on the demo catalog ({demo.num_rows:,} rows) | “{QUESTION}” | {demo_med * 1000:.1f} ms | {demo_best * 1000:.1f} ms | {CPU[id(demo_turn)] * 1000:.1f} ms |"
    )
    print()
    print(
        "| core gaps aggregation (status + scope filter, group by subcategory: distinct products, variants, in stock, min/median/max price) | ours wall | DuckDB wall | ours / DuckDB (median of paired rounds) | ours CPU | DuckDB CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, om, _ob, dm, _db, oc, dc, ratio in core:
        print(
            f"| {label} | {om * 1000:.0f} ms | {dm * 1000:.0f} ms | {ratio:.2f}× | {oc * 1000:.0f} ms | {dc * 1000:.0f} ms |"
        )
    print(f"machine load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
