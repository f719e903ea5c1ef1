""" "What sizes am I missing in <category>?" without a reference catalog: the broken size runs
(agent.analysis.size_runs), routed by the planner, and the fill-rate answer kept for coverage questions.

Found by asking a held-out apparel export "Which sizes are missing?": the answer was fill rates (size
94.4 % filled), which says nothing about which sizes which products lack."""

from __future__ import annotations

from agent.analysis import planner
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.size_runs import Cell, runs, size_key
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from tests.helpers import csv_bytes

TAX = load()
HEADER = [
    "Handle",
    "Title",
    "Type",
    "Option1 Name",
    "Option1 Value",
    "Variant SKU",
    "Variant Price",
    "Variant Inventory Tracker",
    "Variant Inventory Qty",
    "Variant Inventory Policy",
    "Status",
]
# (handle, sizes, sizes sold out): a dress run XS–XL; "d3" skips L inside its own run, "d4" stops at L
# (XL is carried by most), "d5" alone offers XXL (carried by few: nobody misses it); "d6" is one size
DRESSES = (
    ("d1", ("XS", "S", "M", "L", "XL"), ()),
    ("d2", ("Small", "Medium", "Large", "X-Large"), ("Medium",)),
    ("d3", ("S", "M", "XL"), ()),
    ("d4", ("S", "M", "L"), ()),
    ("d5", ("S", "M", "L", "XL", "XXL"), ("XXL",)),
    ("d6", ("One Size",), ()),
)


def _table(products=DRESSES):
    rows = []
    for handle, sizes, sold in products:
        for i, size in enumerate(sizes):
            first = i == 0
            rows.append(
                [
                    handle,
                    f"Dress {handle}" if first else "",
                    "Dresses" if first else "",
                    "Size" if first else "",
                    size,
                    f"{handle}-{i}",
                    "40.00",
                    "shopify",
                    "0" if size in sold else "5",
                    "deny",
                    "active" if first else "",
                ]
            )
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    return table


def _ask(question: str, table):
    plan = planner.plan(question, table, TAX, None)
    result = SKILLS[plan.skills[0]].run(SkillInput(own=table, reference=None, scope=plan.scope, taxonomy=TAX))
    return plan, result


def test_size_words_are_one_key_per_size():
    assert [size_key(k) for k in ("small", "medium", "large", "x-small", "extra small", "xxl", "xx-large")] == [
        "s",
        "m",
        "l",
        "xs",
        "xs",
        "2xl",
        "2xl",
    ]
    assert size_key("newborn") == "0m" and size_key("us 7.5") == "us 7.5"


def test_runs_order_letters_and_numbers_and_count_gaps_by_the_rule():
    """Letter sizes in size order, numbers numerically; a product misses a size most carry or one inside
    its own run, never an extended size few carry that it stops short of."""
    cells = [
        Cell(p, k, k.upper(), 1, 0, 0)
        for p, ks in (("a", "s m l xl"), ("b", "s m l"), ("c", "s l"))
        for k in ks.split()
    ]
    cells += [Cell("d", k, k, 1, 0, 0) for k in ("10", "8", "12")] + [Cell("e", k, k, 1, 0, 0) for k in ("8", "10")]
    letters, numbers = runs(cells)
    assert letters.sizes == ["s", "m", "l", "xl"] and numbers.sizes == ["8", "10", "12"]
    assert letters.core == {"s", "m", "l"}  # XL on 1 of 3: carried by few
    assert letters.missing == {"s": 0, "m": 1, "l": 0, "xl": 0}  # "c" skips M inside S–L
    assert letters.with_gaps == 1 and letters.sold_out is None  # no stock stated
    assert numbers.missing == {"8": 0, "10": 0, "12": 1}  # 12 on 1 of 2 is "most" (at least half)
