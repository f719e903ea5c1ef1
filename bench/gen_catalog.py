"""Generate the benchmark catalog: 1,000,000 variants as a Shopify product export (CSV) and as Parquet.

Deterministic (fixed seed, no clock): the same files on every machine, so figures are comparable.

* `bench/out/catalog-1m.csv` — Shopify product export, legacy header set, about 200 MB. Product
  fields (title, body, vendor, category, …) sit on the first row of each handle only and variant rows
  leave them blank, as Shopify writes them, so ingest has to fill down. A few Excel-damaged barcodes
  (`3.65275E+11`) and drafts/archived products are mixed in.
* `bench/out/catalog-1m.parquet` — the same variants as a flat warehouse table (one row per variant,
  every field filled, low-cardinality strings dictionary-encoded, `snapshot_date` in the key-value
  metadata), the shape a nightly export to Cloud Storage usually has.

Usage: `.venv/bin/python bench/gen_catalog.py [--variants N] [--out bench/out]`
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
TAXONOMY = ROOT / "data" / "taxonomy" / "google-product-taxonomy-with-ids.en-US.txt"
SEED = 20261128
SNAPSHOT_DATE = "2026-11-28"

SHOPIFY_HEADER = [
    "Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published",
    "Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
    "Variant SKU", "Variant Grams", "Variant Inventory Tracker", "Variant Inventory Qty",
    "Variant Inventory Policy", "Variant Fulfillment Service", "Variant Price", "Variant Compare At Price",
    "Variant Requires Shipping", "Variant Taxable", "Variant Barcode", "Image Src", "Image Position",
    "Image Alt Text", "Gift Card", "SEO Title", "SEO Description",
    "Google Shopping / Google Product Category", "Google Shopping / Gender", "Google Shopping / Age Group",
    "Google Shopping / MPN", "Google Shopping / Condition", "Google Shopping / Custom Product",
    "Variant Image", "Variant Weight Unit", "Variant Tax Code", "Cost per item", "Status",
]  # fmt: skip

ADJECTIVES = ["Classic", "Modern", "Rustic", "Compact", "Deluxe", "Essential", "Premium", "Coastal", "Urban",
              "Nordic", "Vintage", "Heritage", "Breeze", "Summit", "Harbor", "Meadow", "Granite", "Willow"]  # fmt: skip
MATERIALS = ["Teak", "Acacia", "Aluminium", "Rattan", "Steel", "Oak", "Cotton", "Linen", "Wool", "Bamboo",
             "Resin", "Concrete", "Ceramic", "Glass", "Leather", "Polyester"]  # fmt: skip
COLORS = ["Black", "White", "Grey", "Navy", "Green", "Sand", "Terracotta", "Natural", "Charcoal", "Blue",
          "Red", "Olive"]  # fmt: skip
SIZES = ["XS", "S", "M", "L", "XL", "Small", "Medium", "Large", "120 cm", "160 cm", "200 cm"]
TOP_LEVELS = ("Furniture", "Home & Garden", "Apparel & Accessories", "Sporting Goods", "Hardware",
              "Baby & Toddler", "Toys & Games", "Luggage & Bags")  # fmt: skip


def taxonomy_leaves() -> list[str]:
    """Leaf paths under a few top levels: realistic category strings, deterministic order."""
    paths = []
    for line in TAXONOMY.read_text(encoding="utf-8").splitlines():
        if " - " in line and not line.startswith("#"):
            paths.append(line.split(" - ", 1)[1].strip())
    parents = {p.rsplit(" > ", 1)[0] for p in paths if " > " in p}
    leaves = [p for p in paths if p not in parents and p.startswith(TOP_LEVELS)]
    return sorted(leaves)


def brands(rng: np.random.Generator, n: int = 240) -> list[str]:
    syllables = ["ka", "lo", "mi", "ra", "ven", "to", "sol", "an", "dri", "el", "no", "va", "gar", "ith", "ur"]
    out = set()
    while len(out) < n:
        k = int(rng.integers(2, 4))
        out.add("".join(rng.choice(syllables, k)).capitalize() + rng.choice(["", " Co", " Living", " & Sons"]))
    return sorted(out)


def _s(values: np.ndarray | pa.Array) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


def _pick(choices: list[str], idx: np.ndarray) -> pa.Array:
    return pa.array(choices, pa.string()).take(pa.array(idx))


def _join(*parts: pa.Array | str) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def _ean13(rng: np.random.Generator, n: int) -> np.ndarray:
    """Valid EAN-13 codes (12 random digits + check digit), as int64."""
    body = rng.integers(10**11, 10**12, n, dtype=np.int64)
    digits = np.stack([(body // 10**k) % 10 for k in range(11, -1, -1)], axis=1)  # left to right
    weights = np.tile([1, 3], 6)
    check = (10 - (digits * weights).sum(axis=1) % 10) % 10
    return body * 10 + check


def build(n_variants: int) -> tuple[pa.Table, pa.Table]:
    """(shopify_csv_table, flat_parquet_table) for `n_variants` variants."""
    rng = np.random.default_rng(SEED)
    # Variants per product: 1..8, mean about 4; cut the last product so the total is exact.
    per_product = rng.integers(1, 8, size=n_variants // 2 + 10)
    ends = np.cumsum(per_product)
    n_products = int(np.searchsorted(ends, n_variants) + 1)
    per_product = per_product[:n_products].copy()
    per_product[-1] -= int(ends[n_products - 1] - n_variants)
    product_of_row = np.repeat(np.arange(n_products), per_product)
    starts = np.concatenate([[0], np.cumsum(per_product)[:-1]])
    variant_index = np.arange(n_variants) - starts[product_of_row]  # 0 for the product's first row
    is_first = variant_index == 0

    leaves = taxonomy_leaves()
    brand_names = brands(rng)
    p_adj = rng.integers(0, len(ADJECTIVES), n_products)
    p_mat = rng.integers(0, len(MATERIALS), n_products)
    p_cat = rng.integers(0, len(leaves), n_products)
    p_brand = rng.integers(0, len(brand_names), n_products)
    p_status = rng.choice(3, n_products, p=[0.9, 0.07, 0.03])
    p_base_price = np.round(rng.lognormal(4.0, 0.9, n_products), 2) + 0.99
    pid = np.arange(1, n_products + 1) + 100000
    nouns = [leaf.rsplit(" > ", 1)[1] for leaf in leaves]

    p_title = _join(_pick(ADJECTIVES, p_adj), " ", _pick(MATERIALS, p_mat), " ", _pick(nouns, p_cat))
    p_handle = pc.utf8_lower(pc.replace_substring_regex(_join(p_title, "-", _s(pid)), r"[^A-Za-z0-9]+", "-"))
    p_body = _join(
        "<p>", p_title, " in ", pc.utf8_lower(_pick(MATERIALS, p_mat)), ". Built to last, easy to care for.</p>"
    )
    p_tags = _join(_pick(MATERIALS, p_mat), ", ", _pick(ADJECTIVES, p_adj))
    status_names = ["active", "draft", "archived"]

    # Per-row values.
    take = pa.array(product_of_row)
    color_idx = (rng.integers(0, len(COLORS), n_products)[product_of_row] + variant_index) % len(COLORS)
    size_idx = (variant_index * 3 + rng.integers(0, len(SIZES), n_products)[product_of_row]) % len(SIZES)
    price = np.round(p_base_price[product_of_row] * (1 + 0.1 * (variant_index % 3)), 2)
    has_compare = rng.random(n_variants) < 0.3
    compare_at = np.round(price * 1.25, 2)
    qty = np.where(rng.random(n_variants) < 0.12, 0, rng.integers(1, 60, n_variants))
    barcode_num = _ean13(rng, n_variants)
    barcode = _s(barcode_num)
    damaged = rng.random(n_variants) < 0.01
    barcode = pc.if_else(
        pa.array(damaged),
        _join(pc.utf8_slice_codeunits(barcode, 0, 1), ".", pc.utf8_slice_codeunits(barcode, 1, 6), "E+12"),
        barcode,
    )
    sku = _join("SKU-", _s(pid[product_of_row]), "-", _s(variant_index + 1))
    first = pa.array(is_first)

    def on_first(values: pa.Array) -> pa.Array:
        """Product-level field: on the first row of each handle only, blank (null) below it."""
        return pc.if_else(first, values.take(take), pa.scalar(None, values.type))

    def const(value: str) -> pa.Array:
        return pa.array(np.full(n_variants, value, dtype=object), pa.string())

    null = pa.nulls(n_variants, pa.string())
    price_s = pc.cast(pa.array(price), pa.string())
    shopify = {
        "Handle": p_handle.take(take),
        "Title": on_first(p_title),
        "Body (HTML)": on_first(p_body),
        "Vendor": on_first(_pick(brand_names, p_brand)),
        "Product Category": on_first(_pick(leaves, p_cat)),
        "Type": on_first(_pick(nouns, p_cat)),
        "Tags": on_first(p_tags),
        "Published": on_first(pa.array(np.where(p_status == 0, "TRUE", "FALSE").astype(object), pa.string())),
        "Option1 Name": on_first(pa.array(np.full(n_products, "Color", dtype=object), pa.string())),
        "Option1 Value": _pick(COLORS, color_idx),
        "Option2 Name": on_first(pa.array(np.full(n_products, "Size", dtype=object), pa.string())),
        "Option2 Value": _pick(SIZES, size_idx),
        "Option3 Name": null,
        "Option3 Value": null,
        "Variant SKU": sku,
        "Variant Grams": _s(rng.integers(100, 30000, n_variants)),
        "Variant Inventory Tracker": const("shopify"),
        "Variant Inventory Qty": _s(qty),
        "Variant Inventory Policy": pa.array(
            np.where(rng.random(n_variants) < 0.1, "continue", "deny").astype(object), pa.string()
        ),
        "Variant Fulfillment Service": const("manual"),
        "Variant Price": price_s,
        "Variant Compare At Price": pc.if_else(
            pa.array(has_compare), pc.cast(pa.array(compare_at), pa.string()), pa.scalar(None, pa.string())
        ),
        "Variant Requires Shipping": const("TRUE"),
        "Variant Taxable": const("TRUE"),
        "Variant Barcode": barcode,
        "Image Src": on_first(_join("https://cdn.example.com/p/", _s(pid), ".jpg")),
        "Image Position": on_first(pa.array(np.full(n_products, "1", dtype=object), pa.string())),
        "Image Alt Text": null,
        "Gift Card": on_first(pa.array(np.full(n_products, "FALSE", dtype=object), pa.string())),
        "SEO Title": null,
        "SEO Description": null,
        "Google Shopping / Google Product Category": null,
        "Google Shopping / Gender": null,
        "Google Shopping / Age Group": null,
        "Google Shopping / MPN": null,
        "Google Shopping / Condition": on_first(pa.array(np.full(n_products, "new", dtype=object), pa.string())),
        "Google Shopping / Custom Product": null,
        "Variant Image": null,
        "Variant Weight Unit": const("g"),
        "Variant Tax Code": null,
        "Cost per item": null,
        "Status": on_first(_pick(status_names, p_status)),
    }
    assert list(shopify) == SHOPIFY_HEADER
    csv_table = pa.table(shopify)

    availability = np.where(qty > 0, "in stock", "out of stock").astype(object)
    flat = pa.table(
        {
            "id": sku,
            "item_group_id": _s(pid[product_of_row]),
            "title": p_title.take(take),
            "description": p_body.take(take),
            "brand": _pick(brand_names, p_brand).take(take).dictionary_encode(),
            "product_type": _pick(nouns, p_cat).take(take).dictionary_encode(),
            "google_product_category": _pick(leaves, p_cat).take(take).dictionary_encode(),
            "status": _pick(status_names, p_status).take(take).dictionary_encode(),
            "price": pa.array(price),
            "compare_at_price": pa.array(np.where(has_compare, compare_at, np.nan), from_pandas=True),
            "currency": pa.array(np.full(n_variants, "USD", dtype=object), pa.string()).dictionary_encode(),
            "quantity": pa.array(qty.astype(np.int64)),
            "availability": pa.array(availability, pa.string()).dictionary_encode(),
            "gtin": _s(barcode_num),
            "color": _pick(COLORS, color_idx).dictionary_encode(),
            "size": _pick(SIZES, size_idx).dictionary_encode(),
            "image_link": _join("https://cdn.example.com/p/", _s(pid), ".jpg").take(take),
            "link": _join("https://shop.example.com/products/", p_handle).take(take),
        }
    )
    flat = flat.replace_schema_metadata({"snapshot_date": SNAPSHOT_DATE})
    return csv_table, flat


def write_csv_like_shopify(table: pa.Table, path: Path) -> None:
    """CSV quoted only where needed (as Shopify writes it), built column-wise in Arrow.

    pyarrow's writer quotes every string; real exports quote a field only when it holds a comma,
    a quote or a newline, and that difference is 20 % of the file size.
    """
    needs = r'[,"\r\n]'
    cells = []
    for column in table.columns:
        col = pc.fill_null(pc.cast(column, pa.string()), "")
        quoted = _join('"', pc.replace_substring(col, '"', '""'), '"')
        cells.append(pc.if_else(pc.match_substring_regex(col, needs), quoted, col))
    header = ",".join(f'"{name}"' if any(ch in name for ch in ',"') else name for name in table.column_names)
    with open(path, "wb") as out:
        out.write(header.encode() + b"\n")
        step = 100_000
        for start in range(0, table.num_rows, step):
            lines = pc.binary_join_element_wise(*[c[start : start + step] for c in cells], ",")
            out.write("\n".join(lines.to_pylist()).encode("utf-8") + b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    csv_table, flat = build(args.variants)
    stem = "catalog-1m" if args.variants == 1_000_000 else f"catalog-{args.variants}"
    csv_path, parquet_path = args.out / f"{stem}.csv", args.out / f"{stem}.parquet"
    write_csv_like_shopify(csv_table, csv_path)
    pq.write_table(flat, parquet_path, row_group_size=131072)
    products = int(pc.sum(pc.is_valid(csv_table["Title"])).as_py())
    print(f"{csv_path}: {args.variants:,} variants, {products:,} products, {csv_path.stat().st_size / 1e6:.1f} MB")
    print(f"{parquet_path}: {flat.num_rows:,} rows, {parquet_path.stat().st_size / 1e6:.1f} MB")
    print(f"generated in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
