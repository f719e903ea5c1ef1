"""Generate the Best sellers test reports from the demo catalog (standard library only, deterministic).

    python tests/bestsellers/generate.py            # writes products.csv and brands.csv beside this file

`products.csv` has the headers of the Best sellers report downloaded from Merchant Center (product
clusters: "Rank", "Previous rank", "Relative demand", "Product title", "Brand", "Category", "Report
category ID", "Country", "Price range", "Product inventory status", "Brand inventory status", "GTINs",
"Report date"); `brands.csv` has the BigQuery transfer's column names as a CSV export of
`BestSellersBrandWeekly_<id>` writes them (`relative_demand.bucket`, `_PARTITIONDATE`, ...).

What is in them, by construction: per Google category of the demo catalog's outdoor and garden range,
clusters the demo merchant carries (its own titles, brands and GTINs; the status IN_STOCK, or
OUT_OF_STOCK when every variant is out of stock) mixed with clusters it does not carry (invented
brands, NOT_IN_INVENTORY), and categories it lacks (hammocks, porch swings) or barely carries
(outdoor storage boxes: four products, all out of stock). Every cluster is ranked under its own category and again under its top-level report category
(Furniture, Home & Garden), as the report does. A few rows rank in CA as well as US. A few carried
clusters leave the status blank, so the catalog cross-check (GTIN) decides there. Invented names only.
"""

from __future__ import annotations

import csv
import random
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO = HERE.parents[1] / "data" / "demo" / "catalog.csv"
TAXONOMY = HERE.parents[1] / "data" / "taxonomy" / "google-product-taxonomy-with-ids.en-US.txt"
REPORT_DATE = "2026-11-23"
CATEGORIES = (
    "Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs",
    "Furniture > Outdoor Furniture > Outdoor Furniture Sets",
    "Furniture > Outdoor Furniture > Outdoor Tables",
    "Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers",
    "Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Sofas",
    "Home & Garden > Lawn & Garden > Outdoor Living > Outdoor Umbrellas & Sunshades",
    "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills",
    "Home & Garden > Lawn & Garden > Gardening > Pots & Planters",
    "Home & Garden > Household Appliances > Climate Control Appliances > Patio Heaters",
)
LACKING = (  # categories the demo merchant has nothing in
    ("Home & Garden > Lawn & Garden > Outdoor Living > Hammocks", ("Hammock", "Hammock Chair", "Hammock Stand")),
    ("Home & Garden > Lawn & Garden > Outdoor Living > Porch Swings", ("Porch Swing", "Canopy Swing")),
    ("Furniture > Outdoor Furniture > Outdoor Storage Boxes", ("Deck Box", "Storage Bench")),
)
BRANDS = ("Sunvale", "Harbor & Pine", "Brightwick", "Kestrel Outdoor", "Moorland Co", "Alder Lane")
BUCKETS = ((3, "Very high"), (8, "High"), (15, "Medium"), (25, "Low"), (10**9, "Very low"))
WORDS = ("Classic", "Coastal", "Breeze", "Summit", "Haven", "Meadow", "Harbor", "Willow")


def bucket(rank: int) -> str:
    return next(name for top, name in BUCKETS if rank <= top)


def taxonomy_ids() -> dict[str, int]:
    out = {}
    for line in TAXONOMY.read_text(encoding="utf-8").splitlines():
        if " - " in line and line[:1].isdigit():
            num, path = line.split(" - ", 1)
            out[path.strip()] = int(num)
    return out


def demo_products() -> dict[str, list[dict]]:
    """Category path -> products: title, brand, GTINs, any variant in stock, price range."""
    per: dict[tuple, dict] = {}
    with DEMO.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["status"] != "active":
                continue
            p = per.setdefault(
                (row["category"], row["product_id"]),
                {"title": row["title"], "brand": row["brand"], "gtins": [], "in_stock": False, "prices": []},
            )
            if row["gtin"]:
                p["gtins"].append(row["gtin"])
            p["in_stock"] |= row["availability"] == "in_stock"
            p["prices"].append(float(row["price"] or 0))
    out: dict[str, list[dict]] = defaultdict(list)
    for (cat, _), p in sorted(per.items()):
        out[cat].append(p)
    return out


def main(out_dir: Path = HERE) -> None:
    rng = random.Random(15)
    ids = taxonomy_ids()
    demo = demo_products()
    clusters: list[dict] = []
    for cat in CATEGORIES:
        carried = demo.get(cat, [])
        rng.shuffle(carried)
        noun = cat.rsplit(" > ", 1)[-1].rstrip("s")
        lacking = [
            {
                "title": f"{b} {rng.choice(WORDS)} {noun}",
                "brand": b,
                "gtins": [f"0{rng.randrange(10**11, 10**12)}"],
                "in_stock": None,
                "prices": [round(rng.uniform(40, 900), 2)],
            }
            for b in rng.sample(BRANDS, 5)
        ]
        pool = carried[:7] + lacking
        rng.shuffle(pool)
        clusters.extend({"cat": cat, **p} for p in pool)
    for cat, nouns in LACKING:
        for i, b in enumerate(rng.sample(BRANDS, 4)):
            clusters.append(
                {
                    "cat": cat,
                    "title": f"{b} {rng.choice(WORDS)} {nouns[i % len(nouns)]}",
                    "brand": b,
                    "gtins": [f"0{rng.randrange(10**11, 10**12)}"],
                    "in_stock": None,
                    "prices": [round(rng.uniform(60, 700), 2)],
                }
            )
    rows = []
    by_report: dict[str, list[dict]] = defaultdict(list)
    for c in clusters:
        by_report[c["cat"]].append(c)
        by_report[c["cat"].split(" > ")[0]].append(c)
    for report_cat, members in by_report.items():
        for rank, c in enumerate(members, start=1):
            status = "NOT_IN_INVENTORY" if c["in_stock"] is None else ("IN_STOCK" if c["in_stock"] else "OUT_OF_STOCK")
            brand_status = "IN_STOCK" if c["in_stock"] is not None or c["brand"] not in BRANDS else "NOT_IN_INVENTORY"
            if c["in_stock"] is not None and rng.random() < 0.12:
                status = ""  # the report leaves it blank: the GTIN cross-check decides
            prev = rank + rng.choice((-2, -1, 0, 1, 3)) if rng.random() < 0.8 else ""
            lo, hi = min(c["prices"]), max(c["prices"])
            for country in ("US", "CA") if rank <= 3 and len(report_cat) > 10 else ("US",):
                rows.append(
                    {
                        "Rank": rank,
                        "Previous rank": max(1, prev) if prev != "" else "",
                        "Relative demand": bucket(rank),
                        "Previous relative demand": bucket(max(1, prev)) if prev != "" else "",
                        "Product title": c["title"],
                        "Brand": c["brand"],
                        "Category": c["cat"],
                        "Report category ID": ids[report_cat],
                        "Country": country,
                        "Price range": f"{lo:.2f} - {hi:.2f} USD",
                        "Product inventory status": status,
                        "Brand inventory status": brand_status,
                        "GTINs": ", ".join(c["gtins"][:4]),
                        "Report date": REPORT_DATE,
                    }
                )
    with (out_dir / "products.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    # brands: the demo's own brands and the invented ones, per top-level and scope-level report category
    own_brands = sorted({p["brand"] for ps in demo.values() for p in ps if p["brand"]})
    brand_rows = []
    for report_cat in ("Furniture > Outdoor Furniture", "Home & Garden > Lawn & Garden"):
        names = rng.sample(own_brands, 6) + list(BRANDS)
        rng.shuffle(names)
        for rank, b in enumerate(names, start=1):
            hi = max(5, 100 - rank * 7)
            brand_rows.append(
                {
                    "rank": rank,
                    "previous_rank": rank + rng.choice((-1, 0, 2)) if rank > 1 else 1,
                    "brand": b,
                    "report_category_id": ids[report_cat],
                    "country_code": "US",
                    "relative_demand.bucket": bucket(rank).upper().replace(" ", "_"),
                    "relative_demand.min": hi - 10,
                    "relative_demand.max": hi,
                    "previous_relative_demand.bucket": bucket(rank + 1).upper().replace(" ", "_"),
                    "brand_inventory_status": "NOT_IN_INVENTORY" if b in BRANDS else "IN_STOCK",
                    "_PARTITIONDATE": REPORT_DATE,
                }
            )
    with (out_dir / "brands.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(brand_rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(brand_rows)
    print(f"products.csv: {len(rows)} rows; brands.csv: {len(brand_rows)} rows")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
