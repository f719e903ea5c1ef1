"""Merchant Center feeds as merchants send them (issue 11): tab-separated, attribute names in the feed's
language (Polish, as a real feed writes them), availability in that language. Generated from a seed;
expected numbers are counted from the generated items."""

from __future__ import annotations

import csv
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.headers import GMC_PL
from agent.catalog.sources import read_table_bytes

ATTRS = ["id", "title", "description", "link", "image_link", "price", "availability", "brand", "item_group_id", "color"]
AVAILABILITY = {
    "en": ("in stock", "out of stock"),
    "pl": ("w magazynie", "brak w magazynie"),
    "de": ("auf lager", "nicht auf lager"),
    "fr": ("en stock", "en rupture de stock"),
}


def feed(names: str, values: str, seed: int, delimiter: str) -> tuple[bytes, dict]:
    rng = random.Random(seed)
    header = [GMC_PL[a] if names == "pl" else a for a in ATTRS]
    rows, expect = [header], {"items": 0, "out": 0, "groups": set()}
    for i in range(rng.randint(20, 60)):
        out = rng.random() < 0.3
        group = f"G{rng.randint(0, 9)}"
        rows.append(
            [
                f"SKU{i}",
                f"Pokrowiec {i}",
                "Opis",
                f"https://x.example/{i}",
                f"https://x.example/{i}.jpg",
                f"{rng.randint(50, 400)}",
                AVAILABILITY[values][out],
                "DAGRA",
                group,
                "szary",
            ]
        )
        expect["items"] += 1
        expect["out"] += out
        expect["groups"].add(group)
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode(), expect


@pytest.mark.parametrize(
    "names,values,delimiter",
    [("pl", "pl", ","), ("pl", "pl", "\t"), ("en", "de", "\t"), ("en", "fr", ","), ("en", "en", "\t")],
)
def test_localised_feeds(names, values, delimiter):
    data, expect = feed(names, values, len(names + values + delimiter), delimiter)
    table, ev = read_table_bytes(data, "feed.txt", KIND_ATTACHED)
    assert ev.format == "Google Merchant Center feed" and ev.format_score == 1.0
    assert ev.rows_read == table.num_rows == expect["items"]
    assert pc.count_distinct(table["product_key"]).as_py() == len(expect["groups"])
    avail = table["availability"].cast("string")
    assert (pc.sum(pc.equal(avail, "out_of_stock")).as_py() or 0) == expect["out"]
    assert (pc.sum(pc.equal(avail, "in_stock")).as_py() or 0) == expect["items"] - expect["out"]
    assert set(table["color"].cast("string").to_pylist()) == {"szary"}


def test_identifier_exists_no_is_no_missing_gtin():
    """A feed that states identifier_exists = no for a product says it has no GTIN from its maker, as
    Merchant Center asks: the readiness check must not count it as missing one (a held-out collectibles
    feed said so on every row and was told to add 36 GTINs). "yes", or nothing stated, with no GTIN
    is still missing; a GTIN given beside "no" is still checked."""
    from agent.analysis import content_quality

    header = ["id", "title", "description", "link", "image_link", "price", "availability", "brand", "gtin"]
    rows = [
        ["a", "Card A", "d", "https://x/a", "https://x/a.jpg", "1.00 USD", "in_stock", "B", ""],
        ["b", "Card B", "d", "https://x/b", "https://x/b.jpg", "1.00 USD", "in_stock", "B", ""],
        ["c", "Card C", "d", "https://x/c", "https://x/c.jpg", "1.00 USD", "in_stock", "B", ""],
        ["d", "Card D", "d", "https://x/d", "https://x/d.jpg", "1.00 USD", "in_stock", "B", "4006381333931"],
        ["e", "Card E", "d", "https://x/e", "https://x/e.jpg", "1.00 USD", "in_stock", "B", "123"],
    ]
    stated = ["no", "FALSE", "yes", "", " No "]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*header, "identifier exists"])
    for row, flag in zip(rows, stated):
        writer.writerow([*row, flag])
    table, _ = read_table_bytes(out.getvalue().encode(), "feed.csv", KIND_ATTACHED)
    assert table["identifier_exists"].to_pylist() == [False, False, True, None, False]
    fails = content_quality.failures(table)
    assert fails["missing_gtin"].to_pylist() == [False, False, True, False, False]
    assert fails["invalid_gtin"].to_pylist() == [False, False, False, False, True]
    without, _ = read_table_bytes(
        out.getvalue().replace(",identifier exists", ",note").encode(), "feed.csv", KIND_ATTACHED
    )
    assert without["identifier_exists"].null_count == without.num_rows
    assert content_quality.failures(without)["missing_gtin"].to_pylist() == [True, True, True, False, False]
