"""price_ladder, availability and brand_coverage both ways on the same BigQuery table: read into memory
(under the size line) and aggregated in BigQuery (above it: agent/analysis/price_ladder_sql.py,
availability_sql.py, brands_sql.py), on the emulator on loopback. Every surface is compared: the
table, the findings, the notes, the text answer and the A2UI messages (tests/bq_pushdown.py).

The table is the demo catalog's offers in the transfer schema, each carrying the Google category id the
in-memory path gives it (the placement decision of agent.analysis.gaps_sql: both paths then place every
offer alike), made messier where each skill reads: prices at zero and in a second currency, sale
prices (some not below the price), availability words as feeds write them, brands with stray and
doubled spaces, blank, in other cases, or saying there is no brand ("Sin marca", "N/A", "-"), titles with spaces around them.
"""

from __future__ import annotations

import dataclasses

import pytest

from agent.analysis import registry
from agent.catalog import taxonomy as taxonomy_mod
from agent.catalog.readers.common import is_no_brand
from tests import bq_pushdown, bq_seed
from tests.bigquery_emulator import bq_emulator  # noqa: F401 - fixture
from tests.bq_pushdown import AVAILABILITY_WORDS

SKILLS = ("price_ladder", "availability", "brand_coverage")
# (skill, question): the whole catalog and a scope, for each skill
QUESTIONS = (
    ("price_ladder", "How is my catalog priced?"),
    ("price_ladder", "How is my patio furniture priced?"),
    ("price_ladder", "Are there holes in my price ladder for outdoor furniture?"),
    ("availability", "What is out of stock?"),
    ("availability", "What is out of stock in patio furniture?"),
    ("availability", "What is out of stock in furniture?"),
    ("brand_coverage", "Which brands do I sell?"),
    ("brand_coverage", "Which brands do I sell in garden furniture?"),
    ("brand_coverage", "Is my outdoor furniture dominated by one brand?"),
)
WHOLE_CATALOG = ("How is my catalog priced?", "What is out of stock?", "Which brands do I sell?")


def messy_rows() -> list[dict]:
    """The demo transfer rows with the messes each skill's SQL form must read as the in-memory path does."""
    out = []
    for i, row in enumerate(bq_seed.demo_products_rows_with_google_ids()):
        price = row["price"]
        if i % 97 == 0 and price:
            row = dict(row, price=dict(price, value="0"))
        elif i % 89 == 0 and price:
            row = dict(row, price=dict(price, currency="EUR"))
        elif i % 7 == 0 and price:  # on sale: a sale price below the price (every third one above it)
            factor = "1.10" if i % 21 == 0 else "0.80"
            value = f"{float(price['value']) * float(factor):.2f}"
            row = dict(row, sale_price={"value": value, "currency": price["currency"]})
        if i % 31 == 0:
            row = dict(row, availability=AVAILABILITY_WORDS[(i // 31) % len(AVAILABILITY_WORDS)])
        elif i % 5 == 0:
            row = dict(row, availability="out of stock")
        if i % 13 == 0 and row.get("brand"):
            row = dict(row, brand=f"  {row['brand']}  ")
        elif i % 17 == 0 and row.get("brand"):
            row = dict(row, brand=row["brand"].replace(" ", "   ") + " ")
        elif i % 19 == 0:
            row = dict(row, brand="  ")
        elif i % 23 == 0 and row.get("brand"):  # the same brand in other cases: one brand both ways
            row = dict(row, brand=row["brand"].upper())
        elif i % 29 == 0 and row.get("brand"):
            row = dict(row, brand=row["brand"].lower())
        elif i % 37 == 0 and row.get("brand"):  # a cell saying there is no brand: none both ways
            row = dict(row, brand=("Sin marca", "N/A", "-", "GENERIC")[(i // 37) % 4])
        if i % 11 == 0:
            row = dict(row, title=f"  {row['title']} ")
        out.append(row)
    return out


@pytest.fixture(scope="module")
def table_uri(bq_emulator):  # noqa: F811
    return "bq://" + bq_seed.create_products_table(bq_emulator.client, bq_emulator.project, rows=messy_rows())


def test_the_skills_run_in_bigquery():
    assert set(SKILLS) <= registry.IN_BIGQUERY
    assert {skill for skill, _ in QUESTIONS} == set(SKILLS)


@pytest.mark.parametrize("skill,question", QUESTIONS)
def test_identical_in_memory_and_in_bigquery(bq_emulator, table_uri, skill, question):  # noqa: F811
    pair = bq_pushdown.both_ways(bq_emulator.env, table_uri, skill, question)
    if question in WHOLE_CATALOG:
        assert pair.scope.taxonomy_id is None, question  # the whole catalog
    else:
        assert pair.scope.taxonomy_id is not None, question  # a scope
    assert pair.memory.table.num_rows > 1 and len(pair.memory.findings) > 1
    bq_pushdown.assert_identical(pair)


def test_the_fixture_exercises_what_each_skill_reads(bq_emulator, table_uri):  # noqa: F811
    """The messes are in the answers, so the comparison above covers them (a test that cannot fail…)."""
    ladder = bq_pushdown.both_ways(bq_emulator.env, table_uri, "price_ladder", QUESTIONS[0][1]).pushed
    codes = {f.code for f in ladder.findings}
    assert {"ladder.discount", "ladder.mixed_currency", "ladder.zero_prices"} <= codes
    stock = bq_pushdown.both_ways(bq_emulator.env, table_uri, "availability", QUESTIONS[3][1]).pushed
    total = stock.table.to_pylist()[0]
    assert total["Backorder variants"] and total["Preorder variants"] and total["Stock unknown variants"]
    assert total["Products fully out"] and any(r["Out-of-stock products (examples)"] for r in stock.table.to_pylist())
    brands = bq_pushdown.both_ways(bq_emulator.env, table_uri, "brand_coverage", QUESTIONS[6][1]).pushed
    rows = brands.table.to_pylist()
    assert rows[0]["Products without brand"]
    names = {r["Top brand"] for r in rows if r["Top brand"]}
    assert names and all(n == n.strip() and "  " not in n for n in names)
    messy = {r["brand"].strip() for r in messy_rows() if r.get("brand") and r["brand"].strip()}
    assert len({b.lower() for b in messy}) < len({" ".join(b.split()) for b in messy})  # case variants are in it
    assert any(is_no_brand(b) for b in messy)  # cells saying there is no brand are in it
    assert rows[0]["Brands"] == len({" ".join(b.split()).lower() for b in messy if not is_no_brand(b)})


def test_overview_brands_identical_in_memory_and_in_bigquery(bq_emulator, table_uri):  # noqa: F811
    """The overview's brand count and top brands on the messy table (brands in other cases among them),
    both ways (agent.analysis.overview_sql's LOWER(brand) and the in-memory common.brand_key)."""
    pair = bq_pushdown.both_ways(bq_emulator.env, table_uri, "catalog_overview", "What is in my catalog?")
    rows = [r for r in pair.memory.table.to_pylist() if r["Section"] in ("Summary", "Top brands (products)")]
    assert any(r["Section"] == "Top brands (products)" for r in rows)
    bq_pushdown.assert_identical(pair)


@pytest.mark.parametrize("skill", SKILLS)
def test_the_bytes_cap_refuses_each_query(bq_emulator, table_uri, skill):  # noqa: F811
    """A cap lowered below what the skill's queries read: the skill's query is refused, not run, and the
    service says so in a sentence."""
    from agent.catalog.bigquery import BytesCapExceeded
    from agent.service.runner import _bigquery_refusal

    tax = taxonomy_mod.load()
    pushed = bq_pushdown.load(bq_emulator.env, table_uri, BIGQUERY_IN_MEMORY_BYTES=bq_pushdown.NONE_IN_MEMORY)
    pushdown = pushed.own.sources[0].pushdown
    pushdown.settings = dataclasses.replace(pushdown.settings, maximum_bytes_billed=pushdown.estimate - 1)
    scope = bq_pushdown.planner.plan(QUESTIONS[0][1], pushed.own.table, tax, None).scope
    with pytest.raises(BytesCapExceeded) as caught:
        bq_pushdown.run_skill(skill, pushed, scope, tax)
    name = registry.SKILLS[skill].name
    assert _bigquery_refusal(name, caught.value).startswith(f"{name} was not run in BigQuery: it would scan")
