"""Test-only tool: real corpus exports in the BigQuery emulator, every pushed-down skill asked both ways
(read into memory, and aggregated in BigQuery), and the first difference per (file, skill, question).

    .venv/bin/python -m tests.bq_corpus_diff tests/corpus/gmc/lake-erie-apparel.tsv \
        --question "Where are the gaps in my catalog?" --question "What's missing in t-shirts?"

Each file becomes transfer rows by tests/bq_seed.corpus_products_rows (the merchant's own Google
category kept, an inferred one not). By default the offers without one are left out (`--all` keeps
them): SQL cannot place those in a scope, a difference the README states, so the rest is where the
two paths claim to agree. Not a test itself (it starts its own emulator and takes minutes); the
differences it finds become tests beside tests/test_bigquery_scope_titles.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from agent.analysis import registry
from tests import bq_pushdown, bq_seed
from tests.bigquery_emulator import BqEmulator

QUESTIONS = ("Where are the gaps in my catalog?",)


def compare(env: dict[str, str], uri: str, skill: str, question: str) -> str:
    """ "same", or the first surface that differs (bq_pushdown.assert_identical's message)."""
    pair = bq_pushdown.both_ways(env, uri, skill, question)
    try:
        bq_pushdown.assert_identical(pair)
    except AssertionError as exc:
        return str(exc)
    return "same"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--question", action="append", dest="questions")
    parser.add_argument("--skill", action="append", dest="skills")
    parser.add_argument("--all", action="store_true", help="keep offers without a Google category")
    args = parser.parse_args(argv)
    skills = args.skills or sorted(registry.IN_BIGQUERY - {"demand_gaps"})  # demand_gaps needs a report
    differ = 0
    emulator = BqEmulator().start()
    try:
        for path in args.files:
            rows = bq_seed.corpus_products_rows(path)
            rows = rows if args.all else [r for r in rows if r["google_product_category"] is not None]
            uri = "bq://" + bq_seed.create_products_table(emulator.client, emulator.project, rows=rows)
            for question in args.questions or QUESTIONS:
                for skill in skills:
                    verdict = compare(emulator.env, uri, skill, question)
                    differ += verdict != "same"
                    print(f"{path.name}\t{skill}\t{question}\t{verdict[:800]}", flush=True)
    finally:
        emulator.stop()
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
