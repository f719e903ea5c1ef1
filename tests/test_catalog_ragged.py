"""Ragged rows (issue 11): rows shorter than the header are padding and are read; rows longer than the
header keep their known cells and their extra cells are counted and said.

Each class is generated from a seed with Python's csv writer, and the expected numbers are counted
independently from the generated records (what a merchant would count by looking at the file).
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

WOO_HEADER = ["ID", "Type", "SKU", "Name", "Published", "In stock?", "Stock", "Regular price", "Categories"]


def write(rows: list[list[str]], delimiter: str = ",") -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def grown_woocommerce(seed: int, n: int, early: int, metas: int) -> tuple[bytes, list[dict]]:
    """A WooCommerce export whose header grew: the first `early` rows predate the `Meta:` columns
    and end after `Categories`; later rows carry the meta cells (some blank)."""
    rng = random.Random(seed)
    header = WOO_HEADER + [f"Meta: _field_{i}" for i in range(metas)]
    records, rows = [], [header]
    for i in range(n):
        stock = rng.choice([0, 0, 1, 5, 12])
        price = round(rng.uniform(3, 300), 2)
        rec = {"id": str(100 + i), "stock": stock, "price": price, "published": rng.choice(["1", "1", "1", "0"])}
        records.append(rec)
        row = [
            rec["id"],
            "simple",
            f"SKU-{i}",
            f"Product {i}",
            rec["published"],
            "1" if stock else "0",
            str(stock),
            f"{price:.2f}",
            rng.choice(["Clothing > Tshirts", "Decor", "Music"]),
        ]
        if i >= early:
            row += [rng.choice(["", "yes", "12"]) for _ in range(metas)]
        rows.append(row)
    return write(rows), records


@pytest.mark.parametrize("seed,n,early,metas", [(1, 243, 100, 4), (2, 40, 39, 1), (3, 500, 250, 12), (4, 30, 30, 3)])
def test_grown_woocommerce_header_reads_every_row(seed, n, early, metas):
    data, records = grown_woocommerce(seed, n, early, metas)
    table, ev = read_table_bytes(data, "woo.csv", KIND_ATTACHED)
    assert ev.format == "WooCommerce product export"
    assert (ev.rows_read, ev.rows_skipped, ev.rows_padded, ev.rows_overlong) == (n, 0, early, 0)
    assert table.num_rows == n
    assert pc.count_distinct(table["product_key"]).as_py() == n
    assert sorted(table["product_id"].cast("string").to_pylist()) == sorted(r["id"] for r in records)
    out = sum(1 for r in records if r["stock"] == 0)
    assert pc.sum(pc.equal(table["availability"].cast("string"), "out_of_stock")).as_py() == out
    drafts = sum(1 for r in records if r["published"] == "0")
    assert pc.sum(pc.equal(table["status"].cast("string"), "draft")).as_py() == drafts
    assert pc.min(table["price"]).as_py() == min(r["price"] for r in records)
    assert pc.max(table["price"]).as_py() == max(r["price"] for r in records)
    assert "skipped" not in source_line(ev) and "longer than the header" not in source_line(ev)


def test_short_rows_keep_their_order_for_shopify_fill_down():
    """Shopify variant rows that end early (trailing columns missing) stay variants of their handle."""
    header = [
        "Handle",
        "Title",
        "Vendor",
        "Status",
        "Variant SKU",
        "Variant Price",
        "Variant Inventory Qty",
        "Image Src",
    ]
    rows = [header]
    for p in range(20):
        rows.append([f"p{p}", f"Product {p}", "Acme", "active", f"P{p}-1", "10.00", "3", f"https://x/{p}.jpg"])
        rows.append([f"p{p}", "", "", "", f"P{p}-2", "12.00"])  # ends after the price
        rows.append([f"p{p}", "", "", "", "", "", "", f"https://x/{p}b.jpg"])  # image-only row
    table, ev = read_table_bytes(write(rows), "shop.csv", KIND_ATTACHED)
    assert (ev.rows_read, ev.rows_skipped, ev.rows_padded) == (60, 0, 20)
    assert table.num_rows == 40 and pc.count_distinct(table["product_key"]).as_py() == 20
    by_sku = {r["sku"]: r for r in table.to_pylist()}
    assert by_sku["P7-2"]["title"] == "Product 7" and by_sku["P7-2"]["inventory_qty"] is None
    assert by_sku["P7-2"]["price"] == 12.0


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_long_rows_keep_known_cells_and_count_the_rest(delimiter):
    rows = [
        ["title", "price", "sku"],
        ["Chair", "10", "A"],
        ["Table", "20", "B", "stray", "", "more"],
        ["Lamp", "5", "C", ""],
        ["Desk", "50", "D", "x"],
    ]
    table, ev = read_table_bytes(write(rows, delimiter), "t.csv", KIND_ATTACHED)
    assert table["title"].cast("string").to_pylist() == ["Chair", "Table", "Lamp", "Desk"]
    assert table["sku"].to_pylist() == ["A", "B", "C", "D"]
    assert (ev.rows_read, ev.rows_skipped, ev.rows_overlong, ev.extra_cells) == (4, 0, 2, 3)
    assert "4 rows read, 2 rows longer than the header (3 extra cells not read)" in source_line(ev)


def test_ragged_rows_in_a_large_file_with_quoted_newlines():
    """Beyond the small-file size the first Arrow pass is not quote-aware; ragged rows still reach
    the tolerant read, and quoted newlines inside it stay one row."""
    rng = random.Random(7)
    rows = [["sku", "title", "description", "price", "brand"]]
    short = 0
    for i in range(120_000):
        row = [
            f"S{i}",
            f"Item {i}",
            "two\nlines" if i % 997 == 500 else "a plain description of the item, in stock",
            f"{rng.randint(1, 99)}.00",
            "Acme",
        ]
        if i % 5000 == 0:
            row = row[:3]
            short += 1
        rows.append(row)
    data = write(rows)
    assert len(data) > 8 * 1024 * 1024  # csvread._SMALL: the first Arrow pass is the fast one
    table, ev = read_table_bytes(data, "big.csv", KIND_ATTACHED)
    assert (ev.rows_read, ev.rows_skipped, ev.rows_padded) == (120_000, 0, short)
    assert table.num_rows == 120_000
    assert pc.sum(pc.is_null(table["price"])).as_py() == short


def test_python_csv_agrees_on_row_count_for_ragged_files():
    """Rows read equal the rows Python's csv module reads (blank lines aside)."""
    data, _ = grown_woocommerce(11, 80, 33, 5)
    extra = data + b"999,simple,X,Extra,1,1,3,9.99,Decor,a,b,c,d,e,overflow,and more\n"
    _, ev = read_table_bytes(extra, "woo.csv", KIND_ATTACHED)
    expected = sum(1 for r in csv.reader(io.StringIO(extra.decode(), newline="")) if r) - 1
    assert ev.rows_read == expected == 81
    assert (ev.rows_overlong, ev.extra_cells) == (1, 2)


def test_woocommerce_blank_parent_and_blank_sku_are_not_linked():
    """Variations without SKUs (common) and standalone products with a blank Parent: a blank Parent
    names no parent, so no standalone product becomes a variant of the first SKU-less row."""
    rng = random.Random(5)
    header = WOO_HEADER + ["Parent", "Meta: _licence"]
    rows, parents, standalone, variations = [header], 0, 0, 0
    next_id = 10
    for p in range(15):
        pid = next_id
        next_id += 1
        if rng.random() < 0.5:
            parents += 1
            rows.append([str(pid), "variable", "", f"Var {p}", "1", "1", "", "", "Music", ""])
            for _ in range(rng.randint(1, 4)):
                variations += 1
                rows.append(
                    [
                        str(next_id),
                        "variation, downloadable, virtual",
                        "",
                        f"Var {p} - x",
                        "1",
                        "1",
                        "",
                        "5.00",
                        "",
                        f"id:{pid}",
                        "yes",
                    ]
                )
                next_id += 1
        else:
            standalone += 1
            rows.append([str(pid), "simple", "", f"Simple {p}", "1", "1", "3", "9.00", "Music"])  # ends early
    table, ev = read_table_bytes(write(rows), "woo.csv", KIND_ATTACHED)
    assert ev.rows_skipped == 0 and ev.rows_read == len(rows) - 1
    assert pc.count_distinct(table["product_key"]).as_py() == parents + standalone
    assert table.num_rows == variations + standalone


@pytest.mark.parametrize(
    "data,reasons",
    [
        (
            b"Handle,Title,Variant SKU,Variant Price\nchair,Chair,C1,10\n,Orphan,O1,5\n,,,\nchair,,C2,12\n",
            {"without a handle": 1},
        ),
        (b"title,price,notes\nChair,10,A\n,,x\n,,\n,,y\nLamp,5,C\n", {"with cells only in columns not read": 2}),
        (
            b"Item Type,Product ID,Product Name,Price,Product Code/SKU\nSKU,,,1,X\nProduct,1,Chair,10,C\n",
            {"before any Product row": 1},
        ),
    ],
)
def test_every_skipped_row_has_a_stated_reason(data, reasons):
    _, ev = read_table_bytes(data, "s.csv", KIND_ATTACHED)
    assert ev.skipped_reasons == reasons and ev.rows_skipped == sum(reasons.values())
    line = source_line(ev)
    assert f"{ev.rows_skipped} skipped (" in line and all(f"{k} {r}" in line for r, k in reasons.items())


def test_ragged_rows_are_mended_in_place_without_the_slow_reader(monkeypatch):
    """The targeted path: Arrow re-reads the mended bytes; Python's csv reader is not needed."""
    from agent.catalog import csvread

    def refuse(*args, **kwargs):
        raise AssertionError("the whole-file Python reader was used")

    monkeypatch.setattr(csvread, "_python_read", refuse)
    rows = [["sku", "title", "description", "price"]]
    for i in range(300):
        row = [f"S{i}", f"Item {i}", 'said "quoted", with a comma' if i % 7 else "two\nlines", f"{i}.00"]
        rows.append(row[:2] if i % 50 == 0 else row + ["stray"] if i % 75 == 1 else row)
    table, ev = read_table_bytes(write(rows), "m.csv", KIND_ATTACHED)
    assert table["sku"].to_pylist() == [f"S{i}" for i in range(300)]
    assert table["description"].cast("string").to_pylist()[7] == "two\nlines"
    assert (ev.rows_padded, ev.rows_overlong, ev.extra_cells) == (6, 4, 4)


def test_the_answer_says_how_many_cells_were_not_read():
    from agent.analysis import overview
    from agent.analysis.inputs import SkillInput
    from agent.analysis.planner import Scope
    from agent.catalog import taxonomy
    from agent.render.text import render_skill

    rows = [["title", "price", "sku"], ["Chair", "10", "A", "x", "y"], ["Lamp", "5", "B"], ["Desk", "7", "C", "z"]]
    table, ev = read_table_bytes(write(rows), "long.csv", KIND_ATTACHED)
    result = overview.run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=taxonomy.load(), sources=(ev,)))
    text = render_skill(result, [])
    assert "2 rows of long.csv had more cells than its header: their known cells were read, 3 extra cells" in text
    assert "| Source | long.csv: extra cells not read | 3 |" in text


def _woo_missing_header_column(drop: str, stray: bool) -> bytes:
    """A WooCommerce export with rows one cell longer than the header: either a column (`drop`) is missing
    from the header while every row still holds its cell, or (`stray`) every row ends in one stray cell."""
    header = ["ID", "Type", "SKU", "Name", "Published", "In stock?", "Stock", "Backorders allowed?"]
    header += ["Sold individually?", "Low stock amount", "Allow customer reviews?", "Sale price", "Regular price"]
    header += ["Categories", "Images", "Position"]
    rows = [[h for h in header if h != drop] if not stray else header]
    for i in range(12):
        cells = {
            "ID": str(10 + i),
            "Type": "simple",
            "SKU": f"S-{i}",
            "Name": f"Glass sign {i}",
            "Published": "1",
            "In stock?": "1",
            "Stock": "",
            "Backorders allowed?": "0",
            "Sold individually?": "0",
            "Low stock amount": "",
            "Allow customer reviews?": "1",
            "Sale price": "",
            "Regular price": str(200 + 10 * i),
            "Categories": "Home blessings",
            "Images": f"https://x.example/{i}.jpg",
            "Position": str(i),
        }
        rows.append([cells[h] for h in header] + (["note"] if stray else []))
    return write(rows)


def test_rows_one_cell_longer_than_a_header_that_lost_a_column_read_aligned_past_the_gap():
    """tests/corpus/woocommerce/zhuhit-glass-signs-he.csv: a column missing from the header shifted every cell
    after it; read from the left `Regular price` read the blank sale price and `Categories` the price."""
    table, ev = read_table_bytes(_woo_missing_header_column("Low stock amount", False), "woo.csv", KIND_ATTACHED)
    assert table["price"].to_pylist() == [200.0 + 10 * i for i in range(12)]
    assert table["sale_price"].null_count == 12
    assert set(table["category_path"].cast("string").to_pylist()) == {"Home blessings"}
    assert table["title"].cast("string").to_pylist() == [f"Glass sign {i}" for i in range(12)]
    assert table["image_url"].cast("string").to_pylist()[3] == "https://x.example/3.jpg"
    assert (ev.rows_read, ev.rows_skipped, ev.rows_overlong, ev.extra_cells) == (12, 0, 0, 0)


def test_rows_each_ending_in_a_stray_cell_keep_their_cells_from_the_left():
    """The same width excess from a stray last cell: the typed columns already read right, nothing moves."""
    table, ev = read_table_bytes(_woo_missing_header_column("", True), "woo.csv", KIND_ATTACHED)
    assert table["price"].to_pylist() == [200.0 + 10 * i for i in range(12)]
    assert set(table["category_path"].cast("string").to_pylist()) == {"Home blessings"}
    assert (ev.rows_read, ev.rows_overlong, ev.extra_cells) == (12, 12, 12)
