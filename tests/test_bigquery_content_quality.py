"""Merchant Center destination statuses and item issues in content_quality (issue 15, item 1).

A `Products_` transfer table's `destinations` and `issues` records become the canonical columns
`disapproved_destinations` / `issue_codes` (agent.catalog.mc_status); content_quality reports how many
offers are disapproved where and the most common item issues, on both paths (read into memory under
the size line, aggregated in BigQuery above it), with figures recomputed here from the seeded rows.
A CSV source shows no trace of either (no row, no finding, no sentence).
"""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from agent import config as config_mod
from agent.analysis import content_quality, planner
from agent.analysis.inputs import SkillInput
from agent.catalog import mc_status
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.sources import load_catalog_inputs, load_demo
from agent.render.text import render_skill, sentence
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

MERCHANT = "123456"
WHOLE = "Is my catalog ready for Google Shopping?"


@pytest.fixture(scope="module")
def seeded(bq_emulator):  # noqa: F811
    rows = bq_seed.demo_products_rows_with_google_ids()
    return rows, "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)


def _load(env, uri, **over):
    settings = config_mod.load({**env, **over}).bigquery
    return load_catalog_inputs([], catalog_uri=uri, merchant_id=MERCHANT, bigquery=settings)


def _run(inputs, question):
    tax = taxonomy_mod.load()
    own = inputs.own
    scope = planner.plan(question, own.table, tax, None).scope
    return content_quality.run(
        SkillInput(own=own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(own.sources))
    )


def _expected(rows):
    """Per destination and per issue code: (offers, products, the three smallest offer ids), from the seed."""
    dest: dict[str, list[dict]] = {}
    issue: dict[str, list[dict]] = {}
    anywhere = []
    for r in rows:
        names = {d["name"] for d in r["destinations"] if d["status"] == "disapproved" or d["disapproved_countries"]}
        for name in names:
            dest.setdefault(name, []).append(r)
        if names:
            anywhere.append(r)
        for code in {i["code"] for i in r["issues"]}:
            issue.setdefault(code, []).append(r)

    def figures(found):
        ids = sorted({r["offer_id"] for r in found})[:3]
        return len(found), len({r["item_group_id"] for r in found}), ", ".join(ids)

    return figures(anywhere), {k: figures(v) for k, v in dest.items()}, {k: figures(v) for k, v in issue.items()}


def _mc_rows(result):
    return [r for r in result.table.to_pylist() if r["Section"] == content_quality.MC_SECTION]


@pytest.mark.parametrize("line", ["memory", "bigquery"])
def test_disapprovals_and_item_issues_reported_both_ways(bq_emulator, seeded, line):  # noqa: F811
    rows, uri = seeded
    size = str(1 << 40) if line == "memory" else "0"
    inputs = _load(bq_emulator.env, uri, BIGQUERY_IN_MEMORY_BYTES=size)
    assert inputs.problems == [] and (inputs.own.sources[0].pushdown is None) == (line == "memory")
    result = _run(inputs, WHOLE)
    mc = {r["Item"]: r for r in _mc_rows(result)}
    anywhere, per_dest, per_issue = _expected(rows)
    summary = mc[content_quality.MC_DISAPPROVED]
    assert (summary["Affected rows"], summary["Affected products"], summary["Examples"]) == anywhere
    assert summary["Share of rows"] == round(100 * anywhere[0] / len(rows), 1)
    for name, want in per_dest.items():
        got = mc[content_quality.MC_DESTINATION.format(name)]
        assert (got["Affected rows"], got["Affected products"], got["Examples"]) == want
    top = sorted(per_issue.items(), key=lambda kv: (-kv[1][0], kv[0]))[: content_quality.TOP_ISSUES]
    issue_rows = [r for r in _mc_rows(result) if r["Item"].startswith("Item issue: ")]
    assert [(r["Item"], r["Affected rows"], r["Affected products"], r["Examples"]) for r in issue_rows] == [
        (content_quality.MC_ISSUE.format(code), *want) for code, want in top
    ]
    assert len(per_dest) == 2 and len(per_issue) >= 2  # the seed disapproves in both destinations
    text = " ".join(sentence(f, result.currency) for f in result.findings)
    assert f"Merchant Center disapproves {anywhere[0]:,} offers in {anywhere[1]:,} products: " in text
    first = content_quality.MC_ISSUE.format("")
    assert f"Most common Merchant Center item issues: {top[0][0]} ({top[0][1][0]:,} offers)" in text
    assert "Merchant Center disapproves" in render_skill(result) and first in render_skill(result)


def test_the_columns_from_the_transfer_records():
    """mc_status on hand-made records: disapproved by country list or by the (deprecated) status, names
    trimmed, sorted, de-duplicated; no record is "" (stated none), never null."""
    dest_type = pa.list_(
        pa.struct(
            [
                ("name", pa.string()),
                ("status", pa.string()),
                ("approved_countries", pa.list_(pa.string())),
                ("pending_countries", pa.list_(pa.string())),
                ("disapproved_countries", pa.list_(pa.string())),
            ]
        )
    )

    def d(name, status="approved", disapproved=()):
        return {
            "name": name,
            "status": status,
            "approved_countries": [],
            "pending_countries": [],
            "disapproved_countries": list(disapproved),
        }

    records = pa.array(
        [
            [d("Shopping", disapproved=["DE"]), d(" DisplayAds ", "disapproved")],
            [d("Shopping"), d("SurfacesAcrossGoogle", "pending")],
            [],
            None,
            [d("Shopping", "Disapproved"), d("Shopping", disapproved=["US"])],
        ],
        dest_type,
    )
    assert mc_status.disapproved_destinations(records).to_pylist() == ["DisplayAds\nShopping", "", "", "", "Shopping"]
    issue_type = pa.list_(pa.struct([("code", pa.string()), ("servability", pa.string())]))
    issues = pa.array([[{"code": "b"}, {"code": "a"}, {"code": "b"}], [], [{"code": " "}]], issue_type)
    assert mc_status.issue_codes(issues).to_pylist() == ["a\nb", "", ""]


def test_a_csv_source_shows_no_trace():
    tax = taxonomy_mod.load()
    demo, _ = load_demo()
    assert demo["disapproved_destinations"].null_count == demo.num_rows == demo["issue_codes"].null_count
    scope = planner.plan(WHOLE, demo, tax, None).scope
    result = content_quality.run(SkillInput(own=demo, reference=None, scope=scope, taxonomy=tax))
    assert _mc_rows(result) == []
    assert not any(
        f.code in ("quality.disapproved", "quality.approved", "quality.item_issues") for f in result.findings
    )
    assert "Merchant Center" not in render_skill(result)


def test_a_transfer_table_with_no_disapprovals_says_so(bq_emulator):  # noqa: F811
    rows = [
        dict(r, destinations=bq_seed.destinations(0), issues=[])
        for r in bq_seed.demo_products_rows_with_google_ids()[:60]
    ]
    uri = "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)
    for size in (str(1 << 40), "0"):
        result = _run(_load(bq_emulator.env, uri, BIGQUERY_IN_MEMORY_BYTES=size), WHOLE)
        mc = _mc_rows(result)
        assert [(r["Item"], r["Affected rows"]) for r in mc] == [(content_quality.MC_DISAPPROVED, 0)]
        assert any(f.code == "quality.approved" for f in result.findings)
        assert Counter(f.code for f in result.findings)["quality.item_issues"] == 0
