"""Every skill on generated canonical tables, key numbers recomputed independently with pandas.

The generator writes plain Python rows first (the "truth"), builds the canonical table from them with
`from_columns`, and the expectations are computed from the same rows with pandas — never by calling
the skill's helpers.
"""

from __future__ import annotations

import random

import pandas as pd
import pyarrow as pa
import pytest

from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Scope
from agent.catalog.canonical import from_columns
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import assert_prose_numbers_in_table, bullets

TAX = load()
OF = 4299  # Furniture > Outdoor Furniture
CHAIRS, SOFAS, LOUNGERS, BENCHES = 6828, 4513, 4105, 5044
OTTOMANS, STORAGE, BEDS, TABLES, SETS = 6822, 7310, 6892, 2684, 6367
LAMPS = 594  # Home & Garden > Lighting (outside the scope)


def _gtin(body: str) -> str:
    """A GTIN-13 with a correct check digit, computed the textbook way (independent of the skill)."""
    digits = [int(c) for c in body]
    total = sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return body + str((10 - total % 10) % 10)


def generate(seed: int = 7, spec=None, currency: str | None = "USD", brands=("Alpha", "Beta", "Gamma")) -> list[dict]:
    """Rows: (google id, products, price low, price high, stock mode) per category."""
    rng = random.Random(seed)
    spec = spec or [
        (CHAIRS, 12, 40, 90, "mixed"),
        (CHAIRS, 4, 260, 600, "mixed"),  # a hole between 90 and 260
        (SOFAS, 6, 500, 2000, "mixed"),
        (LOUNGERS, 3, 150, 900, "mixed"),
        (BENCHES, 5, 120, 800, "mixed"),
        (OTTOMANS, 2, 90, 200, "in"),
        (STORAGE, 3, 80, 300, "out"),
        (TABLES, 8, 60, 1300, "mixed"),
        (SETS, 7, 300, 2500, "mixed"),
        (LAMPS, 6, 15, 120, "mixed"),
    ]
    rows = []
    pk = 0
    for gid, n, lo, hi, mode in spec:
        for _ in range(n):
            pk += 1
            status = rng.choice(["active"] * 8 + ["draft", "archived"])
            brand = rng.choice(list(brands) + [None])
            for v in range(rng.randint(1, 4)):
                qty = {"in": rng.randint(1, 9), "out": 0, "mixed": rng.choice([0, 0, 3, 5, 8, None])}[mode]
                price = round(rng.uniform(lo, hi), 2)
                cap = round(price * 1.25, 2) if rng.random() < 0.2 else None
                colour = rng.choice(["Grey", "gray", "Navy", "Sand", None])
                gtin = _gtin(f"50{pk:05d}{v:05d}")
                if rng.random() < 0.1:
                    gtin = gtin[:-1] + str((int(gtin[-1]) + 1) % 10)  # broken check digit
                rows.append(
                    {
                        "product_key": pk,
                        "product_id": f"P{pk}",
                        "variant_id": f"P{pk}-{v}",
                        "sku": f"SKU-{pk}-{v}",
                        "title": f"Product {pk}",
                        "description": None if rng.random() < 0.1 else "Good.",
                        "brand": brand,
                        "status": status,
                        "category_path": TAX.node(gid).path,
                        "google_category_id": gid,
                        "category_mapping": "merchant_path",
                        "price": price,
                        "compare_at_price": cap,
                        "currency": currency,
                        "inventory_qty": qty,
                        "availability": None,
                        "inventory_policy": "continue" if rng.random() < 0.1 and mode != "out" else "deny",
                        "gtin": gtin,
                        "color": colour,
                        "material": rng.choice(["Teak", "Aluminium", "aluminum"]),
                        "image_url": None if rng.random() < 0.05 else f"https://x/{pk}-{v}.jpg",
                    }
                )
    return rows


def canonical(rows: list[dict]) -> pa.Table:
    cols = {k: [r[k] for r in rows] for k in rows[0]}
    return from_columns(cols)


def scope_of(node_id: int) -> Scope:
    node = TAX.node(node_id)
    return Scope(label=node.name, taxonomy_id=node.id, taxonomy_path=node.path)


def run(skill: str, rows, scope=None, ref_rows=None):
    inp = SkillInput(
        own=canonical(rows), reference=canonical(ref_rows) if ref_rows else None, scope=scope or Scope(), taxonomy=TAX
    )
    return SKILLS[skill].run(inp)


def frame(rows) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    return df[df["status"].isin(["active"]) | df["status"].isna()]


def within(df: pd.DataFrame, node_id: int) -> pd.DataFrame:
    ids = {node_id, *TAX.descendants(node_id)}
    return df[df["google_category_id"].isin(ids)]


def table_rows(result) -> list[dict]:
    return result.table.to_pylist()


# --- registry ------------------------------------------------------------------------------------------------
def test_registry_lists_seven_skills_in_stable_order_with_examples():
    assert list(SKILLS) == [
        "assortment_gaps",
        "price_ladder",
        "attribute_coverage",
        "brand_coverage",
        "availability",
        "content_quality",
        "catalog_overview",
        "demand_gaps",
    ]
    for spec in SKILLS.values():
        assert len(spec.examples) >= 3 and spec.tags and spec.description and spec.name


@pytest.mark.parametrize("skill", list(SKILLS))
@pytest.mark.parametrize("with_ref", [False, True])
def test_every_skill_renders_with_numbers_from_its_table(skill, with_ref):
    rows = generate()
    ref = generate(seed=11, brands=("Alpha", "Zeta")) if with_ref else None
    for scope in (Scope(), scope_of(OF)):
        result = run(skill, rows, scope, ref)
        md = render_skill(result)
        assert 1 <= len(bullets(md)) <= 7
        assert_prose_numbers_in_table(md)
        assert result.table.num_rows >= 1


@pytest.mark.parametrize("skill", list(SKILLS))
def test_every_skill_survives_an_empty_scope(skill):
    rows = generate(spec=[(LAMPS, 3, 10, 50, "mixed")])
    result = run(skill, rows, scope_of(OF))
    md = render_skill(result)
    assert md.startswith("## ")
    assert_prose_numbers_in_table(md)


# --- assortment_gaps -----------------------------------------------------------------------------------------
def test_gaps_counts_and_gap_types_match_pandas():
    rows = generate()
    result = run("assortment_gaps", rows, scope_of(OF))
    df = within(frame(rows), OF)
    got = {r["Subcategory"]: r for r in table_rows(result)}
    for gid in (CHAIRS, SOFAS, LOUNGERS, BENCHES, OTTOMANS, STORAGE, TABLES, SETS):
        sub = df[df["google_category_id"] == gid]
        r = got[TAX.node(gid).name]
        assert r["Products"] == sub["product_key"].nunique()
        assert r["Variants"] == len(sub)
        assert r["In-stock variants"] == int((sub["inventory_qty"].fillna(0) > 0).sum())
        assert r["Min price"] == pytest.approx(sub["price"].min())
        assert r["Median price"] == pytest.approx(sub["price"].median(), abs=0.006)
        assert r["Max price"] == pytest.approx(sub["price"].max())
        n = sub["product_key"].nunique()
        assert ("thin" in (r["Gap"] or "")) == (0 < n < 3)
    assert got["Outdoor Beds"]["Products"] == 0 and got["Outdoor Beds"]["Gap"] == "missing"
    assert "out of stock only" in got["Outdoor Storage Boxes"]["Gap"]
    assert got["Sunloungers"]["Group"] == "Outdoor Seating"
    total = table_rows(result)[0]
    assert total["Products"] == df["product_key"].nunique() and total["Variants"] == len(df)
    all_rows = within(pd.DataFrame(rows), OF)
    left_out = all_rows[all_rows["status"].isin(["draft", "archived"])]["product_key"].nunique()
    assert total["Left out (draft/archived products)"] == left_out
    assert result.chart == ("Subcategory", "Products")
    assert result.taxonomy_note == "10 subcategories under Furniture > Outdoor Furniture"
    md = render_skill(result)
    assert "Outdoor Beds" in md and "Outdoor Storage Boxes" in md


def test_gaps_order_puts_missing_first_and_totals_row_on_top():
    result = run("assortment_gaps", generate(), scope_of(OF))
    gaps = [r["Gap"] for r in table_rows(result)]
    assert gaps[0] is None  # totals
    assert gaps[1] == "missing"


def test_gaps_in_a_broad_scope_show_what_the_shop_holds_beside_its_gaps():
    # "gaps in clothing" on a swimwear shop: 160-odd empty leaves are more severe than its one row
    # with products, which came ~150th and out of every table's 20 rows
    swimwear, dresses = 211, 2271
    rows = generate(spec=[(swimwear, 30, 40, 90, "in"), (dresses, 2, 40, 90, "in")])
    table = table_rows(run("assortment_gaps", rows, scope_of(1604)))
    assert len(table) > 100
    shown = table[:20]
    names = [r["Subcategory"] for r in shown]
    assert "Swimwear" in names and "Dresses" in names  # every subcategory holding products
    assert sum(r["Gap"] == "missing" for r in shown) >= 5  # and the gaps, still most of the window
    gaps = [r["Gap"] or "" for r in shown[1:]]
    assert gaps.index("thin") > gaps.index("missing") and gaps[-1] == ""  # the window keeps severity order
    assert len({(r["Group"], r["Subcategory"]) for r in table}) == len(table)  # each row once


def test_gaps_reference_share_index_and_price_floor():
    own = generate()
    ref_spec = [
        (LOUNGERS, 30, 100, 1200, "mixed"),
        (CHAIRS, 10, 90, 250, "mixed"),
        (BEDS, 5, 600, 2000, "mixed"),
        (STORAGE, 2, 40, 60, "mixed"),
    ]
    ref = generate(seed=3, spec=ref_spec)
    result = run("assortment_gaps", own, scope_of(OF), ref)
    got = {r["Subcategory"]: r for r in table_rows(result)}
    df, rdf = within(frame(own), OF), within(frame(ref), OF)
    own_total, ref_total = df["product_key"].nunique(), rdf["product_key"].nunique()
    for gid in (LOUNGERS, CHAIRS):
        own_share = round(100 * df[df.google_category_id == gid].product_key.nunique() / own_total, 1)
        ref_share = round(100 * rdf[rdf.google_category_id == gid].product_key.nunique() / ref_total, 1)
        r = got[TAX.node(gid).name]
        assert r["Own share"] == own_share and r["Reference share"] == ref_share
        assert r["Share index"] == round(own_share / ref_share * 100)
    assert "under-indexed" in got["Sunloungers"]["Gap"]
    # storage: own cheapest is far above the reference's P25
    ref_storage = rdf[rdf.google_category_id == STORAGE]["price"]
    assert got["Outdoor Storage Boxes"]["Reference P25"] == pytest.approx(ref_storage.quantile(0.25), abs=0.006)
    assert "price floor" in got["Outdoor Storage Boxes"]["Gap"]
    md = render_skill(result)
    assert "the reference has" in md  # Outdoor Beds: missing here, sold by the reference
    assert_prose_numbers_in_table(md)


def test_gaps_counts_unmapped_products_in_scope_through_merchant_categories():
    rows = generate(spec=[(CHAIRS, 3, 40, 90, "in")])
    extra = dict(
        rows[0],
        product_key=999,
        product_id="P999",
        variant_id="P999-0",
        sku="SKU-999",
        google_category_id=None,
        category_mapping="unmapped",
        category_path="Garden > Teak things",
        status="active",
    )
    rows.append(extra)
    scope = Scope(
        label="Outdoor Furniture",
        taxonomy_id=OF,
        taxonomy_path=TAX.node(OF).path,
        merchant_categories=("Garden > Teak things",),
    )
    result = run("assortment_gaps", rows, scope)
    got = {r["Subcategory"]: r for r in table_rows(result)}
    assert got["Not mapped to a subcategory"]["Products"] == 1
    assert "not mapped to a subcategory" in render_skill(result)


# --- availability --------------------------------------------------------------------------------------------
def test_availability_matches_pandas():
    rows = generate()
    result = run("availability", rows, scope_of(OF))
    df = within(frame(rows), OF)
    total = table_rows(result)[0]
    known = df[df["inventory_qty"].notna()]
    oos = known[(known["inventory_qty"] <= 0) & (known["inventory_policy"] != "continue")]
    assert total["Out-of-stock variants"] == len(oos)
    assert total["Stock unknown variants"] == int(df["inventory_qty"].isna().sum())
    assert total["Out-of-stock rate"] == round(100 * len(oos) / len(known), 1)
    flags = df.assign(o=(df["inventory_qty"].fillna(1) <= 0) & (df["inventory_policy"] != "continue"))
    per = flags.groupby("product_key")["o"].all()
    assert total["Products fully out"] == int(per.sum())
    storage = next(r for r in table_rows(result) if r["Category"] == "Outdoor Storage Boxes")
    assert storage["Out-of-stock rate"] == 100.0


def test_availability_says_unknown_when_no_stock_data():
    rows = generate()
    for r in rows:
        r["inventory_qty"] = None
        r["availability"] = None
    result = run("availability", rows)
    assert table_rows(result)[0]["Out-of-stock variants"] is None  # unknown, never zero
    md = render_skill(result)
    assert "Stock is unknown" in md
    assert "0 variants are out of stock" not in md


def test_availability_reads_stated_availability_over_quantity():
    rows = generate(spec=[(CHAIRS, 4, 40, 90, "in")])
    for r in rows:
        r["status"] = "active"
        r["availability"] = "out_of_stock"
    result = run("availability", rows)
    assert table_rows(result)[0]["Out-of-stock rate"] == 100.0


# --- price_ladder --------------------------------------------------------------------------------------------
def test_price_ladder_percentiles_tiers_and_hole():
    rows = generate()
    result = run("price_ladder", rows, scope_of(OF))
    df = within(frame(rows), OF)
    # every figure is over priced variants (price above zero), not each product's cheapest variant
    priced = df[(df.google_category_id == CHAIRS) & (df.price > 0)]
    chairs = priced["price"]
    r = next(x for x in table_rows(result) if x["Category"] == "Outdoor Seating > Outdoor Chairs")
    assert r["Priced variants"] == len(chairs)
    assert r["Products"] == priced["product_key"].nunique()
    for col, q in (("P10", 0.1), ("P25", 0.25), ("Median", 0.5), ("P75", 0.75), ("P90", 0.9)):
        assert r[col] == pytest.approx(chairs.quantile(q), abs=0.006)
    t1, t2 = chairs.quantile(1 / 3), chairs.quantile(2 / 3)
    assert (r["Good"], r["Better"], r["Best"]) == (
        (chairs < t1).sum(),
        ((chairs >= t1) & (chairs < t2)).sum(),
        (chairs >= t2).sum(),
    )
    prices = sorted(chairs)
    steps = [(b / a, a, b) for a, b in zip(prices, prices[1:])]
    ratio, a, b = max(steps)
    assert r["Largest step from"] == pytest.approx(a) and r["Largest step to"] == pytest.approx(b)
    assert r["Step"] == round(ratio, 1) and ratio > 2
    assert "jumps from" in render_skill(result)


def test_price_ladder_reference_tertiles_find_empty_tier():
    own = generate(spec=[(CHAIRS, 10, 40, 60, "in"), (CHAIRS, 5, 500, 600, "in")])
    ref = generate(seed=5, spec=[(CHAIRS, 30, 40, 600, "in")])
    result = run("price_ladder", own, scope_of(OF), ref)
    r = next(x for x in table_rows(result) if x["Category"] == "Outdoor Seating > Outdoor Chairs")
    assert r["Better"] == 0
    md = render_skill(result)
    assert "no better" in md


def test_price_ladder_own_tertiles_call_tied_prices_no_empty_tier():
    # a real t-shirt shop (tests/corpus/shopify/planilha-camisetas-pt.csv): 112 of 196 variants at 89.90 made
    # the own lower tertile 89.90, and "Empty price tiers: Shirts & Tops (no good)" read as a hole
    own = generate(spec=[(CHAIRS, 10, 50, 50, "in"), (CHAIRS, 5, 80, 120, "in")])
    result = run("price_ladder", own, scope_of(OF))
    r = next(x for x in table_rows(result) if x["Category"] == "Outdoor Seating > Outdoor Chairs")
    assert r["Good"] == 0
    md = render_skill(result)
    assert "Empty price tiers" not in md
    assert "One price holds a third or more of the variants" in md and "Outdoor Chairs (USD 50.00)" in md


# --- content_quality -----------------------------------------------------------------------------------------
def _valid_gtin(code: str) -> bool:
    if not code or not code.isdigit() or len(code) not in (8, 12, 13, 14):
        return False
    digits = [int(c) for c in code.zfill(14)]
    total = sum(d * (3 if i % 2 == 0 else 1) for i, d in enumerate(digits[:13]))
    return (10 - total % 10) % 10 == digits[13]


def test_gtin_validation_against_known_codes():
    from agent.analysis.content_quality import gtin_valid

    codes = [
        "4006381333931",
        "73513537",
        "036000291452",
        "10036000291459",
        "4006381333932",
        "3.65E+11",
        "'00123",
        "",
        None,
        " 4006381333931 ",
    ]
    got = gtin_valid(pa.array(codes)).to_pylist()
    assert got == [True, True, True, True, False, False, False, None, None, True]
    for c in codes[:7]:
        assert _valid_gtin(c) == (got[codes.index(c)] is True)


def test_content_quality_counts_match_pandas():
    rows = generate()
    assert [r["status"] for r in rows[:4]] == ["active"] * 4  # the planted faults sit on analysed rows
    rows[0]["sku"] = rows[3]["sku"]  # duplicate sku
    rows[1]["title"] = "x" * 151
    rows[2]["price"] = 0.0
    rows[3]["compare_at_price"] = rows[3]["price"]  # "sale" price not below the regular one
    result = run("content_quality", rows)
    df = frame(rows)
    got = {r["Item"]: r for r in table_rows(result) if r["Section"] == "Check"}
    assert got["Invalid GTIN (check digit or format)"]["Affected rows"] == int((~df["gtin"].map(_valid_gtin)).sum())
    assert got["Missing image"]["Affected rows"] == int(df["image_url"].isna().sum())
    assert got["Missing description"]["Affected rows"] == int(df["description"].isna().sum())
    assert got["Missing brand"]["Affected products"] == df[df["brand"].isna()]["product_key"].nunique()
    assert got["Duplicate SKU"]["Affected rows"] == 2
    assert got["Title over 150 characters"]["Affected rows"] == 1
    assert got["Zero or missing price"]["Affected rows"] == int((df["price"].isna() | (df["price"] <= 0)).sum()) == 1
    cap = df["compare_at_price"]
    assert got["Sale price not below regular price"]["Affected rows"] == int((cap <= df["price"]).sum()) == 1
    complete = table_rows(result)[0]
    bad = (
        df["title"].isna()
        | df["image_url"].isna()
        | (df["price"] <= 0)
        | ~df["gtin"].map(_valid_gtin)
        | df["description"].isna()
        | df["brand"].isna()
        | df["google_category_id"].isna()
    )
    assert complete["Complete"] == round(100 * (1 - bad.mean()), 1)
    md = render_skill(result)
    assert "complete for Google Shopping" in md


# --- attribute_coverage --------------------------------------------------------------------------------------
def test_attribute_fill_rates_and_spelling_merge():
    rows = generate()
    ref = generate(seed=9)
    for r in ref:
        r["material"] = "Eucalyptus"
    result = run("attribute_coverage", rows, scope_of(OF), ref)
    df = within(frame(rows), OF)
    got = {r["Attribute"]: r for r in table_rows(result)}
    assert got["Colour"]["Filled rows"] == int(df["color"].notna().sum())
    assert got["Colour"]["Fill rate"] == round(100 * df["color"].notna().mean(), 1)
    assert got["Colour"]["Spelling variants merged (rows)"] == int((df["color"] == "gray").sum())
    assert got["Colour"]["Distinct values"] == df["color"].dropna().str.lower().replace({"gray": "grey"}).nunique()
    assert got["Material"]["Distinct values"] == 2  # teak, aluminium (aluminum merged)
    assert got["Material"]["Examples only in reference"] == "Eucalyptus"
    assert "Eucalyptus" in render_skill(result)


def test_attribute_options_fill_colour_when_column_empty():
    rows = generate(spec=[(CHAIRS, 3, 40, 90, "in")])
    for r in rows:
        r["color"] = None
        r["status"] = "active"
    t = canonical(rows)
    names = pa.array(["Colour"] * t.num_rows).dictionary_encode().cast(t.schema.field("option1_name").type)
    t = t.set_column(t.schema.get_field_index("option1_name"), "option1_name", names)
    t = t.set_column(t.schema.get_field_index("option1_value"), "option1_value", pa.array(["Sage"] * t.num_rows))
    result = SKILLS["attribute_coverage"].run(SkillInput(own=t, reference=None, scope=Scope(), taxonomy=TAX))
    got = {r["Attribute"]: r for r in table_rows(result)}
    assert got["Colour"]["Fill rate"] == 100.0


# --- brand_coverage ------------------------------------------------------------------------------------------
def test_brand_coverage_reference_only_brands():
    own = generate(brands=("Alpha", "Beta"))
    ref = generate(seed=4, brands=("Alpha", "Zeta", "Omega"))
    result = run("brand_coverage", own, Scope(), ref)
    total = table_rows(result)[0]
    rdf = frame(ref)
    assert total["Brands only in reference"] == len({b for b in rdf["brand"].dropna()} - {"Alpha", "Beta"})
    zeta = rdf[rdf["brand"] == "Zeta"]["product_key"].nunique()
    assert f"Zeta ({zeta:,})" in total["Reference-only brands (products)"]
    md = render_skill(result)
    assert "Zeta" in md and "you do not" in md


def test_brand_coverage_flags_single_vendor():
    own = generate(brands=("Solo",))
    for r in own:
        r["brand"] = "Solo"
    result = run("brand_coverage", own)
    assert "Single-vendor catalog" in render_skill(result)


@pytest.mark.parametrize("skill", list(SKILLS))
def test_every_skill_survives_degenerate_tables(skill):
    from agent.catalog.canonical import empty_table

    tables = (
        empty_table(),
        from_columns({"product_key": [1, 2, 3]}),
        from_columns({"product_key": [1, 1, 2], "status": ["draft"] * 3}),
    )
    for t in tables:
        for ref in (None, empty_table(), t):
            for scope in (Scope(), scope_of(OF)):
                md = render_skill(SKILLS[skill].run(SkillInput(own=t, reference=ref, scope=scope, taxonomy=TAX)))
                assert md.startswith("## ")
                assert_prose_numbers_in_table(md)


def test_largest_price_step_matches_brute_force_on_random_ladders():
    import numpy as np

    from agent.analysis.price_ladder import _largest_steps

    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        ci = rng.integers(0, 5, n)
        price = np.round(rng.random(n) * 100, 2)
        price[rng.random(n) < 0.1] = np.nan
        got = _largest_steps(ci.copy(), price.copy())
        expected = {}
        for c in set(ci.tolist()):
            p = sorted(x for x, k in zip(price, ci) if k == c and not np.isnan(x))
            best = None
            for a, b in zip(p, p[1:]):
                if a > 0 and (best is None or b / a > best[2]):
                    best = (a, b, b / a)
            if best:
                expected[c] = best
        assert set(got) == set(expected)
        for c, (a, b, r) in expected.items():
            assert got[c][0] == a and got[c][1] == b and got[c][2] == pytest.approx(r)


def test_quantiles_by_code_match_pandas_on_random_groups_with_gaps():
    import numpy as np

    from agent.analysis.common import quantiles_by_code

    rng = np.random.default_rng(5)
    keys = rng.integers(0, 300, 5000) * 7919  # sparse, large ids, dense codes per distinct key
    values = np.round(rng.random(5000) * 3000, 2)
    values[rng.random(5000) < 0.05] = np.nan
    ids, codes = np.unique(keys, return_inverse=True)
    table = quantiles_by_code(codes, len(ids), values, (0.1, 0.5, 0.9))
    got = {int(key): list(table[i]) for i, key in enumerate(ids) if not np.isnan(table[i, 0])}
    df = pd.DataFrame({"k": keys, "v": values}).dropna()
    for k, grp in df.groupby("k")["v"]:
        assert got[k] == pytest.approx([grp.quantile(0.1), grp.quantile(0.5), grp.quantile(0.9)], abs=1e-6)


@pytest.mark.parametrize("shuffled", [False, True])
def test_distinct_per_code_fast_and_fallback_paths_match_pandas(shuffled):
    import numpy as np

    from agent.analysis.common import distinct_per_code

    rng = np.random.default_rng(11)
    pk = np.sort(rng.integers(0, 400, 3000))
    codes = rng.integers(0, 7, 3000)
    # ordered input: codes ascending within each product (the catalog layer's layout)
    order = np.lexsort((codes, pk))
    pk, codes = pk[order], codes[order]
    if shuffled:
        perm = rng.permutation(len(pk))
        pk, codes = pk[perm], codes[perm]
    got = distinct_per_code(codes, pk, 7)
    expected = pd.DataFrame({"c": codes, "pk": pk}).groupby("c")["pk"].nunique().reindex(range(7), fill_value=0)
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("skill", list(SKILLS))
def test_row_order_does_not_change_results(skill):
    """Ordered product keys take numpy fast paths; shuffled rows take the hash fallbacks: same answer."""
    import numpy as np

    rows = generate()
    ref = generate(seed=11, brands=("Alpha", "Zeta"))
    shuffled = [rows[i] for i in np.random.default_rng(2).permutation(len(rows))]
    for scope in (Scope(), scope_of(OF)):
        a = run(skill, rows, scope, ref)
        b = run(skill, shuffled, scope, ref)
        drop = [c for c in a.table.column_names if c == "Examples"]  # first failing rows differ by design
        assert a.table.drop_columns(drop).to_pylist() == b.table.drop_columns(drop).to_pylist()
        assert [f.code for f in a.findings] == [f.code for f in b.findings]


def test_taxonomy_note_for_a_leaf_scope_says_no_subcategories():
    from agent.analysis import common
    from agent.analysis.result import Scope
    from agent.catalog import taxonomy

    tax = taxonomy.load()
    outdoor = 4299  # Furniture > Outdoor Furniture
    leaf = next(tax.node(i) for i in tax.descendants(outdoor) if not tax.descendants(i))
    note = common.taxonomy_note(Scope(label=leaf.name, taxonomy_id=leaf.id, taxonomy_path=leaf.path), tax)
    assert note == f"{leaf.path} (no subcategories)"
    whole = common.taxonomy_note(Scope(label="x", taxonomy_id=outdoor, taxonomy_path=tax.node(outdoor).path), tax)
    assert whole == f"{len(tax.descendants(outdoor))} subcategories under Furniture > Outdoor Furniture"
