"""Shopify's category metafields are product-level *lists* of metaobject handles ("beige; floral",
"s; m; l; xl", "fabric__cotton; fabric__polyester", "orange-1"): one colour, material or size per
variant is read from them (agent.catalog.readers.shopify.list_attribute, whose docstring holds the
decision), never the list as one value.

Synthetic exports are written the way Shopify writes them (the list on the handle's first row only,
variant rows below it with their options); the corpus property holds over every real export."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.readers.shopify import list_entries
from agent.catalog.sources import read_table_bytes

HEADER = [
    "Handle",
    "Title",
    "Vendor",
    "Status",
    "Option1 Name",
    "Option1 Value",
    "Variant SKU",
    "Variant Price",
    "Color (product.metafields.shopify.color-pattern)",
    "Fabric (product.metafields.shopify.fabric)",
    "Size (product.metafields.shopify.size)",
]
CORPUS = Path(__file__).parent / "corpus"


def export(products: list[tuple[str, str, list[str], str, str, str]]) -> bytes:
    """(handle, option name, option values, colour list, fabric list, size list) per product."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    for handle, axis, values, colours, fabrics, sizes in products:
        for n, value in enumerate(values):
            first = n == 0
            w.writerow(
                [
                    handle,
                    handle.replace("-", " ").title() if first else "",
                    "Acme" if first else "",
                    "active" if first else "",
                    axis if first else "",
                    value,
                    f"{handle}-{n}",
                    "20.00",
                    colours if first else "",
                    fabrics if first else "",
                    sizes if first else "",
                ]
            )
    return buf.getvalue().encode()


def by_sku(data: bytes) -> dict[str, dict]:
    table, _ = read_table_bytes(data, "products_export_1.csv", KIND_ATTACHED)
    return {row["sku"]: row for row in table.to_pylist()}


def test_several_colours_of_one_item_are_one_combined_value_on_each_variant():
    rows = by_sku(export([("floral-suit", "Size", ["S", "M"], "pink; floral", "cotton; linen", "s; m")]))
    for sku in ("floral-suit-0", "floral-suit-1"):
        assert rows[sku]["color"] == "pink/floral"  # not "pink; floral": Merchant Center's form
        assert rows[sku]["material"] == "cotton/linen"
    # the size option wins over the metafield's size range
    assert (rows["floral-suit-0"]["size"], rows["floral-suit-1"]["size"]) == ("S", "M")


def test_a_variant_whose_option_names_an_entry_takes_that_entry():
    """The colour axis under another name ("Style"): each variant is its own colour, not all ten."""
    rows = by_sku(export([("paver", "Style", ["Flinted White", "Rock"], "flinted-white; rock; black", "", "")]))
    assert (rows["paver-0"]["color"], rows["paver-1"]["color"]) == ("Flinted White", "Rock")


def test_a_size_list_without_a_variant_naming_one_is_no_size():
    rows = by_sku(export([("tee", "Title", ["Default Title"], "white", "", "xs; s; m; l; xl; 2xl")]))
    assert rows["tee-0"]["size"] is None  # a size range is not the variant's size
    assert rows["tee-0"]["color"] == "white"
    rows = by_sku(export([("cap", "Title", ["Default Title"], "", "", "one-size")]))
    assert rows["cap-0"]["size"] == "one-size"  # one entry is the product's (sizes keep their hyphens)


def test_handles_are_read_as_names():
    rows = by_sku(
        export(
            [
                ("hoodie", "Title", ["Default Title"], "orange-1", "fabric__cotton; fabric__polyester", ""),
                ("blazer", "Title", ["Default Title"], "navy-blazer; rosa-2; gris-7; azul", "", ""),
            ]
        )
    )
    assert rows["hoodie-0"]["color"] == "orange"  # Shopify's "-1" for a taken handle is no part of it
    assert rows["hoodie-0"]["material"] == "cotton/polyester"
    assert rows["blazer-0"]["color"] == "navy blazer/rosa/gris"  # the first three, primary first


@pytest.mark.parametrize(
    ("value", "attr", "entries"),
    [
        ("beige; floral; beige", "color", ["beige", "floral"]),
        ("care-instructions__machine-washable", "material", ["machine washable"]),
        ("6-12-meses; 12-18-meses", "size", ["6-12-meses", "12-18-meses"]),
        ("size-10; size-9", "size", ["size-10", "size-9"]),
        (" ; ", "color", []),
    ],
)
def test_list_entries(value, attr, entries):
    assert list_entries(value, attr) == entries


def test_corpus_no_metafield_list_is_read_as_one_value():
    """Every real Shopify export: no colour, material or size holds Shopify's "; " list separator or a
    handle prefix, and no size is a metafield's whole size range."""
    files = sorted(CORPUS.glob("shopify/*.csv")) + sorted(CORPUS.glob("seed/shopify-*.csv"))
    assert len(files) > 30
    listed = 0
    for path in files:
        data = path.read_bytes()
        text = data.decode("utf-8-sig", errors="replace")
        header = next(csv.reader(io.StringIO(text)))
        columns = [c for c in header if "(product.metafields.shopify." in c]
        if not columns:
            continue
        cells = {row[c] for row in csv.DictReader(io.StringIO(text)) for c in columns if row.get(c)}
        lists = {cell for cell in cells if "; " in cell}
        listed += bool(lists)
        table, _ = read_table_bytes(data, path.name, KIND_ATTACHED)
        for attr in ("color", "material", "size"):
            values = set(table.column(attr).cast("string").to_pylist()) - {None}
            bad = {v for v in values if v in lists or "__" in v}
            assert not bad, (path.name, attr, sorted(bad)[:3])
    assert listed >= 20  # the property is about real lists, not vacuous
