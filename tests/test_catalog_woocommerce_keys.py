"""WooCommerce import files that name their columns by the importer's field keys are read like exports.

WooCommerce's importer matches a header it does not know as a label against its field keys, so scripts
write `type,sku,name,status,regular_price,stock_quantity,stock_status,parent_id` beside WooCommerce's own
`Attribute N …` labels, and the file reads as WooCommerce by those (a held-out import file:
dylanmurzello/new woocommerce.csv, whose `status` column said 1 on every row and was read as no status at
all). Each case is generated from a seed; the expected values come from the generated records.
"""

from __future__ import annotations

import csv
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

HEADER = [
    "type",
    "sku",
    "name",
    "status",
    "regular_price",
    "sale_price",
    "stock_quantity",
    "stock_status",
    "backorders",
    "category_ids",
    "parent_id",
    "Attribute 1 name",
    "Attribute 1 value(s)",
    "Attribute 1 visible",
    "Attribute 1 global",
    "Attribute 2 name",
    "Attribute 2 value(s)",
    "Attribute 2 visible",
    "Attribute 2 global",
    "images",
    "description",
]
TAIL = ["1", "1", "", "", "", "", "https://shop.example/a.jpg", "A well made thing"]
LIVE = {"publish": "active", "1": "active", "draft": "draft", "private": "draft", "pending": "draft", "0": "draft"}
STOCK = {"instock": "in_stock", "outofstock": "out_of_stock", "onbackorder": "backorder"}


def import_file(seed: int, products: int) -> tuple[bytes, dict[str, dict], int]:
    """Simple and variable products (with variations naming their parent by SKU); expected per variant SKU."""
    rng = random.Random(seed)
    rows, expected, active = [HEADER], {}, 0
    for p in range(products):
        status = rng.choice(list(LIVE))
        active += LIVE[status] == "active"
        category = rng.choice(["Lighting > Lamps", "Decor", "Rugs"])
        sizes = rng.sample(["S", "M", "L", "XL"], rng.randint(0, 3))
        if not sizes:
            rec = {"qty": rng.randint(0, 9), "stock": rng.choice(list(STOCK)), "price": rng.randint(5, 300)}
            rows.append(["simple", f"P{p}", f"Lamp {p}", status, str(rec["price"]), "", str(rec["qty"]), rec["stock"]])
            rows[-1] += ["0", category, "", "", "", *TAIL]
            expected[f"P{p}"] = {**rec, "status": LIVE[status], "product": f"P{p}"}
            continue
        head = ["variable", f"P{p}", f"Rug {p}", status, "", "", "", "", "0", category, "", "Size", ", ".join(sizes)]
        rows.append([*head, *TAIL])
        for size in sizes:
            rec = {"qty": rng.randint(0, 9), "stock": rng.choice(list(STOCK)), "price": rng.randint(5, 300)}
            sku = f"P{p}-{size}"
            rows.append(
                ["variation", sku, f"Rug {p} {size}", "1", str(rec["price"]), "", str(rec["qty"]), rec["stock"]]
            )
            rows[-1] += ["0", "", f"P{p}", "Size", size, *TAIL]
            expected[sku] = {**rec, "status": LIVE[status], "product": f"P{p}"}  # a variation follows its parent
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode(), expected, active


@pytest.mark.parametrize("seed,products", [(1, 12), (2, 40), (3, 150)])
def test_importer_field_keys_are_woocommerce_columns(seed, products):
    data, expected, active = import_file(seed, products)
    table, ev = read_table_bytes(data, "woocommerce.csv", KIND_ATTACHED)
    assert ev.format == "WooCommerce product export"
    got = {r["sku"]: r for r in table.to_pylist()}
    assert set(got) == set(expected)
    for sku, rec in expected.items():
        row = got[sku]
        assert (row["status"], row["inventory_qty"], row["availability"], row["price"]) == (
            rec["status"],
            rec["qty"],
            STOCK[rec["stock"]],
            rec["price"],
        ), sku
    assert pc.count_distinct(table["product_key"]).as_py() == products
    live = table.filter(pc.equal(table["status"].cast("string"), "active"))
    assert pc.count_distinct(live["product_key"]).as_py() == active
    assert not {"status", "stock_quantity", "stock_status", "parent_id", "category_ids"} & set(ev.unmapped_columns)
