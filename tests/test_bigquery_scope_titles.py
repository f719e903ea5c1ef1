"""Every pushed-down skill both ways on real feeds whose scope is found by titles outside the scope's
Google subtree — which agent.analysis.scoping does in memory and SQL cannot, so sql_run.scope_filter
sends the keys of such offers, picked by the in-memory rule itself (sql_run.title_placed_keys):

- filed *above* the scope: tests/corpus/gmc/amies-homemade-inr-tab.txt files "Ratalu Chips" under Food
  Items, and "What's missing in chips?" places it in Chips by its title (a title places a product filed
  more broadly). The SQL forms kept only the subtree's ids: 1 product in memory, 0 in BigQuery.
- a scope of title words only: the taxonomy has no tank-top node, so "tank tops" in
  tests/corpus/gmc/lake-erie-apparel.tsv is the offers whose titles name them (1 product, 18 variants);
  the SQL forms took a scope without a Google node for the whole catalog (159 variants).

The feeds' offers with no Google category of the merchant's are left out of the tables: SQL cannot place
those (the decision in agent.analysis.gaps_sql), so the paths are compared where they claim to agree.
"""

from __future__ import annotations

import pytest

from agent.analysis import common, registry
from tests import bq_pushdown, bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture

CORPUS = bq_seed.ROOT / "tests" / "corpus" / "gmc"
FEEDS = {"filed above": "amies-homemade-inr-tab.txt", "titles only": "lake-erie-apparel.tsv"}
QUESTIONS = {"filed above": "What's missing in chips?", "titles only": "How is my catalog priced in tank tops?"}
SKILLS = sorted(registry.IN_BIGQUERY - {"demand_gaps"})  # demand_gaps needs a Best sellers report


@pytest.fixture(scope="module")
def uris(bq_emulator):  # noqa: F811
    out = {}
    for case, name in FEEDS.items():
        rows = [r for r in bq_seed.corpus_products_rows(CORPUS / name) if r["google_product_category"] is not None]
        out[case] = "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows)
    return out


def _premise(case: str, pair: bq_pushdown.BothWays) -> None:
    """What makes the case: in-scope offers (in memory) outside the scope's Google subtree."""
    tax, scope, table = bq_pushdown.taxonomy_mod.load(), pair.scope, pair.memory_inputs.own.table
    pop = common.population(table, scope, tax).table
    inside = set(common.scope_ids(scope, tax))
    outside = [t for t, g in zip(pop["title"].to_pylist(), pop["google_category_id"].to_pylist()) if g not in inside]
    if case == "filed above":
        assert outside == ["Ratalu Chips"]  # filed at Food Items, placed in Chips by its title
    else:
        assert scope.taxonomy_id is None and not scope.is_whole_catalog
        assert 0 < pop.num_rows == len(outside) < table.num_rows


@pytest.mark.parametrize("case", sorted(FEEDS))
@pytest.mark.parametrize("skill", SKILLS)
def test_offers_placed_by_title_count_alike(bq_emulator, uris, case, skill):  # noqa: F811
    pair = bq_pushdown.both_ways(bq_emulator.env, uris[case], skill, QUESTIONS[case])
    _premise(case, pair)
    bq_pushdown.assert_identical(pair)
