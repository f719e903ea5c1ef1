"""The bundled demo catalog and the competitor catalog hold exactly the deliberate properties that the
analyses (and their golden tests) rely on, and the committed files are what the generator writes.

Everything here is recomputed from the CSVs with the csv module; nothing is imported from generate.py
except for the determinism and README checks, which run the script itself.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
TAXONOMY = ROOT / "data" / "taxonomy" / "google-product-taxonomy-with-ids.en-US.txt"

HEADER = (
    "snapshot_date,product_id,variant_id,sku,title,description,brand,status,category,google_product_category,"
    "product_type,price,compare_at_price,currency,inventory_qty,availability,inventory_policy,gtin,mpn,color,"
    "material,size,image_url,link"
).split(",")

OF = "Furniture > Outdoor Furniture"
CHAIRS = OF + " > Outdoor Seating > Outdoor Chairs"
BEDS = OF + " > Outdoor Beds"
OTTOMANS = OF + " > Outdoor Ottomans"
STORAGE = OF + " > Outdoor Storage Boxes"
SUNLOUNGERS = OF + " > Outdoor Seating > Sunloungers"
HEALTHY = [
    SUNLOUNGERS,
    OF + " > Outdoor Tables",
    OF + " > Outdoor Seating > Outdoor Sofas",
    OF + " > Outdoor Seating > Outdoor Benches",
    OF + " > Outdoor Furniture Sets",
    OF + " > Outdoor Seating > Outdoor Sectional Sofa Units",
]


# ---------------------------------------------------------------------------------------------- helpers


def read(name: str) -> tuple[list[str], list[dict]]:
    with open(DEMO / name, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


@pytest.fixture(scope="module")
def catalog() -> list[dict]:
    return read("catalog.csv")[1]


@pytest.fixture(scope="module")
def competitor() -> list[dict]:
    return read("competitor.csv")[1]


@pytest.fixture(scope="module")
def taxonomy() -> dict[str, int]:
    """Lower-cased taxonomy path → id, parsed here independently of agent.catalog.taxonomy."""
    out = {}
    for line in TAXONOMY.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^(\d+) - (.+)$", line.strip())
        if m:
            out[m.group(2).lower()] = int(m.group(1))
    return out


def products(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[r["product_id"]].append(r)
    return out


def under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + " > ")


def check_digit_ok(code: str) -> bool:
    """GTIN-13: weights 1,3,1,3… from the left over the first 12 digits; check = (10 - sum % 10) % 10."""
    if len(code) != 13 or not code.isdigit():
        return False
    total = 0
    for position, digit in enumerate(code[:12]):
        total += int(digit) * (1 if position % 2 == 0 else 3)
    return (10 - total % 10) % 10 == int(code[12])


def test_check_digit_helper_is_right() -> None:
    # Known real EAN-13s, and a one-digit change of each.
    for good in ("4006381333931", "5901234123457", "9780306406157"):
        assert check_digit_ok(good)
        assert not check_digit_ok(good[:-1] + str((int(good[-1]) + 1) % 10))


def longest_prefix_id(path: str, taxonomy: dict[str, int]) -> int | None:
    levels = path.split(" > ")
    for n in range(len(levels), 0, -1):
        hit = taxonomy.get(" > ".join(levels[:n]).lower())
        if hit is not None:
            return hit
    return None


# ---------------------------------------------------------------------------------------------- shape


@pytest.mark.parametrize("name", ["catalog.csv", "competitor.csv"])
def test_header_encoding_and_line_ends(name: str) -> None:
    raw = (DEMO / name).read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    raw.decode("utf-8")  # strict: the file is valid UTF-8
    assert b"\r\n" not in raw
    header, rows = read(name)
    assert header == HEADER
    assert all(None not in r and len(r) == len(HEADER) for r in rows)  # no ragged rows


def test_catalog_size_dates_and_currency(catalog: list[dict]) -> None:
    assert 2800 <= len(catalog) <= 3200
    assert {r["snapshot_date"] for r in catalog} == {"2026-11-27"}
    assert {r["currency"] for r in catalog} == {"USD"}
    assert any(not r["title"].isascii() for r in catalog)  # a real UTF-8 round trip


def test_competitor_size_and_date(competitor: list[dict]) -> None:
    assert 1300 <= len(competitor) <= 1700
    assert {r["snapshot_date"] for r in competitor} == {"2026-11-25"}


@pytest.mark.parametrize("name", ["catalog.csv", "competitor.csv"])
def test_products_and_variants_are_consistent(name: str) -> None:
    rows = read(name)[1]
    prods = products(rows)
    sizes = Counter(len(v) for v in prods.values())
    assert set(sizes) <= set(range(1, 7)) and len(sizes) >= 4
    for variants in prods.values():
        for col in ("title", "brand", "status", "category", "product_type", "material", "google_product_category"):
            assert len({v[col] for v in variants}) == 1, (variants[0]["product_id"], col)
    assert len({r["variant_id"] for r in rows}) == len(rows)


def test_availability_matches_stock_and_policy(catalog: list[dict], competitor: list[dict]) -> None:
    for r in catalog + competitor:
        qty = int(r["inventory_qty"])
        assert r["inventory_policy"] in ("deny", "continue")
        if qty > 0:
            assert r["availability"] == "in_stock"
        elif r["inventory_policy"] == "deny":
            assert r["availability"] == "out_of_stock"
        else:
            assert r["availability"] in ("backorder", "preorder")
    counts = Counter(r["availability"] for r in catalog)
    assert set(counts) == {"in_stock", "out_of_stock", "backorder", "preorder"}


def test_status_mix(catalog: list[dict]) -> None:
    prods = products(catalog)
    status = Counter(v[0]["status"] for v in prods.values())
    assert set(status) == {"active", "draft", "archived"}
    assert 0.02 <= status["draft"] / len(prods) <= 0.06
    assert 0.01 <= status["archived"] / len(prods) <= 0.03


def test_one_deliberate_duplicate_sku(catalog: list[dict]) -> None:
    dupes = {s: n for s, n in Counter(r["sku"] for r in catalog).items() if n > 1}
    assert len(dupes) == 1 and list(dupes.values()) == [2]
    sku = next(iter(dupes))
    assert len({r["product_id"] for r in catalog if r["sku"] == sku}) == 2  # across two products


# ---------------------------------------------------------------------------------------------- categories


def test_categories_are_taxonomy_paths_or_documented_unmapped(catalog: list[dict], taxonomy: dict[str, int]) -> None:
    prods = products(catalog)
    unmapped = []
    extended = set()
    for variants in prods.values():
        row = variants[0]
        found = longest_prefix_id(row["category"], taxonomy)
        if found is None:
            unmapped.append(row)
            assert row["google_product_category"] == ""
            continue
        if row["category"].lower() not in taxonomy:
            extended.add(row["category"])
        if row["google_product_category"]:
            assert int(row["google_product_category"]) == found
    assert {r["category"] for r in unmapped} == {"Seasonal > Misc"}
    assert 0.01 <= len(unmapped) / len(prods) <= 0.03
    assert OF + " > Outdoor Seating > Sunloungers > Teak Loungers" in extended
    filled = sum(1 for v in prods.values() if v[0]["google_product_category"])
    assert 0.4 <= filled / len(prods) <= 0.6


def test_unmapped_titles_have_no_taxonomy_word(catalog: list[dict], taxonomy: dict[str, int]) -> None:
    words = {w for path in taxonomy for w in re.findall(r"[a-zà-ÿ]+", path)}
    for r in catalog:
        if r["category"] == "Seasonal > Misc":
            text = f"{r['title']} {r['product_type']}".lower()
            assert not set(re.findall(r"[a-zà-ÿ]+", text)) & words, r["title"]


def test_top_categories_present(catalog: list[dict]) -> None:
    cats = {r["category"] for r in catalog}
    for top in (
        "Furniture > Outdoor Furniture",
        "Furniture > Chairs",
        "Home & Garden > Lawn & Garden > Gardening",
        "Home & Garden > Lawn & Garden > Watering & Irrigation",
        "Home & Garden > Lighting",
        "Home & Garden > Decor",
        "Home & Garden > Kitchen & Dining",
    ):
        assert any(under(c, top) for c in cats), top


# ---------------------------------------------------------------------------------------------- the gaps


def active_products(rows: list[dict], path: str, exact: bool = True) -> list[list[dict]]:
    return [
        v
        for v in products(rows).values()
        if (v[0]["category"] == path if exact else under(v[0]["category"], path)) and v[0]["status"] == "active"
    ]


def test_outdoor_beds_missing(catalog: list[dict]) -> None:
    assert not [r for r in catalog if under(r["category"], BEDS)]
    assert not [r for r in catalog if r["google_product_category"] == "6892"]


def test_outdoor_ottomans_thin(catalog: list[dict]) -> None:
    assert len({r["product_id"] for r in catalog if under(r["category"], OTTOMANS)}) == 2
    assert len(active_products(catalog, OTTOMANS)) == 2


def test_storage_boxes_all_out_and_the_only_such_category(catalog: list[dict]) -> None:
    boxes = active_products(catalog, STORAGE)
    assert len(boxes) == 4
    assert all(v["availability"] == "out_of_stock" and v["inventory_qty"] == "0" for p in boxes for v in p)
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for r in catalog:
        if r["status"] == "active":
            by_cat[r["category"]].append(r)
    all_out = [c for c, rows in by_cat.items() if not any(r["availability"] == "in_stock" for r in rows)]
    assert all_out == [STORAGE]


def test_no_other_thin_category(catalog: list[dict]) -> None:
    counts = Counter(v[0]["category"] for v in products(catalog).values() if v[0]["status"] == "active")
    assert [c for c, n in counts.items() if n < 3] == [OTTOMANS]


def test_healthy_outdoor_subcategories(catalog: list[dict]) -> None:
    for path in HEALTHY:
        prods = active_products(catalog, path, exact=False)
        assert len(prods) >= 8, path
        assert any(v["availability"] == "in_stock" for p in prods for v in p), path
    assert active_products(catalog, "Furniture > Outdoor Furniture Accessories > Outdoor Furniture Covers")


def test_chair_price_ladder_has_a_hole(catalog: list[dict]) -> None:
    chairs = [r for r in catalog if r["category"] == CHAIRS]
    prices = sorted({float(r["price"]) for r in chairs})
    assert not [p for p in prices if 90 <= p < 249]
    low = {r["product_id"] for r in chairs if 39 <= float(r["price"]) < 90}
    high = {r["product_id"] for r in chairs if 249 <= float(r["price"]) <= 600}
    assert len(low) >= 20 and len(high) >= 5
    assert low | high == {r["product_id"] for r in chairs}
    steps = [b / a for a, b in zip(prices, prices[1:])]
    assert max(steps) > 2
    # The active population alone shows the same hole.
    active = sorted({float(r["price"]) for r in chairs if r["status"] == "active"})
    assert max(b / a for a, b in zip(active, active[1:])) > 2


# ---------------------------------------------------------------------------------------------- content problems


def test_gtins_invalid_check_digits(catalog: list[dict], competitor: list[dict]) -> None:
    invalid = [r for r in catalog if not check_digit_ok(r["gtin"])]
    assert len(invalid) == 15
    assert all(len(r["gtin"]) == 13 and r["gtin"].isdigit() for r in catalog)
    assert all(check_digit_ok(r["gtin"]) for r in competitor)
    assert len({r["gtin"] for r in catalog}) == len(catalog)


def test_content_problem_counts(catalog: list[dict]) -> None:
    prods = products(catalog)
    first = [v[0] for v in prods.values()]
    no_image = sum(1 for r in catalog if not r["image_url"])
    assert 0.02 <= no_image / len(catalog) <= 0.04
    assert 10 <= sum(1 for r in first if not r["description"]) <= 60
    assert 18 <= sum(1 for r in first if not r["brand"]) <= 22
    assert 2 <= sum(1 for r in first if len(r["title"]) > 150) <= 6
    zero = [r for r in catalog if r["status"] == "active" and float(r["price"]) == 0]
    assert len(zero) == 3 and len({r["product_id"] for r in zero}) == 3
    sale = [r for r in catalog if r["compare_at_price"]]
    invalid_sale = [r for r in sale if float(r["compare_at_price"]) <= float(r["price"])]
    valid_sale = [r for r in sale if float(r["compare_at_price"]) > float(r["price"])]
    assert 5 <= len(invalid_sale) <= 20
    assert 0.07 <= len(valid_sale) / len(catalog) <= 0.13


def test_brands_materials_colours(catalog: list[dict]) -> None:
    brands = {r["brand"] for r in catalog if r["brand"]}
    assert 12 <= len(brands) <= 18
    by_cat: dict[str, Counter] = defaultdict(Counter)
    for v in products(catalog).values():
        by_cat[v[0]["category"]][v[0]["brand"]] += 1
    dominated = [
        c for c, b in by_cat.items() if sum(b.values()) >= 10 and b.most_common(1)[0][1] / sum(b.values()) >= 0.8
    ]
    assert "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills" in dominated
    materials = {r["material"].lower() for r in catalog}
    assert {"teak", "acacia", "aluminium", "steel", "wicker", "rattan", "resin", "polypropylene"} <= materials
    colours = Counter(r["color"] for r in catalog)
    assert colours["Grey"] >= 3 and 3 <= colours["gray"] <= 10
    assert any(r["size"] for r in catalog) and any(not r["size"] for r in catalog)


# ---------------------------------------------------------------------------------------------- reference mode


def sunlounger_share(rows: list[dict]) -> float:
    prods = [v[0] for v in products(rows).values() if under(v[0]["category"], OF) and v[0]["status"] == "active"]
    return sum(1 for p in prods if under(p["category"], SUNLOUNGERS)) / len(prods)


def test_competitor_known_differences(catalog: list[dict], competitor: list[dict]) -> None:
    assert len(active_products(competitor, BEDS)) >= 10
    own, ref = sunlounger_share(catalog), sunlounger_share(competitor)
    assert ref >= 0.05 and own / ref < 0.5  # under-indexed by SPEC's rule
    own_brands = {r["brand"] for r in catalog if r["brand"]}
    ref_only = {r["brand"] for r in competitor if r["brand"]} - own_brands
    assert len(ref_only) == 3
    assert {r["brand"] for r in competitor} & own_brands  # some overlap, too
    band = {r["product_id"] for r in competitor if r["category"] == CHAIRS and 90 <= float(r["price"]) < 249}
    assert len(band) >= 10
    for col, value in (("material", "eucalyptus"), ("color", "sage")):
        assert any(r[col].lower() == value for r in competitor)
        assert not any(value in r[col].lower() or value in r["title"].lower() for r in catalog)


# ---------------------------------------------------------------------------------------------- determinism


def run_generator(out: Path, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, str(DEMO / "generate.py"), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_generator_reproduces_committed_files(tmp_path: Path) -> None:
    first = run_generator(tmp_path / "a", "1")
    second = run_generator(tmp_path / "b", "2")  # a different hash seed must not change anything
    assert first == second
    for name in ("catalog.csv", "competitor.csv"):
        committed = (DEMO / name).read_bytes()
        assert (tmp_path / "a" / name).read_bytes() == committed, f"{name} is stale: rerun data/demo/generate.py"
        assert (tmp_path / "b" / name).read_bytes() == committed
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- figures:start -->\n", 1)[1].split("<!-- figures:end -->", 1)[0]
    assert block == first, "data/demo/README.md figures are stale: paste the output of generate.py"
