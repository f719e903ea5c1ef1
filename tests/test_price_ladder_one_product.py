"""A category of one product gets no good/better/best tiers (price_ladder.MIN_TIER_OPTIONS).

A held-out swimwear export's "How are my swimsuits priced?" said "One price holds a third or more of
the variants, so the category's own good, better and best tiers cannot split them: One-Pieces" of a
category holding one swimsuit in five sizes at one price: its variants are no range of options. Two
products and more are tiered as before."""

from __future__ import annotations

from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import bullets, csv_bytes

TAX = load()
HEADER = ["Handle", "Title", "Vendor", "Type", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"]
HEADER += ["Status"]
SIZES = ("XS", "S", "M", "L", "XL")


def _ladder(products: dict[str, tuple[str, list[str]]]):
    """products: handle -> (type, one price per size variant)."""
    rows = []
    for handle, (kind, prices) in products.items():
        for i, price in enumerate(prices):
            first = i == 0
            rows.append(
                [handle, handle.title() if first else "", "Swim" if first else "", kind if first else ""]
                + ["Size" if first else "", SIZES[i], f"{handle}-{i}", price, "active" if first else ""]
            )
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    result = SKILLS["price_ladder"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    # keyed by the category's last level (labels are the Google paths the types map to)
    return {r["Category"].split(" > ")[-1]: r for r in result.table.to_pylist()}, bullets(render_skill(result))


def test_one_product_in_many_sizes_is_no_ladder():
    dresses = {f"dress-{k}": ("Dresses", [price]) for k, price in enumerate(("40.00", "45.00", "60.00", "80.00"))}
    rows, said = _ladder({"aria": ("Swimwear", ["55.00"] * 5), **dresses})
    assert rows["Swimwear"]["Good"] is None and rows["Swimwear"]["Priced variants"] == 5
    assert rows["Dresses"]["Good"] is not None  # four products: tiered
    assert not any("One price holds" in line and "Swimwear" in line for line in said)
    assert any(line.startswith("Too few priced variants for tiers") and "Swimwear" in line for line in said)


def test_two_products_are_tiered_as_before():
    rows, _ = _ladder({"aria": ("Swimwear", ["55.00", "55.00"]), "cleo": ("Swimwear", ["65.00", "75.00"])})
    assert rows["Swimwear"]["Products"] == 2
    assert rows["Swimwear"]["Good"] is not None
