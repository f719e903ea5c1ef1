"""A header line repeated inside the data (two exports pasted into one file) is no product.

tests/corpus/woocommerce/salimhm-air-fryers-repeated-header.csv is such a file: its second batch starts
with the header line again, which read as data was a product titled "Name". Each case here is generated
from a seed with Python's csv writer in one format, the header line re-inserted at random rows; the
expected counts come from the generated records, not from the reader.
"""

from __future__ import annotations

import csv
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.render.footer import source_line

FORMATS = {
    "generic": ["sku", "title", "price", "category", "brand"],
    "woocommerce": ["ID", "Type", "SKU", "Name", "Published", "In stock?", "Stock", "Regular price", "Categories"],
    "gmc": ["id", "title", "price", "availability", "brand", "link"],
    "shopify": ["Handle", "Title", "Vendor", "Type", "Variant SKU", "Variant Price", "Status"],
}


def product_row(kind: str, i: int, rng: random.Random) -> list[str]:
    price = f"{rng.uniform(2, 400):.2f}"
    if kind == "generic":
        return [f"S{i}", f"Lamp {i}", price, rng.choice(["Lighting", "Decor"]), rng.choice(["Acme", "Lumo"])]
    if kind == "woocommerce":
        return [str(100 + i), "simple", f"S{i}", f"Lamp {i}", "1", "1", str(rng.randint(1, 9)), price, "Lighting"]
    if kind == "gmc":
        return [f"S{i}", f"Lamp {i}", f"{price} USD", "in_stock", "Acme", f"https://x.example/{i}"]
    return [f"lamp-{i}", f"Lamp {i}", "Acme", "Lamp", f"S{i}", price, "active"]


def pasted(kind: str, seed: int, n: int, repeats: int, quoted: bool) -> bytes:
    rng = random.Random(seed)
    header = FORMATS[kind]
    rows = [product_row(kind, i, rng) for i in range(n)]
    for at in sorted(rng.sample(range(1, n), repeats), reverse=True):
        rows.insert(at, list(header))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL if quoted else csv.QUOTE_MINIMAL)
    writer.writerows([header, *rows])
    return buf.getvalue().encode()


@pytest.mark.parametrize("kind", list(FORMATS))
@pytest.mark.parametrize("seed,n,repeats,quoted", [(1, 40, 1, False), (2, 25, 3, True), (3, 200, 5, False)])
def test_a_repeated_header_line_is_read_skipped_and_no_product(kind, seed, n, repeats, quoted):
    data = pasted(kind, seed, n, repeats, quoted)
    table, ev = read_table_bytes(data, f"{kind}.csv", KIND_ATTACHED)
    assert ev.rows_read == n + repeats  # what Python's csv reads: the repeated lines are rows of the file
    assert ev.rows_skipped == repeats and ev.skipped_reasons == {"repeating the header": repeats}
    assert pc.count_distinct(table["product_key"]).as_py() == n
    titles = set(table["title"].cast("string").to_pylist())
    assert titles == {f"Lamp {i}" for i in range(n)}
    assert f"{repeats} skipped ({repeats} repeating the header)" in source_line(ev)


def test_a_product_named_like_one_column_is_kept():
    """One cell equal to its column's name is a product's value, not a header: it stays a product."""
    data = b"sku,title,price,type\nS1,Title,10,type\nS2,Lamp,12,Lighting\nS3,Price,price,Decor\n"
    table, ev = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    assert (ev.rows_read, ev.rows_skipped, table.num_rows) == (3, 0, 3)
