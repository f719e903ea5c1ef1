"""Shopify status (issue 11): `Published = false` with `Status = active` is an active product that is not
on the online store — counted as active and named as such in the overview, never called a draft.
Legacy exports without a Status column: `Published` is the only status (unpublished = draft).

Generated over both header generations and every Status × Published combination; the expected
numbers are counted from the generated products."""

from __future__ import annotations

import csv
import io
import itertools
import random

import pyarrow.compute as pc
import pytest

from agent.analysis import overview
from agent.analysis.inputs import SkillInput
from agent.analysis.planner import Scope
from agent.catalog import taxonomy
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.render.text import render_skill

LEGACY = {
    "handle": "Handle",
    "title": "Title",
    "published": "Published",
    "status": "Status",
    "sku": "Variant SKU",
    "price": "Variant Price",
    "image": "Image Src",
}
MODERN = {
    "handle": "URL handle",
    "title": "Title",
    "published": "Published on online store",
    "status": "Status",
    "sku": "SKU",
    "price": "Price",
    "image": "Product image URL",
}
STATUSES = ("active", "draft", "archived", "")
PUBLISHED = {"legacy": ("true", "false", ""), "modern": ("TRUE", "FALSE", "")}


def export(names: dict[str, str], products: list[dict], with_status: bool = True) -> bytes:
    keys = [k for k in names if with_status or k != "status"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([names[k] for k in keys])
    for p in products:
        for v in range(p["variants"]):
            first = v == 0
            row = {
                "handle": p["handle"],
                "title": p["handle"].title() if first else "",
                "published": p["published"] if first else "",
                "status": p["status"] if first else "",
                "sku": f"{p['handle']}-{v}",
                "price": "10.00",
                "image": f"https://x/{p['handle']}.jpg" if first else "",
            }
            w.writerow([row[k] for k in keys])
    return buf.getvalue().encode()


def generated(generation: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    combos = list(itertools.product(STATUSES, PUBLISHED[generation]))
    return [
        {"handle": f"p{i}", "status": s, "published": pub, "variants": rng.randint(1, 3)}
        for i, (s, pub) in enumerate(combos * 3)
    ]


def expected_status(p: dict, with_status: bool) -> str:
    off = p["published"].lower() == "false"
    on = p["published"].lower() == "true"
    if with_status and p["status"]:
        return p["status"]
    return "draft" if off else "active" if on else "unknown"


def overview_text(table, ev) -> str:
    result = overview.run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=taxonomy.load(), sources=(ev,)))
    return render_skill(result, [])


@pytest.mark.parametrize("generation,seed", [("legacy", 1), ("modern", 2), ("legacy", 3), ("modern", 4)])
def test_unpublished_active_products_stay_active(generation, seed):
    products = generated(generation, seed)
    names = LEGACY if generation == "legacy" else MODERN
    table, ev = read_table_bytes(export(names, products), "products_export.csv", KIND_ATTACHED)
    by_status = {st: sum(p["variants"] for p in products if expected_status(p, True) == st) for st in STATUSES[:3]}
    counts = {st: pc.sum(pc.equal(table["status"].cast("string"), st)).as_py() or 0 for st in STATUSES[:3]}
    assert counts == by_status
    off_rows = sum(p["variants"] for p in products if p["status"] == "active" and p["published"].lower() == "false")
    got_off = pc.sum(
        pc.fill_null(
            pc.and_(pc.equal(table["status"].cast("string"), "active"), pc.invert(table["online_store"])), False
        ).cast("int64")
    ).as_py()
    assert got_off == off_rows > 0
    text = overview_text(table, ev)
    assert f"| Status (rows) | active, of which not on the online store | {off_rows} |" in text
    assert f"{off_rows} active rows are not on the online store" in text
    drafts = by_status["draft"]
    assert f"Left out of the analysis: {drafts} draft rows" in text


@pytest.mark.parametrize("generation", ["legacy", "modern"])
def test_exports_without_status_keep_the_published_rule(generation):
    products = generated(generation, 9)
    names = LEGACY if generation == "legacy" else MODERN
    table, ev = read_table_bytes(export(names, products, with_status=False), "old.csv", KIND_ATTACHED)
    for st in ("active", "draft", "unknown"):
        want = sum(p["variants"] for p in products if expected_status(p, False) == st)
        assert (pc.sum(pc.equal(table["status"].cast("string"), st)).as_py() or 0) == want
    # an unpublished product here is a draft, so none is "active but not on the online store"
    assert "not on the online store" not in overview_text(table, ev)


def test_all_published_says_nothing_about_the_online_store():
    products = [{"handle": f"p{i}", "status": "active", "published": "true", "variants": 2} for i in range(5)]
    table, ev = read_table_bytes(export(LEGACY, products), "s.csv", KIND_ATTACHED)
    assert table["online_store"].to_pylist() == [True] * 10
    assert "online store" not in overview_text(table, ev)


@pytest.mark.parametrize("generation", ["legacy", "modern"])
def test_unlisted_products_are_active_whatever_published_says(generation):
    """Shopify's `Unlisted` status (2025): sold and reachable by its link, only left out of search and
    collections — an active product, also when `Published` is false; never a draft."""
    rng = random.Random(len(generation))
    pubs = PUBLISHED[generation]
    products = [
        {
            "handle": f"p{i}",
            "status": rng.choice(("unlisted", "Unlisted", "active", "draft")),
            "published": rng.choice(pubs),
            "variants": rng.randint(1, 3),
        }
        for i in range(24)
    ]
    names = LEGACY if generation == "legacy" else MODERN
    table, _ = read_table_bytes(export(names, products), "products_export.csv", KIND_ATTACHED)
    for st, want in (
        ("active", sum(p["variants"] for p in products if p["status"].lower() in ("unlisted", "active"))),
        ("draft", sum(p["variants"] for p in products if p["status"] == "draft")),
    ):
        assert (pc.sum(pc.equal(table["status"].cast("string"), st)).as_py() or 0) == want, st


@pytest.mark.parametrize("column", ["Standard Product Type", "Standardized Product Type"])
def test_the_2021_header_reads_its_standard_product_type_as_the_category(column):
    """The 2021–2023 header generation (`Standard Product Type`, `Custom Product Type`, before `Product
    Category` and `Type`): the standard type is Shopify's taxonomy path — the product's category —
    and the custom type its own type; both were left unused ("Columns not used: Standard Product Type")."""
    tax = taxonomy.load()
    rng = random.Random(column)
    paths = [
        "Apparel & Accessories > Clothing > Dresses",
        "Home & Garden > Kitchen & Dining > Cookware & Bakeware > Cookware",
        "Food, Beverages & Tobacco > Food Items > Snack Foods",
    ]
    rows = []
    want: dict[str, int] = {}
    for i in range(18):
        path = rng.choice(paths)
        want[path] = want.get(path, 0) + 1
        rows.append([f"h{i}", f"Thing {i}", "Acme", path, f"Own {i % 3}", "true", f"S{i}", "10.00", "active"])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "Handle",
            "Title",
            "Vendor",
            column,
            "Custom Product Type",
            "Published",
            "Variant SKU",
            "Variant Price",
            "Status",
        ]
    )
    w.writerows(rows)
    table, ev = read_table_bytes(buf.getvalue().encode(), "products_export_1.csv", KIND_ATTACHED)
    assert column not in ev.unmapped_columns
    by_id = {p: next(n.id for n in tax.nodes.values() if n.path == p) for p in paths}
    ids = table["google_category_id"].to_pylist()
    for path, n in want.items():
        assert ids.count(by_id[path]) == n, path
    own = table["own_categories"].to_pylist()
    assert all(any(path in (o or "") for path in paths) and "Own " in (o or "") for o in own)
