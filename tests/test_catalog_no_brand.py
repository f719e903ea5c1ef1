"""A brand cell that says there is no brand ("Sin marca", "Generic", "N/A") is no brand (null), in every
format, and the brand skill counts those products as without brand (agent.catalog.readers.common:
NO_BRAND_VALUES, where the decision is written). A held-out Argentine pet shop's feed had "Sin marca"
on 338 of 381 products, and the answer was "the largest brand is Sin marca with 88.7 %"."""

from __future__ import annotations

import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.readers.common import is_no_brand
from agent.catalog.sources import read_table_bytes
from tests.helpers import plan_and_answer


@pytest.mark.parametrize(
    "value",
    ["Sin marca", "SIN MARCA", "Generic", "GENERICOS", "Genérico", "No-Brand", "unbranded", "N/A", "n.a.", "-",
     "Sem marca", "Ohne Marke", "Sans marque", "Без бренда", "بدون ماركة", "vendor-unknown", "Unknown", "Unknown Brand"],
)  # fmt: skip
def test_no_brand_values(value):
    assert is_no_brand(value)


@pytest.mark.parametrize(
    "value", ["Huella", "No Name", "Marca Blanca", "Generation Z", "Nano", "Brandt", "NA-KD", "Unknown London"]
)
def test_real_brands_stay(value):
    assert not is_no_brand(value)


def test_a_feed_with_no_brand_placeholders():
    rows = ["id\ttitle\tdescription\tlink\timage_link\tavailability\tprice\tbrand\tcondition"]
    brands = ["Sin marca"] * 6 + ["Generic"] * 2 + ["Huella"] * 3 + ["N/A"]
    for n, brand in enumerate(brands):
        rows.append(
            f"p{n}\tDog Bed {n}\tSoft\thttps://x.example/{n}\thttps://x.example/{n}.jpg\tin_stock\t{1000 + n} ARS\t{brand}\tnew"
        )
    table, ev = read_table_bytes("\n".join(rows).encode(), "feed.tsv", KIND_ATTACHED)
    assert ev.format == "Google Merchant Center feed"
    assert table.column("brand").cast("string").to_pylist() == [None] * 8 + ["Huella"] * 3 + [None]
    text = plan_and_answer("Which brands do I carry?", table)[2]
    text = text if isinstance(text, str) else text.text
    assert "Sin marca" not in text and "9 products have no brand" in text


def test_woocommerce_and_shopify_brands_too():
    woo = (
        "ID,Type,SKU,Name,Published,Regular price,Categories,Brands\n"
        "1,simple,A1,Lamp,1,10,Lights,Generic\n"
        "2,simple,A2,Shade,1,12,Lights,Lumo\n"
    ).encode()
    table, _ = read_table_bytes(woo, "wc-product-export.csv", KIND_ATTACHED)
    assert table.column("brand").cast("string").to_pylist() == [None, "Lumo"]
    shop = (
        "Handle,Title,Vendor,Status,Variant SKU,Variant Price\nmug,Mug,GENERICOS,active,M1,5\ncup,Cup,Acme,active,C1,4\n"
    ).encode()
    table, _ = read_table_bytes(shop, "products_export_1.csv", KIND_ATTACHED)
    assert table.column("brand").cast("string").to_pylist() == [None, "Acme"]
