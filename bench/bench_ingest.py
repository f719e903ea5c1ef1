"""Ingest benchmark: our catalog ingest against a bare pyarrow read of the same bytes, side by side.

Measures (median of --runs runs each, after one warm-up):
  1. CSV: agent.catalog.sources.read_table_bytes (detect + parse + normalise to the canonical table)
     vs pyarrow.csv.read_csv of the same in-memory bytes. Target: <= 1.3x.
  2. Parquet: our load vs pyarrow.parquet.read_table of the same bytes. Target: <= 1.3x.
  3. Peak RSS of a fresh process that ingests vs one that only does the bare read (each process
     first holds the file's bytes, as a Cloud Storage download would). Target: <= 1.3x. The same
     processes time their one ingest: a catalog's first read on an instance (`--fresh` pairs).
  4. Warm cached load through TABLE_CACHE (target < 5 ms): a cache hit alone, and the full
     `cache.load_gcs` path against a real emulator on loopback — within the resolve TTL (no request)
     and after it (one metadata request, no download).

Both sides start from bytes in memory, because that is what Cloud Storage and attachments give us.
Both run with the allocators as deployed (`reclaim.configure_allocators`, which agent.app calls at
start: Arrow's pool = glibc malloc, glibc's mmap threshold fixed at 32 MiB), in this process and in
the peak-RSS children, the bare reader's included, so the pairing is like for like;
`--default-allocators` measures with pyarrow's and glibc's defaults instead. The table cache is sized
as on an instance of `--budget-gib` (4) GiB, so the warm-cache figure is a hit and not a re-read
(a 1M canonical table, ~340 MB, is larger than the default share); the same instance memory decides,
in this process and the children, whether a large CSV read is trimmed (`agent.catalog.heap`).
Run `bench/gen_catalog.py` first (this script runs it if the files are missing).

Usage: `.venv/bin/python bench/bench_ingest.py [--runs 5] [--no-gcs] [--variants N] [--no-rss]
[--default-allocators] [--budget-gib 4] [--fresh 1]`
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
CSV = OUT / "catalog-1m.csv"
PARQUET = OUT / "catalog-1m.parquet"


def use_size(variants: int) -> None:
    """Point the bench at `bench/gen_catalog.py --variants N`'s files (its naming: 1M is catalog-1m)."""
    global CSV, PARQUET
    stem = "catalog-1m" if variants == 1_000_000 else f"catalog-{variants}"
    CSV, PARQUET = OUT / f"{stem}.csv", OUT / f"{stem}.parquet"


sys.path.insert(0, str(ROOT))


# --- how to call the other side --------------------------------------------------------------------


def our_reader() -> tuple[Callable[[bytes, str], object] | None, str]:
    """Our ingest entry point as f(data, name) -> result, or (None, why) when it is not there yet.

    `read_table_bytes(data, name, kind)` lives in agent.catalog.ingest (re-exported by sources, if
    at all); the kind passed is Cloud Storage, the path the benchmark stands for.
    """
    fn, where, problems = None, "", []
    for module_name in ("agent.catalog.sources", "agent.catalog.ingest"):
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - report, do not crash the bare figures
            problems.append(f"{module_name}: {type(exc).__name__}")
            continue
        fn = getattr(module, "read_table_bytes", None)
        if fn is not None:
            where = f"{module_name}.read_table_bytes"
            break
    if fn is None:
        return None, "read_table_bytes not there yet (" + ", ".join(problems or ["not defined"]) + ")"
    params = inspect.signature(fn).parameters

    def call(data: bytes, name: str) -> object:
        if "kind" in params:
            from agent.catalog.evidence import KIND_GCS

            return fn(data, name, KIND_GCS)
        return fn(data, name)

    return call, where


def table_of(result: object):
    """The Arrow table inside whatever read_table_bytes returns (a table, a tuple, or an object)."""
    import pyarrow as pa

    if isinstance(result, pa.Table):
        return result
    for attr in ("table", "canonical"):
        if hasattr(result, attr):
            return getattr(result, attr)
    if isinstance(result, tuple):
        for item in result:
            if isinstance(item, pa.Table):
                return item
            if hasattr(item, "table"):
                return item.table
    raise TypeError(f"cannot find a table in {type(result).__name__}")


def bare_csv(data: bytes):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    return pacsv.read_csv(pa.BufferReader(data))


def bare_parquet(data: bytes):
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.read_table(pa.BufferReader(data))


# --- timing ----------------------------------------------------------------------------------------


def median_seconds(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    result = fn()  # warm-up (imports, page cache, allocator)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


@dataclass
class Paired:
    ours_wall: float
    bare_wall: float
    ours_cpu: float  # process CPU time (all threads): much less sensitive to other jobs' load
    bare_cpu: float
    ours_result: object
    bare_result: object
    paired_ratio: float = float("nan")  # median of ours/bare within each run: drift in machine speed cancels


def paired_medians(ours: Callable[[], object], bare: Callable[[], object], runs: int) -> Paired:
    """Alternate ours and bare run by run, so background load on a shared machine hits both alike."""
    ours(), bare()  # warm-up
    walls: dict[str, list[float]] = {"ours": [], "bare": []}
    cpus: dict[str, list[float]] = {"ours": [], "bare": []}
    for _ in range(runs):
        for key, fn in (("bare", bare), ("ours", ours)):
            c0, t0 = time.process_time(), time.perf_counter()
            result = fn()
            walls[key].append(time.perf_counter() - t0)
            cpus[key].append(time.process_time() - c0)
            del result
    med = statistics.median
    paired = med(o / b for o, b in zip(walls["ours"], walls["bare"]))
    return Paired(med(walls["ours"]), med(walls["bare"]), med(cpus["ours"]), med(cpus["bare"]), ours(), bare(), paired)


def rss_child(mode: str) -> None:
    """Run one operation in this (fresh) process and print, as JSON, its peak RSS in MiB and the seconds
    the one ingest took."""
    path = PARQUET if mode.endswith("parquet") else CSV
    data = path.read_bytes()
    call, why = our_reader()
    # Before the clock: each side reads a small piece of the same file once (the header and a few
    # hundred rows; the Parquet file's first 500 rows), so its modules and lazily built data are
    # loaded, as in an instance that has answered before — the time is then the parse of this file,
    # not the imports. The piece is small enough to leave the allocators as they were.
    small = _small_piece(data, mode.endswith("parquet"))
    if mode.startswith("bare"):
        bare_csv(small) if mode == "bare-csv" else bare_parquet(small)
    elif call is not None:
        call(small, path.name)
    started = time.perf_counter()
    if mode.startswith("bare"):
        table = bare_csv(data) if mode == "bare-csv" else bare_parquet(data)
    else:
        if call is None:
            print(json.dumps({"skipped": why}))
            return
        table = table_of(call(data, path.name))
    seconds = time.perf_counter() - started
    print(json.dumps({"peak_mib": peak_kib() / 1024, "rows": table.num_rows, "seconds": seconds}), flush=True)
    # Out at once: with the warm-up's Parquet write, pyarrow's thread pools sometimes abort the
    # interpreter's teardown ("terminate called without an active exception"), after the figure.
    os._exit(0)


def _small_piece(data: bytes, parquet: bool) -> bytes:
    """The header and first ~500 rows of a CSV, or a Parquet file of the first row group's first 500 rows."""
    if not parquet:
        end = 0
        for _ in range(501):  # (a file of fewer lines is its own piece)
            at = data.find(b"\n", end)
            if at < 0:
                return data
            end = at + 1
        return data[:end]
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = pq.ParquetFile(pa.BufferReader(data)).read_row_group(0).slice(0, 500)
    sink = pa.BufferOutputStream()
    pq.write_table(first, sink)
    return sink.getvalue().to_pybytes()


def peak_kib() -> int:
    """This process's peak RSS. VmHWM, because ru_maxrss survives execve on Linux and would report
    the (large) parent's peak for a freshly spawned child."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


VARIANTS = [1_000_000]
CHILD_FLAGS: list[str] = []  # the allocator choice, passed on to the peak-RSS children


def use_allocators(deployed: bool) -> str:
    """The deployed allocator choice (agent.app's), before anything is parsed; what was chosen, for the report."""
    if not deployed:
        CHILD_FLAGS.append("--default-allocators")
        return "pyarrow's and glibc's defaults"
    from agent.service import reclaim

    reclaim.configure_allocators()
    import pyarrow as pa

    return f"as deployed (Arrow pool {pa.default_memory_pool().backend_name}, mmap threshold {reclaim.MMAP_THRESHOLD_BYTES >> 20} MiB)"


BUDGET_FLAGS: list[str] = []  # the instance's memory, passed on to the peak-RSS children


def use_budget(budget_gib: float) -> None:
    """The ingest's memory-dependent choice as on an instance of `budget_gib` (a Service configures
    it from MEMORY_BUDGET_BYTES): whether a large CSV read is trimmed (`agent.catalog.heap`)."""
    from agent.catalog import heap

    heap.configure(int(budget_gib * 2**30))
    BUDGET_FLAGS[:] = ["--budget-gib", str(budget_gib)]


def size_cache(budget_gib: float) -> int:
    """The table cache's bound on an instance of `budget_gib`, as a Service sizes it."""
    from agent import config
    from agent.catalog import cache

    cfg = config.load({"MEMORY_BUDGET_BYTES": str(int(budget_gib * 2**30))})
    cache.configure(table_cache_bytes=cfg.table_cache_bytes)
    return cfg.table_cache_bytes


def peak_rss(mode: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", mode, "--variants", str(VARIANTS[0]), *CHILD_FLAGS, *BUDGET_FLAGS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- warm cache ------------------------------------------------------------------------------------


def warm_cache_figures(parquet_bytes: bytes, runs: int, use_gcs: bool) -> list[tuple[str, float]]:
    """Median latency of warm loads: TABLE_CACHE hit alone, and load_gcs via the emulator."""
    from agent.catalog import cache

    rows: list[tuple[str, float]] = []
    key = ("bench", "local", "catalog-1m.parquet", 1)
    cache.TABLE_CACHE.get_or_load(key, lambda: bare_parquet(parquet_bytes), cache.arrow_size)
    hits = []
    for _ in range(max(runs, 1000)):
        t0 = time.perf_counter()
        cache.TABLE_CACHE.get_or_load(key, lambda: bare_parquet(parquet_bytes), cache.arrow_size)
        hits.append(time.perf_counter() - t0)
    rows.append(("TABLE_CACHE hit (get_or_load)", statistics.median(hits)))
    cache.TABLE_CACHE.invalidate(key)
    if not use_gcs:
        return rows

    from agent.catalog import gcs
    from tests.emulators import EMULATOR_ENV, GcsEmulator

    call, _ = our_reader()

    def parse(data: bytes, ref) -> object:
        return table_of(call(data, ref.name)) if call is not None else bare_parquet(data)

    with GcsEmulator() as emulator:
        os.environ[EMULATOR_ENV] = emulator.url
        try:
            bucket = emulator.create_bucket("bench-catalog")
            emulator.upload(bucket, "acme/products-2026-11-28.parquet", parquet_bytes)
            uri = f"gs://{bucket}/acme/"
            t0 = time.perf_counter()
            ref, table = cache.load_gcs(uri, parse)
            rows.append(
                (
                    f"cold load_gcs (prefix, list + download {len(parquet_bytes) / 1e6:.0f} MB + parse)",
                    time.perf_counter() - t0,
                )
            )
            within, after = [], []
            for _ in range(runs * 20):
                t0 = time.perf_counter()
                cache.load_gcs(uri, parse)
                within.append(time.perf_counter() - t0)
            file_uri = ref.uri
            cache.load_gcs(file_uri, parse)
            for _ in range(runs * 4):
                gcs.RESOLVE_MEMO.clear()
                t0 = time.perf_counter()
                cache.load_gcs(file_uri, parse)
                after.append(time.perf_counter() - t0)
            downloads = len(emulator.downloads(bucket, ref.name))
            rows.append(("warm load_gcs within resolve TTL (0 requests)", statistics.median(within)))
            rows.append(("warm load_gcs after TTL (1 metadata request, emulator)", statistics.median(after)))
            rows.append((f"  (downloads of the snapshot seen by the emulator: {downloads})", float("nan")))
        finally:
            os.environ.pop(EMULATOR_ENV, None)
            cache.TABLE_CACHE.clear()
    return rows


# --- main ------------------------------------------------------------------------------------------


def fmt_s(seconds: float) -> str:
    if seconds != seconds:  # NaN: a note row
        return ""
    if seconds < 0.001:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1000:.2f} ms" if seconds < 0.1 else f"{seconds:.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description="ingest benchmark")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-gcs", action="store_true", help="skip the emulator part of the warm-cache figures")
    parser.add_argument(
        "--variants",
        type=int,
        default=1_000_000,
        help="catalog size (files from bench/gen_catalog.py --variants N; generated if missing)",
    )
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-RSS subprocesses")
    parser.add_argument("--fresh", type=int, default=1, help="fresh-process pairs for peak RSS and first ingest")
    parser.add_argument("--default-allocators", action="store_true", help="not the deployed allocator choice")
    parser.add_argument("--budget-gib", type=float, default=4.0, help="instance memory the table cache is sized for")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    VARIANTS[0] = args.variants
    use_size(args.variants)
    allocators = use_allocators(not args.default_allocators)
    use_budget(args.budget_gib)
    if args.rss_child:
        rss_child(args.rss_child)
        return
    if not (CSV.exists() and PARQUET.exists()):
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "gen_catalog.py"), "--variants", str(args.variants)], check=True
        )

    import pyarrow as pa

    csv_bytes, parquet_bytes = CSV.read_bytes(), PARQUET.read_bytes()
    print(f"pyarrow {pa.__version__}, {os.cpu_count()} CPUs, {args.runs} runs (median)")
    print(f"CSV {len(csv_bytes) / 1e6:.1f} MB, Parquet {len(parquet_bytes) / 1e6:.1f} MB")
    call, who = our_reader()
    print(f"ours: {who}")
    print(f"allocators: {allocators}")

    print("\n## Time (median; wall clock, and process CPU time summed over threads)")
    print(
        f"{'':44s} {'ours':>10s} {'bare':>10s} {'ratio':>7s} {'paired':>7s} {'ours CPU':>10s} {'bare CPU':>10s} {'ratio':>7s}"
    )
    for label, data, bare, name in (
        ("CSV ingest vs pyarrow.csv.read_csv", csv_bytes, bare_csv, CSV.name),
        ("Parquet load vs pyarrow.parquet.read_table", parquet_bytes, bare_parquet, PARQUET.name),
    ):
        if call is None:
            bare_t, _ = median_seconds(lambda: bare(data), args.runs)
            print(f"{label:44s} {'-':>10s} {fmt_s(bare_t):>10s} {'-':>7s}   ({who})")
            continue
        p = paired_medians(lambda: call(data, name), lambda: bare(data), args.runs)
        table, bare_table = table_of(p.ours_result), p.bare_result
        print(f"{label:44s} {fmt_s(p.ours_wall):>10s} {fmt_s(p.bare_wall):>10s} {p.ours_wall / p.bare_wall:6.2f}x"
              f" {p.paired_ratio:6.2f}x {fmt_s(p.ours_cpu):>10s} {fmt_s(p.bare_cpu):>10s} {p.ours_cpu / p.bare_cpu:6.2f}x"
              f"   ({table.num_rows:,} rows out, {bare_table.num_rows:,} bare)")  # fmt: skip

    if not args.no_rss:
        print(f"\n## Peak RSS and the first ingest (fresh process each, {args.fresh} pair(s) alternating, median)")
        print("(peak includes the file's bytes and the interpreter; time: the one ingest of a process that has")
        print(
            " parsed only a 500-row piece before, as an instance's first read of a catalog — the repeated runs above reuse"
        )
        print(" the allocators' freed pages, which favours whichever side's buffers come from the heap)")
        print(f"{'':44s} {'ours':>10s} {'bare':>10s} {'ratio':>7s} {'ours':>9s} {'bare':>9s} {'paired':>7s}")
        for label, ours_mode, bare_mode in (
            ("CSV", "ours-csv", "bare-csv"),
            ("Parquet", "ours-parquet", "bare-parquet"),
        ):
            pairs = [(peak_rss(bare_mode), peak_rss(ours_mode)) for _ in range(args.fresh)]
            if not all("peak_mib" in o and "peak_mib" in b for b, o in pairs):
                b, o = next((b, o) for b, o in pairs if not ("peak_mib" in o and "peak_mib" in b))
                note = o.get("skipped") or o.get("error") or b.get("error")
                print(f"{label:44s} {'-':>10s} {'-':>10s} {'-':>7s}   ({note})")
                continue
            med = statistics.median
            ours_mib, bare_mib = med(o["peak_mib"] for _, o in pairs), med(b["peak_mib"] for b, _ in pairs)
            ours_s, bare_s = med(o["seconds"] for _, o in pairs), med(b["seconds"] for b, _ in pairs)
            paired = med(o["seconds"] / b["seconds"] for b, o in pairs)
            print(
                f"{label:44s} {ours_mib:>6.0f} MiB {bare_mib:>6.0f} MiB {ours_mib / bare_mib:6.2f}x"
                f" {fmt_s(ours_s):>9s} {fmt_s(bare_s):>9s} {paired:6.2f}x"
            )

    if args.variants != 1_000_000:  # a larger table may not fit the cache's budget: every "hit" would re-read it
        return
    bound = size_cache(args.budget_gib)
    print(f"\n## Warm cached load (table cache sized for a {args.budget_gib:g} GiB instance: {bound / 2**20:,.0f} MiB)")
    for label, seconds in warm_cache_figures(parquet_bytes, args.runs, use_gcs=not args.no_gcs):
        print(f"{label:66s} {fmt_s(seconds):>10s}")


if __name__ == "__main__":
    main()
