"""Per-row taxonomy mapping: Google category (id or path) -> merchant path prefix -> keywords -> unmapped."""

from __future__ import annotations

import re

import pyarrow as pa

from agent.catalog import taxonomy
from agent.catalog.categorise import KEYWORD_RULES, map_rows
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes


def test_every_keyword_rule_points_at_a_real_category_and_compiles():
    tax = taxonomy.load()
    for pattern, cid in KEYWORD_RULES:
        assert tax.node(cid) is not None, cid
        re.compile(pattern)


def test_methods_in_order_of_trust():
    data = (
        "title,google_product_category,category,product_type\n"
        "Teak lounger,4105,Garden > Misc,\n"                                                   # id
        "Teak lounger,Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers,,\n"          # path
        "Teak lounger,212 - Apparel & Accessories > Clothing > Shirts & Tops,,\n"                 # "id - path"
        "Teak lounger,,Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers > Teak,\n"   # prefix
        "Thing,,Garden > Misc,Patio Umbrella\n"                                                   # keyword on type
        "Cantilever parasol 3m,,Seasonal > Misc,\n"                                               # keyword on title
        "Gift card,,Seasonal > Misc,\n"                                                           # nothing
        "Teak lounger,999999999,,\n"                                                              # bad id: fall through
    ).encode()
    table, _ = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    got = [(r["google_category_id"], r["category_mapping"]) for r in table.to_pylist()]
    assert got == [
        (4105, "google_category"),
        (4105, "google_category"),
        (212, "google_category"),
        (4105, "merchant_path"),
        (719, "keyword"),
        (719, "keyword"),
        (None, "unmapped"),
        (4105, "keyword"),
    ]
    paths = table["google_category_path"].to_pylist()
    assert paths[0] == "Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers" and paths[6] is None


def test_map_rows_directly_on_arrays():
    gid, path, method = map_rows(
        3,
        google_category=pa.chunked_array([pa.array([None, None, "6828"])]),
        category_path=pa.chunked_array([pa.array(["Home & Garden > Lighting > Lamps", None, None])]),
        product_type=None,
        title=pa.chunked_array([pa.array(["x", "Garden hose 20m", "y"])]),
    )
    assert gid.to_pylist() == [4636, 2313, 6828]
    assert method.to_pylist() == ["merchant_path", "keyword", "google_category"]
    assert path.to_pylist()[1] == "Home & Garden > Lawn & Garden > Watering & Irrigation > Garden Hoses"


def test_case_and_spacing_of_paths_do_not_matter():
    data = b"title,category\nLamp,home & garden>lighting >  lamps\n"
    table, _ = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    assert table["google_category_id"].to_pylist() == [4636]
