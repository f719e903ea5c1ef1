"""Adobe Commerce (Magento) exports as merchants really send them (issue 11): store-view-only exports,
parent–child links (`configurable_variations`, `associated_skus`), `product_online`, `qty`,
`is_in_stock`, locale dates and the header match.

Exports are generated from a seed with Python's csv writer; expected numbers are counted from the
generated products, independently of the reader.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.dates import parse_date_column
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.render.footer import source_line

HEADER = [
    "sku",
    "store_view_code",
    "attribute_set_code",
    "product_type",
    "categories",
    "product_websites",
    "name",
    "description",
    "product_online",
    "visibility",
    "price",
    "url_key",
    "updated_at",
    "qty",
    "is_in_stock",
    "allow_backorders",
    "configurable_variations",
    "associated_skus",
]
CUSTOM = [f"custom_attr_{i}" for i in range(40)]  # a real store's own attributes


def us_date(d: dt.datetime) -> str:
    return f"{d.month}/{d.day}/{d.year % 100:02d}, {(d.hour % 12) or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


def catalog(seed: int, store_views: tuple[str, ...], with_global: bool, date_style=us_date, custom: int = 0):
    """Simple, configurable (with children) and grouped (with members) products; returns the bytes and
    what a merchant would count."""
    rng = random.Random(seed)
    header = HEADER + CUSTOM[:custom]
    rows: list[list[str]] = [header]
    expect = {"products": 0, "variants": 0, "drafts": 0, "out": 0, "dates": []}
    base = dt.datetime(2025, 1, 3, 9, 5)

    def add(sku, kind, name, online, qty, in_stock, variations="", members="", visibility="Catalog, Search"):
        when = base + dt.timedelta(days=rng.randint(0, 60), hours=rng.randint(0, 23))
        expect["dates"].append(when.date())
        views = ([""] if with_global else []) + list(store_views)
        for k, view in enumerate(views):
            first = k == 0
            row = [
                sku,
                view,
                "Default",
                kind,
                "Default Category/Gear/Bags",
                "base",
                name if first else f"{name} (fr)",
                "<p>x</p>",
                str(online),
                visibility,
                "10.0000",
                sku.lower(),
                date_style(when),
                f"{qty}.0000",
                str(in_stock),
                "0",
                variations if first else "",
                members if first else "",
            ]
            rows.append(row + [rng.choice(["", "a", "1"]) for _ in range(custom)])

    for p in range(rng.randint(8, 14)):
        online = rng.choice([1, 1, 1, 2])
        shape = rng.choice(["simple", "configurable", "grouped"])
        expect["products"] += 1
        if shape == "simple":
            qty, stock = rng.choice([(0, 0), (5, 1), (3, 0)])
            add(f"S{p}", "simple", f"Bag {p}", online, qty, stock)
            expect["variants"] += 1
            expect["drafts"] += online == 2
            expect["out"] += stock == 0
            continue
        kids = [f"{shape[0].upper()}{p}-{k}" for k in range(rng.randint(2, 4))]
        stock = [rng.choice([0, 1]) for _ in kids]
        if shape == "configurable":
            add(
                f"C{p}",
                "configurable",
                f"Hoodie {p}",
                online,
                0,
                1,
                variations="|".join(f"sku={k},size={s}" for k, s in zip(kids, "SMLX")),
            )
        else:
            add(f"G{p}", "grouped", f"Set {p}", online, 0, 1, members=",".join(f"{k}=1.0000" for k in kids))
        for k, st in zip(kids, stock):
            add(k, "simple", f"Part {k}", 1, 4 * st, st, visibility="Not Visible Individually")
        expect["variants"] += len(kids)
        expect["drafts"] += len(kids) if online == 2 else 0
        expect["out"] += stock.count(0)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode(), expect, len(rows) - 1


def counts(table) -> dict:
    status = table["status"].cast("string")
    return {
        "products": pc.count_distinct(table["product_key"]).as_py(),
        "variants": table.num_rows,
        "drafts": pc.sum(pc.equal(status, "draft")).as_py() or 0,
        "out": pc.sum(pc.equal(table["availability"].cast("string"), "out_of_stock")).as_py() or 0,
    }


@pytest.mark.parametrize(
    "seed,views,with_global",
    [
        (1, ("default",), False),  # every row says store_view_code=default: the store-view rows are the products
        (2, ("default", "fr"), False),  # two store views, no global rows: the first is the product
        (3, (), True),  # global rows only
        (4, ("default", "de"), True),  # global rows plus overrides
        (5, ("admin",), False),
    ],
)
def test_store_views_and_parent_child_links(seed, views, with_global):
    data, expect, rows = catalog(seed, views, with_global)
    table, ev = read_table_bytes(data, "export_catalog_product.csv", KIND_ATTACHED)
    assert ev.format == "Adobe Commerce (Magento) export"
    assert (ev.rows_read, ev.rows_skipped) == (rows, 0)
    assert counts(table) == {k: expect[k] for k in ("products", "variants", "drafts", "out")}
    assert ev.snapshot_date == max(expect["dates"])


def test_children_take_the_parent_product_and_name():
    data, _, _ = catalog(6, ("default",), False)
    table, _ = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    for row in table.to_pylist():
        sku = row["sku"]
        if "-" in sku:  # a child: C3-1 belongs to C3, G4-0 to G4
            assert row["product_id"] == sku.split("-")[0]
            assert row["title"].split()[0] in ("Hoodie", "Set")


def test_visible_group_members_are_products_of_their_own():
    """Luma's "Set of Sprite Yoga Straps": members visible in the store stay products; the group adds none."""
    data = (
        "sku,store_view_code,product_type,name,price,visibility,associated_skus,product_websites\n"
        'W85,,simple,Strap 6 foot,14,"Catalog, Search",,base\nW86,,simple,Strap 8 foot,17,"Catalog, Search",,base\n'
        "H1,,simple,Hidden part,3,Not Visible Individually,,base\n"
        'G,,grouped,Set of straps,,"Catalog, Search","W85=5.0000,W86=5.0000,H1=1.0000",base\n'
    ).encode()
    table, ev = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    rows = {r["sku"]: r for r in table.to_pylist()}
    assert ev.rows_read == 4 and sorted(rows) == ["H1", "W85", "W86"]
    assert (rows["W85"]["product_id"], rows["W86"]["product_id"], rows["H1"]["product_id"]) == ("W85", "W86", "G")
    assert rows["H1"]["title"] == "Set of straps"


def test_created_at_bounds_the_snapshot_when_updated_at_is_empty():
    data = (
        "sku,store_view_code,product_type,name,price,product_websites,updated_at,created_at\n"
        "A,,simple,A,1,base,,2016-01-12 09:56:53\nB,,simple,B,1,base,,2016-08-08 21:09:24\n"
    ).encode()
    _, ev = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    assert (ev.snapshot_date, ev.snapshot_origin) == (dt.date(2016, 8, 8), "column created_at")


def test_stock_and_backorders():
    data = (
        "sku,store_view_code,product_type,name,price,qty,is_in_stock,allow_backorders,product_websites\n"
        "A,,simple,A,1,0.0000,0,1,base\nB,,simple,B,1,7.0000,1,0,base\nC,,simple,C,1,3.0000,0,2,base\n"
        "D,,simple,D,1,0.0000,,1,base\n"
    ).encode()
    table, _ = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    rows = {r["sku"]: r for r in table.to_pylist()}
    assert [rows[s]["inventory_qty"] for s in "ABCD"] == [0, 7, 3, 0]
    assert [rows[s]["availability"] for s in "ABCD"] == ["out_of_stock", "in_stock", "out_of_stock", "backorder"]
    assert [rows[s]["inventory_policy"] for s in "ABCD"] == ["continue", "deny", "continue", "continue"]


def test_genuine_export_with_custom_attributes_matches_fully():
    data, _, _ = catalog(7, ("default",), False, custom=40)
    _, ev = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    assert ev.format_score == 1.0 and ev.format_missing == []
    assert "header match" not in source_line(ev)
    partial = b"sku,product_type,categories,name,price,qty,is_in_stock,product_websites\nA,simple,x,A,1,1,1,base\n"
    _, ev = read_table_bytes(partial, "p.csv", KIND_ATTACHED)
    assert ev.format_missing == ["store_view_code", "attribute_set_code", "product_online", "visibility", "url_key"]
    assert "header match 62% (no store_view_code, attribute_set_code, product_online …)" in source_line(ev)


# ---------------------------------------------------------------- dates

STYLES = {
    "en_US admin": us_date,
    "slashed 24h": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year} {d.hour:02d}:{d.minute:02d}",
    "dotted": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year}",
    "dotted time": lambda d: f"{d.day:02d}.{d.month:02d}.{d.year % 100:02d} {d.hour:02d}:{d.minute:02d}",
    "day first": lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}",
    "iso": lambda d: d.strftime("%Y-%m-%d %H:%M:%S"),
    "month name": lambda d: d.strftime("%b %d, %Y, %I:%M:%S %p"),
    "day month name": lambda d: d.strftime("%d %B %Y"),
    "rfc 2822": lambda d: d.strftime("%a, %d %b %Y %H:%M:%S +0000"),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_date_style_gives_the_snapshot_date(style):
    """Dates spread over two months, so some day exceeds 12 and settles the order where it matters."""
    data, expect, _ = catalog(8, ("default",), False, date_style=STYLES[style])
    _, ev = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    assert ev.snapshot_date == max(expect["dates"]), style
    assert ev.snapshot_origin.startswith("column updated_at")


def test_ambiguous_slashed_dates():
    """Every day ≤ 12: Magento's en_US order is assumed and said; any other file's dates are not read."""
    dates = ["02/03/2025 10:00", "03/04/2025 11:00", "01/12/2025 09:00"]
    magento = "sku,store_view_code,product_type,name,price,product_websites,updated_at\n" + "".join(
        f"S{i},,simple,N,1,base,{d}\n" for i, d in enumerate(dates)
    )
    _, ev = read_table_bytes(magento.encode(), "m.csv", KIND_ATTACHED)
    assert ev.snapshot_date == dt.date(2025, 3, 4)
    assert "month/day" in ev.snapshot_origin and "assumed" not in ev.snapshot_origin
    assert "no date in the file settles the order" in source_line(ev)
    generic = "sku,title,price,updated_at\n" + "".join(f"S{i},N,1,{d}\n" for i, d in enumerate(dates))
    _, ev = read_table_bytes(generic.encode(), "g.csv", KIND_ATTACHED)
    assert ev.snapshot_date is None
    assert "snapshot date not stated in the data (updated_at: day/month order not settled by any value" in source_line(
        ev
    )


def test_one_settling_value_decides_the_whole_column():
    import pyarrow as pa

    day_first = parse_date_column(pa.array(["03/04/2025", "25/04/2025", "01/02/2025"]))
    assert day_first.dates.to_pylist() == [dt.date(2025, 4, 3), dt.date(2025, 4, 25), dt.date(2025, 2, 1)]
    month_first = parse_date_column(pa.array(["03/04/2025", "04/25/2025", None]))
    assert month_first.dates.to_pylist() == [dt.date(2025, 3, 4), dt.date(2025, 4, 25), None]
    mixed = parse_date_column(pa.array(["13/04/2025", "04/25/2025"]))
    assert mixed.dates.null_count == 2 and "mixes" in mixed.note


def test_repeated_skus_and_parent_sku_links():
    """A converted export repeats every row and names parents in `parent_sku`: one product per SKU, the
    repeats skipped with their reason, children under their configurable."""
    rows = ["attribute_set_code,sku,name,product_type,price,qty,parent_sku,visibility,created_at"]
    for _ in range(3):
        rows += [
            'Vape,CONF,Vape 10-pack,configurable,,0,,"Catalog, Search","7/8/22, 8:07 AM"',
            'Vape,C-1,Vape mint,simple,9.99,4,CONF,Not Visible Individually,"7/8/22, 8:07 AM"',
            'Vape,C-2,Vape cola,simple,9.99,0,CONF,Not Visible Individually,"7/21/22, 9:00 PM"',
            'Vape,LONE,Charger,simple,5.00,2,,"Catalog, Search","7/8/22, 8:07 AM"',
        ]
    table, ev = read_table_bytes(("\n".join(rows) + "\n").encode(), "m.csv", KIND_ATTACHED)
    assert ev.format == "Adobe Commerce (Magento) export" and ev.rows_read == 12
    assert (ev.rows_skipped, ev.skipped_reasons) == (8, {"repeating a SKU already read": 8})
    assert sorted(table["sku"].to_pylist()) == ["C-1", "C-2", "LONE"]
    assert pc.count_distinct(table["product_key"]).as_py() == 2
    assert {r["sku"]: r["product_id"] for r in table.to_pylist()} == {"C-1": "CONF", "C-2": "CONF", "LONE": "LONE"}
    assert ev.snapshot_date == dt.date(2022, 7, 21)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", ["month/day", "day/month"])
def test_an_unsettled_column_takes_the_order_its_sibling_columns_settle(seed, order):
    """A file writes every date in one locale: an `updated` column whose every value is ambiguous
    (`8/8/2026` on every row, a listing exported in one day) is read in the order the file's
    `created` column settles, and the evidence says where the order came from. Generic and Magento
    headers alike; a file whose columns disagree settles nothing."""
    rnd = random.Random(seed)
    day = rnd.randint(1, 12)
    month = rnd.randint(1, 12)
    newest = dt.date(2026, month, day)
    created = [newest - dt.timedelta(days=rnd.randint(13, 400)) for _ in range(20)]
    created.append(dt.date(2025, 7, 28))  # day 28 settles the order whichever way it is written

    def write(d: dt.date) -> str:
        return f"{d.month}/{d.day}/{d.year}" if order == "month/day" else f"{d.day}/{d.month}/{d.year}"

    header, rows = (
        (
            "sku,store_view_code,product_type,name,price,product_websites,created_at,updated_at",
            "{i},,simple,N,1,base,{c},{u}",
        )
        if seed % 2
        else ("Product ID,Title,Price,Created,Updated", "{i},N,1,{c},{u}")
    )
    text = header + "\n" + "".join(rows.format(i=i, c=write(c), u=write(newest)) + "\n" for i, c in enumerate(created))
    _, ev = read_table_bytes(text.encode(), "f.csv", KIND_ATTACHED)
    assert ev.snapshot_date == newest, (order, text[:200])
    assert ev.snapshot_origin.lower().startswith("column updated") and "other date columns" in ev.snapshot_origin
    if seed % 2 == 0:
        # the columns disagree: created settles one order, a third column the other -> not read
        clash = dt.date(2025, 7, 28)
        other = (
            f"{clash.day}/{clash.month}/{clash.year}"
            if order == "month/day"
            else f"{clash.month}/{clash.day}/{clash.year}"
        )
        lines = text.splitlines()
        lines = [lines[0] + ",Last Modified"] + [ln + "," + other for ln in lines[1:]]
        _, ev = read_table_bytes(("\n".join(lines) + "\n").encode(), "f.csv", KIND_ATTACHED)
        assert ev.snapshot_origin is None or "other date columns" not in ev.snapshot_origin


def test_a_not_visible_row_is_a_variant_only_of_a_parent_in_the_file():
    """The reader's rule for "Not Visible Individually" (module docstring): a child a configurable in the file
    lists is its variant; the same visibility with no parent in the file (an orphan of a parent the export
    does not hold) is a product of its own, active or draft by `product_online` like any row."""
    data = (
        "sku,store_view_code,product_type,name,price,product_online,visibility,configurable_variations,qty,is_in_stock\n"
        'C,,configurable,Hoodie,,1,"Catalog, Search","sku=C-S,size=S|sku=C-M,size=M",,1\n'
        "C-S,,simple,Hoodie S,40,1,Not Visible Individually,,3,1\n"
        "C-M,,simple,Hoodie M,40,1,Not Visible Individually,,0,0\n"
        "O-1,,simple,Lens 4x,100,1,Not Visible Individually,,1000,1\n"
        "O-2,,simple,Lens 10x,120,2,Not Visible Individually,,5,1\n"
    ).encode()
    table, ev = read_table_bytes(data, "m.csv", KIND_ATTACHED)
    rows = {r["sku"]: r for r in table.to_pylist()}
    assert ev.rows_read == 5 and sorted(rows) == ["C-M", "C-S", "O-1", "O-2"]
    assert (rows["C-S"]["product_id"], rows["C-M"]["product_id"]) == ("C", "C")
    assert (rows["O-1"]["product_id"], rows["O-1"]["status"], rows["O-1"]["price"]) == ("O-1", "active", 100.0)
    assert (rows["O-2"]["product_id"], rows["O-2"]["status"]) == ("O-2", "draft")
    active = {r["product_key"] for r in rows.values() if r["status"] == "active"}
    assert len(active) == 2  # the hoodie and the orphan lens


def test_orphans_in_a_real_partial_export_are_its_products():
    """tests/corpus/magento/swiss-microscopes-store-views.csv: 156 of 183 SKUs are not visible individually
    and no parent in the file names them; they are read as the products they are (183 in all)."""
    from pathlib import Path

    path = Path(__file__).parent / "corpus" / "magento" / "swiss-microscopes-store-views.csv"
    table, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    assert pc.count_distinct(table["product_key"]).as_py() == 183
    assert table.num_rows == 183
