"""A real agent process asked about a scope the Google taxonomy has no node for, above and under
BigQuery's size line: "tank tops" and "hoodies" in tests/corpus/gmc/lake-erie-apparel.tsv are the offers
whose titles name them (in memory 18 and 33 variants). Above the line no rows are downloaded, and the
planner, seeing no title, read "tank tops" as the whole catalog and "hoodies" as Shirts & Tops; it now
reads the titles that name the question's words (agent.analysis.sql_run.planning_rows), so both answers
say the same scope and figures. The tests/test_bigquery_scope_titles.py cases plan in memory, so they
could not see it. Offers without a Google category are left out, as there (SQL places none in a scope).
"""

from __future__ import annotations

import pytest

from tests import bq_pushdown, bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.helpers import artifacts_text, ask_with_catalog_context

FEED = bq_seed.ROOT / "tests" / "corpus" / "gmc" / "lake-erie-apparel.tsv"
MERCHANT = 557


@pytest.fixture(scope="module")
def dataset(bq_emulator):  # noqa: F811
    rows = [r for r in bq_seed.corpus_products_rows(FEED) if r["google_product_category"] is not None]
    return bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=rows, merchant_id=MERCHANT)


def _answer(text: str) -> str:
    """The answer above its footer (which says how the catalog was read: rows read or aggregated)."""
    assert "\n---\n" in text, text
    return text.split("\n---\n", 1)[0]


@pytest.mark.parametrize(
    "question,variants",
    [("How is my catalog priced in tank tops?", 18), ("How is my catalog priced in hoodies?", 33)],
)
def test_a_title_scope_is_planned_alike(bq_emulator, dataset, start_server, question, variants):  # noqa: F811
    context = {"merchant_id": str(MERCHANT), "catalog_uri": f"bq://{dataset}"}
    env = {**bq_emulator.env, "ALLOWED_CATALOG_PREFIXES": f"bq://{dataset}"}
    answers = {}
    for line in (bq_pushdown.ALL_IN_MEMORY, bq_pushdown.NONE_IN_MEMORY):
        srv = start_server({**env, "BIGQUERY_IN_MEMORY_BYTES": line})
        answers[line] = artifacts_text(ask_with_catalog_context(srv.url, context, question))
    memory, pushed = answers[bq_pushdown.ALL_IN_MEMORY], answers[bq_pushdown.NONE_IN_MEMORY]
    assert "rows aggregated in BigQuery" in pushed and "rows read" in memory  # the premise: both paths
    assert f"| {variants} |" in memory, memory  # the scope's variants, as the previous reading counted
    assert "Scope: products whose title names" in memory  # a title scope in memory
    assert _answer(pushed) == _answer(memory)
