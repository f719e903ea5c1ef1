"""Every pushed-down skill both ways on a real feed whose offers the merchant filed *above* the asked
scope: tests/corpus/gmc/amies-homemade-inr-tab.txt files "Ratalu Chips" under Food Items, and the
in-memory path places it in Chips by its title (agent.analysis.scoping: a title places a product filed
more broadly). Its SQL forms used to keep only the scope's subtree ids, so "What's missing in chips?"
counted it in memory and not in BigQuery; now sql_run.scope_filter sends the keys of such offers, which
the in-memory rule itself picks (sql_run.filed_above_keys).

The feed's offers with no Google category of the merchant's are left out of the table: SQL cannot place
those (the decision in agent.analysis.gaps_sql), so the paths are compared where they claim to agree.
"""

from __future__ import annotations

import pytest

from agent.analysis import common, registry
from tests import bq_pushdown, bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

FEED = bq_seed.ROOT / "tests" / "corpus" / "gmc" / "amies-homemade-inr-tab.txt"
QUESTION = "What's missing in chips?"
SKILLS = sorted(registry.IN_BIGQUERY - {"demand_gaps"})  # demand_gaps needs a Best sellers report


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    rows = [r for r in bq_seed.corpus_products_rows(FEED) if r["google_product_category"] is not None]
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)


@pytest.mark.parametrize("skill", SKILLS)
def test_offers_filed_above_the_scope_count_alike(bq_emulator, table_uri, skill):  # noqa: F811
    pair = bq_pushdown.both_ways(bq_emulator.env, table_uri, skill, QUESTION)
    tax, scope = bq_pushdown.taxonomy_mod.load(), pair.scope
    pop = common.population(pair.memory_inputs.own.table, scope, tax).table
    inside = set(common.scope_ids(scope, tax))
    above = [t for t, g in zip(pop["title"].to_pylist(), pop["google_category_id"].to_pylist()) if g not in inside]
    assert above == ["Ratalu Chips"]  # the premise: one offer in scope by its title, filed at Food Items
    bq_pushdown.assert_identical(pair)
