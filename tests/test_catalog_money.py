"""Generated files for every money form of issue 11: ISO codes either side, symbols, currency columns and
headers, ambiguous symbols and their corroboration, and sale prices with their schedules per format.

Each case asserts what a merchant would read off the file: the amount, the currency it names (or none),
and the sale price and its first and last day."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.catalog.values import currency_of, iso_codes

ISO_FILE = Path(__file__).resolve().parents[1] / "data" / "currency" / "iso4217.csv"


def read(data: bytes | str, name: str = "money.csv"):
    if isinstance(data, str):
        data = data.encode("utf-8")
    table, ev = read_table_bytes(data, name, KIND_ATTACHED)
    return table.to_pylist(), ev


def iso_list() -> list[str]:
    """The bundled list read with Python's csv module (independently of the product's loader)."""
    with open(ISO_FILE, encoding="utf-8", newline="") as f:
        return [r["code"] for r in csv.DictReader(f)]


def test_bundled_list_is_the_whole_standard():
    codes = iso_list()
    assert len(codes) == len(set(codes)) >= 180
    assert {"KZT", "RUB", "INR", "UZS", "GEL", "AMD", "MNT", "XOF", "VND"} <= set(codes)
    assert iso_codes() == frozenset(codes)


@pytest.mark.parametrize("side", ["after", "before"])
def test_every_iso_code_is_recognised_in_a_merchant_center_feed(side):
    codes = iso_list()
    lines = ["id\ttitle\tprice\tavailability\tlink\timage_link\tcondition"]
    for i, code in enumerate(codes):
        price = f"465000.00 {code}" if side == "after" else f"{code} 465000.00"
        lines.append(f"sku{i}\tItem {i}\t{price}\tin stock\thttps://x.example/{i}\thttps://x.example/{i}.jpg\tnew")
    rows, ev = read("\n".join(lines) + "\n", "feed.tsv")
    assert ev.format == "Google Merchant Center feed"
    assert [r["currency"] for r in rows] == codes
    assert all(r["price"] == 465000.0 for r in rows)


@pytest.mark.parametrize(
    "cell, amount, code",
    [
        ("₸ 465 000", 465000.0, "KZT"),
        ("465 000 ₸", 465000.0, "KZT"),
        ("1 299,00 ₽", 1299.0, "RUB"),
        ("₹1,29,999.00", 129999.0, "INR"),
        ("R$ 1.299,90", 1299.9, "BRL"),
        ("49,99 zł", 49.99, "PLN"),
        ("€ 12.50", 12.5, "EUR"),
        ("£3.99", 3.99, "GBP"),
        ("US$ 15", 15.0, "USD"),
        ("15.00 usd", 15.0, "USD"),
        ("199 руб.", 199.0, "RUB"),
        ("KZT465000", 465000.0, "KZT"),
    ],
)
def test_symbols_and_codes_in_a_price_cell(cell, amount, code):
    rows, _ = read(f'title,price\nChair,"{cell}"\n')
    assert (rows[0]["price"], rows[0]["currency"]) == (amount, code)


@pytest.mark.parametrize("symbol", ["$", "kr", "¥"])
def test_ambiguous_symbols_alone_state_no_currency(symbol):
    rows, _ = read(f"title,price\nChair,{symbol} 15\nTable,20 {symbol}\n")
    assert [r["price"] for r in rows] == [15.0, 20.0]
    assert [r["currency"] for r in rows] == [None, None]


@pytest.mark.parametrize("symbol, code", [("$", "CAD"), ("kr", "SEK"), ("¥", "JPY")])
def test_ambiguous_symbols_take_the_code_the_file_corroborates(symbol, code):
    # a code elsewhere in the file (another row's price) names one member of the symbol's family
    rows, _ = read(f"title,price\nChair,{symbol} 15\nTable,20 {code}\n")
    assert [r["currency"] for r in rows] == [code, code]
    # a currency column does too
    rows, _ = read(f"title,price,currency\nChair,{symbol} 15,\nTable,20,{code.lower()}\n")
    assert [r["currency"] for r in rows] == [code, code]


def test_two_dollars_named_leave_a_bare_dollar_unstated():
    rows, _ = read("title,price\nA,$ 15\nB,20 USD\nC,30 CAD\n")
    assert [r["currency"] for r in rows] == [None, "USD", "CAD"]


def test_currency_column_codes_and_symbols():
    rows, _ = read(
        "title,price,currency\nA,15,usd\nB,16,€\nC,17,KZT\nD,18,\nE,19,Euro money\nF,20,US Dollar\nG,21,tenge\n"
    )
    assert [r["currency"] for r in rows] == ["USD", "EUR", "KZT", None, None, "USD", "KZT"]


@pytest.mark.parametrize(
    "header, code", [("Price (EUR)", "EUR"), ("Price [€]", "EUR"), ("Price KZT", "KZT"), ("Regular price (₸)", "KZT")]
)
def test_a_price_header_naming_its_currency(header, code):
    rows, _ = read(f"title,{header}\nA,15\nB,\n")
    assert [r["currency"] for r in rows] == [code, None]  # the unpriced row has no currency to state


def test_words_in_price_text_are_not_codes():
    rows, _ = read("title,price\nA,call for price\nB,top offer 12\nC,all in 5\n")
    assert [r["currency"] for r in rows] == [None, None, None]
    assert currency_of("Try our sale") is None


# --- sale prices and their schedules, per format ----------------------------------------------------------------
WOO_HEADER = (
    "ID,Type,SKU,Name,Published,Regular price,Sale price,Date sale price starts,Date sale price ends,"
    "In stock?,Stock,Categories,Backorders allowed?\n"
)


def test_woocommerce_sale_price_and_schedule():
    data = (
        WOO_HEADER
        + "1,simple,A,Chair,1,100,80,2026-11-01,2026-11-30,1,3,Garden,0\n"
        + "2,simple,B,Table,1,200,150,,,1,3,Garden,0\n"
        + "3,simple,C,Bench,1,300,,,,1,3,Garden,0\n"
    )
    rows, ev = read(data)
    assert [(r["price"], r["sale_price"]) for r in rows] == [(100.0, 80.0), (200.0, 150.0), (300.0, None)]
    assert rows[0]["sale_start"] == dt.date(2026, 11, 1) and rows[0]["sale_end"] == dt.date(2026, 11, 30)
    assert rows[1]["sale_start"] is None and rows[1]["sale_end"] is None
    assert "Date sale price starts" not in ev.unmapped_columns


def test_merchant_center_sale_price_effective_date_interval():
    data = (
        "id\ttitle\tprice\tsale_price\tsale_price_effective_date\tavailability\tlink\timage_link\tcondition\n"
        "a\tChair\t100.00 KZT\t80.00 KZT\t2026-11-24T11:07+0100/2026-11-29T23:07+0100\tin stock\tu\ti\tnew\n"
        "b\tTable\t200.00 KZT\t150.00 KZT\t\tin stock\tu\ti\tnew\n"
        "c\tBench\t300.00 KZT\t\t2026-12-01/2026-12-31\tin stock\tu\ti\tnew\n"
    )
    rows, _ = read(data, "feed.tsv")
    assert [(r["price"], r["sale_price"], r["currency"]) for r in rows] == [
        (100.0, 80.0, "KZT"),
        (200.0, 150.0, "KZT"),
        (300.0, None, "KZT"),
    ]
    assert (rows[0]["sale_start"], rows[0]["sale_end"]) == (dt.date(2026, 11, 24), dt.date(2026, 11, 29))
    assert (rows[1]["sale_start"], rows[1]["sale_end"]) == (None, None)
    assert (rows[2]["sale_start"], rows[2]["sale_end"]) == (dt.date(2026, 12, 1), dt.date(2026, 12, 31))


def test_magento_special_price_and_dates():
    data = (
        "sku,store_view_code,attribute_set_code,product_type,name,price,special_price,special_price_from_date,"
        "special_price_to_date,product_online,qty,is_in_stock,url_key\n"
        "A,,Default,simple,Chair,100,79.5,2026-11-01,2026-11-30,1,4,1,chair\n"
        "B,,Default,simple,Table,200,,,,1,4,1,table\n"
    )
    rows, _ = read(data)
    assert [(r["price"], r["sale_price"]) for r in rows] == [(100.0, 79.5), (200.0, None)]
    assert (rows[0]["sale_start"], rows[0]["sale_end"]) == (dt.date(2026, 11, 1), dt.date(2026, 11, 30))


def test_bigcommerce_sale_price_zero_means_none():
    data = (
        "Item Type,Product ID,Product Name,Product Code/SKU,Price,Sale Price,Retail Price,Product Visible?,"
        "Track Inventory,Current Stock Level,Category\n"
        "Product,1,Chair,A,100,80,120,Y,by product,3,Garden\n"
        "Product,2,Table,B,200,0,0,Y,by product,3,Garden\n"
    )
    rows, _ = read(data)
    assert [(r["price"], r["sale_price"], r["compare_at_price"]) for r in rows] == [
        (100.0, 80.0, 120.0),
        (200.0, None, None),
    ]


@pytest.mark.parametrize(
    "header, row",
    [
        (
            "id\ttitle\tprice\tcurrency\tavailability\tlink\timage_link\tcondition\n",
            "a\tChair\t15.00\tkzt\tin stock\tu\ti\tnew\n",
        ),
        (WOO_HEADER.rstrip("\n") + ",Currency\n", "1,simple,A,Chair,1,15,,,,1,3,Garden,0,KZT\n"),
        ("Handle,Title,Variant Price,Variant SKU,Currency\n", "chair,Chair,15.00,A,KZT\n"),
    ],
)
def test_a_currency_column_in_any_format(header, row):
    rows, _ = read(header + row, "f.tsv" if "\t" in header else "f.csv")
    assert (rows[0]["price"], rows[0]["currency"]) == (15.0, "KZT")


def test_a_price_header_corroborates_the_dollar_in_every_cell():
    rows, _ = read('title,Price (CAD)\nA,$15\nB,"$1,200.00"\n')
    assert [(r["price"], r["currency"]) for r in rows] == [(15.0, "CAD"), (1200.0, "CAD")]


def test_magento_special_price_dates_in_the_admin_locale():
    # Magento writes dates in its admin locale (en_US: month/day/year); the file's updated_at is the snapshot
    data = (
        "sku,store_view_code,attribute_set_code,product_type,name,price,special_price,special_price_from_date,"
        "special_price_to_date,product_online,qty,is_in_stock,url_key,updated_at\n"
        'A,,Default,simple,Chair,100,80,8/14/24,12/31/24,1,4,1,chair,"12/12/24, 10:35 AM"\n'
        'B,,Default,simple,Table,100,80,8/14/24,11/30/24,1,4,1,table,"12/12/24, 10:35 AM"\n'
        'C,,Default,simple,Bench,100,80,1/5/25,,1,4,1,bench,"12/12/24, 10:35 AM"\n'
    )
    table, ev = read_table_bytes(data.encode(), "magento.csv", KIND_ATTACHED)
    rows = table.to_pylist()
    assert ev.snapshot_date == dt.date(2024, 12, 12)
    assert [(r["sale_start"], r["sale_end"]) for r in rows] == [
        (dt.date(2024, 8, 14), dt.date(2024, 12, 31)),
        (dt.date(2024, 8, 14), dt.date(2024, 11, 30)),
        (dt.date(2025, 1, 5), None),
    ]
    from agent.analysis.registry import SKILLS, SkillInput
    from agent.analysis.result import Scope
    from agent.catalog.taxonomy import load

    ladder = SKILLS["price_ladder"].run(
        SkillInput(own=table, reference=None, scope=Scope(), taxonomy=load(), sources=(ev,))
    )
    assert ladder.table.to_pylist()[0]["On sale"] == pytest.approx(round(100 / 3, 1))  # only A's sale is current
