"""Rules of the non-gaps skills found by asking held-out real exports (not in the corpus) the merchant's
questions and checking every figure against an independent count: each test builds a small export the
way those files are written and fails without its rule."""

from __future__ import annotations

from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from tests.helpers import csv_bytes

TAX = load()
SHOPIFY = [
    "Handle",
    "Title",
    "Body (HTML)",
    "Vendor",
    "Type",
    "Option1 Name",
    "Option1 Value",
    "Option2 Name",
    "Option2 Value",
    "Variant SKU",
    "Variant Price",
    "Image Src",
    "Status",
]


def _shopify(rows: list[list]) -> object:
    table, _ = read_table_bytes(csv_bytes(SHOPIFY, rows), "products_export_1.csv", "attached file")
    return table


def _run(skill: str, table) -> list[dict]:
    result = SKILLS[skill].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    return result.table.to_pylist()


def test_option_named_like_an_attribute_is_counted_once_under_it():
    """A Shopify shop names its axes "Color Options" and "Size (Inch)" (held-out exports of a frame shop
    and a tumbler shop): the catalog layer reads them as colour and size, so attribute_coverage must too,
    not list the same values again as "Option: Color Options" and "Option: Size (Inch)"."""
    rows = []
    for i, (colour, size) in enumerate([("All Blue", '8" by 10"'), ("All Pink", '12" by 16"'), ("Pink & Blue", "")]):
        first = i == 0
        rows.append(
            [
                "tumbler",
                "Kids Tumbler" if first else "",
                "<p>Tumbler</p>" if first else "",
                "Muse" if first else "",
                "Drinkware" if first else "",
                "Color Options" if first else "",
                colour,
                "Size (Inch)" if first else "",
                size,
                f"T{i}",
                "12.00",
                "https://example.com/t.jpg" if first else "",
                "active" if first else "",
            ]
        )
    got = {r["Attribute"]: r for r in _run("attribute_coverage", _shopify(rows))}
    assert not [a for a in got if a.startswith("Option:")], got.keys()
    assert got["Colour"]["Filled rows"] == 3 and got["Colour"]["Distinct values"] == 3
    assert got["Size"]["Filled rows"] == 2 and got["Size"]["Distinct values"] == 2


def test_woocommerce_brand_attribute_is_not_an_option_axis():
    """A WooCommerce "Brand" attribute is read as the brand column; it is no colour-like axis to list."""
    header = ["ID", "Type", "SKU", "Name", "Published", "Regular price", "Categories", "Images"]
    header += ["Attribute 1 name", "Attribute 1 value(s)", "Attribute 1 visible", "Attribute 1 global"]
    rows = [
        [str(i), "simple", f"S{i}", f"Speaker {i}", "1", "20", "Speakers", "https://e.com/a.jpg", "Brand", b, "1", "0"]
        for i, b in enumerate(("AeroPulse", "VoltMax"))
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "wc-product-export.csv", "attached file")
    got = [r["Attribute"] for r in _run("attribute_coverage", table)]
    assert "Option: Brand" not in got
