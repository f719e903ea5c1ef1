"""assortment_gaps both ways on the same BigQuery table: read into memory (under the size line) and
aggregated in BigQuery (above it, agent.analysis.gaps_sql), against the emulator on loopback.

The table is the demo catalog's offers in the transfer schema with every offer carrying the Google
category id the in-memory path gives it (the decision in gaps_sql's docstring: both paths then place
every offer alike), plus offers priced at zero and in a second currency so the notes are compared too.
"""

from __future__ import annotations

import pytest

from agent import config as config_mod
from agent.analysis import gaps, planner
from agent.analysis.inputs import SkillInput
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.sources import load_catalog_inputs
from agent.render.footer import source_line
from tests import bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.bq_pushdown import AVAILABILITY_WORDS

MERCHANT = "123456"
QUESTIONS = (
    "Where are the gaps in my catalog?",
    "Where are the gaps in outdoor furniture?",
    "What's missing in furniture?",
)
# Every offer of the transfer carries the merchant's own Google category, and a title never moves an
# offer the merchant filed elsewhere into a scope (agent.analysis.scoping): the two paths agree on every
# question (before, the demo's "furniture" titles pulled offers of other categories in, in memory only).
IDENTICAL = QUESTIONS


def _rows_with_google_ids() -> list[dict]:
    out = []
    for i, row in enumerate(bq_seed.demo_products_rows_with_google_ids()):
        if i % 97 == 0 and row["price"]:  # a few offers priced at zero, and a few in another currency
            row = dict(row, price=dict(row["price"], value="0"))
        elif i % 89 == 0 and row["price"]:
            row = dict(row, price=dict(row["price"], currency="EUR"))
        if i % 31 == 0:  # availability as feeds also write it: both paths must read each word alike
            row = dict(row, availability=AVAILABILITY_WORDS[(i // 31) % len(AVAILABILITY_WORDS)])
        out.append(row)
    return out


def _placed_outside_the_subtree(table, scope, tax) -> int:
    """In-scope variants (in memory) whose Google category is outside the scope's taxonomy subtree."""
    if scope.taxonomy_id is None:
        return 0
    ids = set(gaps.common.scope_ids(scope, tax))
    pop = gaps.common.population(table, scope, tax, gaps.READ).table
    return sum(1 for g in pop["google_category_id"].to_pylist() if g not in ids)


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=_rows_with_google_ids()
    )


def _load(env: dict[str, str], uri: str, **over: str):
    settings = config_mod.load({**env, **over}).bigquery
    return load_catalog_inputs([], catalog_uri=uri, merchant_id=MERCHANT, bigquery=settings)


def _run(inputs, scope, tax):
    own = inputs.own
    return gaps.run(SkillInput(own=own.table, reference=None, scope=scope, taxonomy=tax, sources=tuple(own.sources)))


@pytest.mark.parametrize("question", QUESTIONS)
def test_gaps_identical_in_memory_and_in_bigquery(bq_emulator, table_uri, question):  # noqa: F811
    tax = taxonomy_mod.load()
    memory = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES=str(1 << 40))
    pushed = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0")
    assert memory.problems == [] and pushed.problems == []
    assert memory.own.table.num_rows > 0 and memory.own.sources[0].pushdown is None
    assert pushed.own.table.num_rows == 0 and pushed.own.sources[0].pushdown is not None  # nothing downloaded
    scope = planner.plan(question, memory.own.table, tax, None).scope
    a, b = _run(memory, scope, tax), _run(pushed, scope, tax)
    assert a.table.num_rows > 1
    assert b.table.schema == a.table.schema
    outside = _placed_outside_the_subtree(memory.own.table, scope, tax)
    assert question in IDENTICAL
    assert outside == 0  # every in-scope offer is placed by its Google category: the claim applies
    assert b.table.to_pylist() == a.table.to_pylist()
    assert b.findings == a.findings
    assert b.notes == a.notes and b.currency == a.currency
    if question == QUESTIONS[0]:  # the fixture's zero prices and second currency are said in both
        assert any("EUR" in n for n in a.notes) and any("0.00" in n for n in a.notes)


def test_footer_states_rows_aggregated_and_bytes_scanned(bq_emulator, table_uri):  # noqa: F811
    tax = taxonomy_mod.load()
    pushed = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0")
    ev = pushed.own.sources[0]
    n = len(_rows_with_google_ids())
    assert ev.rows_read == n and ev.snapshot_date is not None
    before = ev.bytes_scanned
    _run(pushed, planner.plan(QUESTIONS[1], pushed.own.table, tax, None).scope, tax)
    assert ev.bytes_scanned > before  # the queries' scans are added to what the footer states
    line = source_line(ev)
    assert f"{n:,} rows aggregated in BigQuery" in line and "scanned" in line and "newest partition" in line


def test_bytes_cap_refuses_the_pushdown_before_any_query(bq_emulator, table_uri):  # noqa: F811
    pushed = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0", BIGQUERY_MAXIMUM_BYTES_BILLED="1000")
    assert pushed.own is None
    assert len(pushed.problems) == 1 and "cap per question" in pushed.problems[0]


def test_the_cap_is_checked_against_the_columns_the_aggregation_reads(bq_emulator, table_uri):  # noqa: F811
    """A cap the whole projected read would pass over, but the aggregation's five columns fit under:
    the pushdown runs (it scans only what it needs); one byte less and it is refused."""
    tax = taxonomy_mod.load()
    probe = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0")
    need = probe.own.sources[0].pushdown.estimate
    whole = probe.own.sources[0].pushdown.plan.estimate_bytes
    assert need < whole
    ok = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0", BIGQUERY_MAXIMUM_BYTES_BILLED=str(need))
    assert ok.problems == []
    result = _run(ok, planner.plan(QUESTIONS[0], ok.own.table, tax, None).scope, tax)
    assert result.table.to_pylist()[0]["Variants"] == len(_rows_with_google_ids())
    refused = _load(
        bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0", BIGQUERY_MAXIMUM_BYTES_BILLED=str(need - 1)
    )
    assert refused.own is None and "cap per question" in refused.problems[0]


def test_unplaced_offers_are_counted_in_a_scoped_answer(bq_emulator):  # noqa: F811
    """Offers without a Google category cannot be placed in a scope in SQL: the answer says how many."""
    rows = _rows_with_google_ids()
    stripped = [
        dict(r, google_product_category=None, google_product_category_path=None) if i % 10 == 0 else r
        for i, r in enumerate(rows)
    ]
    uri = "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=stripped)
    tax = taxonomy_mod.load()
    pushed = _load(bq_emulator.env, uri, BIGQUERY_IN_MEMORY_BYTES="0")
    scope = planner.plan(QUESTIONS[1], pushed.own.table, tax, None).scope
    result = _run(pushed, scope, tax)
    n = sum(1 for r in stripped if r["google_product_category"] is None)
    assert any(f"{n:,} offers carry no Google product category" in note for note in result.notes)
    # and every placed offer of the scope is counted: the totals row equals the offers in the subtree
    ids = set(gaps.common.scope_ids(scope, tax))
    assert result.table.to_pylist()[0]["Variants"] == sum(1 for r in stripped if r["google_product_category"] in ids)


def test_a_table_gone_between_load_and_query_is_a_sentence_not_a_failure(bq_emulator):  # noqa: F811
    """The partition was planned, then the table went away: the skill raises the catalog layer's
    BigQueryUnavailable (a CatalogError), which the service turns into a sentence (no incident)."""
    from agent.catalog.bigquery import BigQueryUnavailable, BytesCapExceeded
    from agent.service.runner import _bigquery_refusal

    uri = "bq://" + bq_seed.create_products_table(
        bq_emulator.client, bq_emulator.project, rows=bq_seed.demo_products_rows_with_google_ids()[:40]
    )
    tax = taxonomy_mod.load()
    pushed = _load(bq_emulator.env, uri, BIGQUERY_IN_MEMORY_BYTES="0")
    bq_emulator.client.delete_table(pushed.own.sources[0].pushdown.plan.ref.table_id)
    with pytest.raises(BigQueryUnavailable) as caught:
        _run(pushed, planner.plan(QUESTIONS[0], pushed.own.table, tax, None).scope, tax)
    sentence = _bigquery_refusal("Assortment gaps", caught.value)
    assert sentence == "Assortment gaps could not be run in BigQuery just now; please ask again in a moment."
    over = _bigquery_refusal("Assortment gaps", BytesCapExceeded(2_000_000, 1_000_000))
    assert over.startswith(
        "Assortment gaps was not run in BigQuery: it would scan an estimated 2.0 MB, over the 1.0 MB cap"
    )


OVERVIEW_QUESTIONS = ("What is in my catalog?", "Give me an overview of outdoor furniture")


@pytest.mark.parametrize("question", OVERVIEW_QUESTIONS)
def test_overview_identical_in_memory_and_in_bigquery(bq_emulator, table_uri, question):  # noqa: F811
    """catalog_overview both ways on the same table: every row, finding and note (agent.analysis.overview_sql)."""
    from agent.analysis import overview

    tax = taxonomy_mod.load()
    memory = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES=str(1 << 40))
    pushed = _load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES="0")
    plan = planner.plan(question, memory.own.table, tax, None)
    assert "catalog_overview" in plan.skills
    assert _placed_outside_the_subtree(memory.own.table, plan.scope, tax) == 0

    def run(inputs):
        own = inputs.own
        return overview.run(
            SkillInput(own=own.table, reference=None, scope=plan.scope, taxonomy=tax, sources=tuple(own.sources))
        )

    a, b = run(memory), run(pushed)
    sections = {r["Section"] for r in a.table.to_pylist()}
    assert {"Summary", "Top categories (products)", "Top brands (products)"} <= sections
    assert any(s.startswith("Price bands") for s in sections)
    assert b.table.schema == a.table.schema
    assert b.table.to_pylist() == a.table.to_pylist()
    assert b.findings == a.findings
    assert b.notes == a.notes and b.currency == a.currency and b.thresholds == a.thresholds
    if question == OVERVIEW_QUESTIONS[0]:  # the fixture's zero prices and second currency are in both
        assert "Price (priced variants, EUR)" in sections and any(
            "0.00 or below" in r["Item"] for r in a.table.to_pylist()
        )
