"""A store table's `product_category` column is its own category.

A Lightspeed (Vend) retail export (held-out leobrien2/mirour2 product-export.csv) files every product under
`product_category` ("THC / THC Drinks", "Ready To Drink"); the generic alias map did not know the name, so
"How many Ready To Drink do I have?" found no category of the shop's. Cases are generated from a seed; the
expected counts come from the generated records.
"""

from __future__ import annotations

import csv
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

CATEGORIES = ["Ready To Drink", "Mixology Sets & Gifts", "Functional Mushroom", "Glassware"]


@pytest.mark.parametrize("seed,n", [(1, 20), (2, 90)])
@pytest.mark.parametrize("spelling", ["product_category", "Product Category", "product category"])
def test_product_category_is_the_own_category_of_a_store_table(seed, n, spelling):
    rng = random.Random(seed)
    header = ["id", "handle", "sku", "name", spelling, "retail_price", "supply_price", "brand_name", "active"]
    rows, expected = [header], {}
    for i in range(n):
        category = rng.choice(CATEGORIES)
        expected[f"S{i}"] = category
        rows.append([f"u{i}", f"item-{i}", f"S{i}", f"Item {i}", category, "12.00", "6.00", "Acme", "1"])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    table, ev = read_table_bytes(buf.getvalue().encode(), "product-export.csv", KIND_ATTACHED)
    assert ev.format == "generic table" and spelling not in ev.unmapped_columns
    got = dict(zip(table["sku"].to_pylist(), table["category_path"].cast("string").to_pylist()))
    assert got == expected
    for category in CATEGORIES:
        mine = pc.equal(table["own_categories"].cast("string"), category)
        assert (pc.sum(mine.cast("int64")).as_py() or 0) == sum(1 for c in expected.values() if c == category)
