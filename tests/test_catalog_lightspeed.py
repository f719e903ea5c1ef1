"""Lightspeed Retail (Vend) exports read whole — stock kept per location, the variant options — and stock
written as labelled counts in one cell (Magento's admin product grid).

Lightspeed Retail (Vend) writes no single stock column: `inventory_<outlet>` per outlet, beside
`track_inventory` (held-out helenhhuang17/Vend product-export.csv: six outlets, 1,217 variants, read
before as "stock is unknown for all variants"). Square writes `Current Quantity <location>`. Each case is
generated from a seed; the expected values are counted from the generated rows.
"""

from __future__ import annotations

import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from tests.helpers import csv_bytes


def _case(seed: int, prefix: str, places: list[str], with_tracking: bool):
    rnd = random.Random(seed)
    header = ["handle", "sku", "name", "retail_price", "active"]
    header += (["track_inventory"] if with_tracking else []) + [f"{prefix}{place}" for place in places]
    rows, expected = [], []
    for i in range(rnd.randint(20, 60)):
        tracked = not with_tracking or rnd.random() > 0.2
        counts = [rnd.choice(["", "0", "0", str(rnd.randint(1, 9)), "-1"]) for _ in places]
        given = [int(c) for c in counts if c != ""]
        qty = sum(given) if tracked and given else None
        state = "unknown" if qty is None else "in_stock" if qty > 0 else "out_of_stock"
        track = (["1" if tracked else "0"]) if with_tracking else []
        rows.append([f"p{i // 3}", f"s{i}", f"Product {i // 3}", "9.99", "1", *track, *counts])
        expected.append((qty, state))
    return csv_bytes(header, rows), expected


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    ("prefix", "places"),
    [("inventory_", ["Basement", "Garage", "Mt_Auburn"]), ("Current Quantity ", ["Main Street", "Airport"])],
)
def test_stock_is_the_sum_over_locations_and_untracked_is_unknown(seed, prefix, places):
    data, expected = _case(seed, prefix, places, with_tracking=seed % 2 == 0)
    table, evidence = read_table_bytes(data, "product-export.csv", KIND_ATTACHED)
    assert table["inventory_qty"].to_pylist() == [qty for qty, _ in expected]
    assert table["availability"].to_pylist() == [state for _, state in expected]
    assert not any(column.startswith(prefix) for column in evidence.unmapped_columns)


def test_a_single_stock_column_wins_over_location_columns():
    data = csv_bytes(["name", "price", "stock", "inventory_Garage"], [["A", "1", "5", "0"], ["B", "1", "0", "7"]])
    table, _ = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    assert table["inventory_qty"].to_pylist() == [5, 0]
    assert pc.count(table["availability"]).as_py() == 2


@pytest.mark.parametrize("seed", range(4))
def test_lightspeed_variant_options_name_sizes_and_colours(seed):
    """Lightspeed spells the option's number (`variant_option_one_name`, `…_two_value`): the held-out
    export's 902 sizes and 973 colours were read as no option at all."""
    rnd = random.Random(seed)
    header = ["handle", "name", "retail_price"]
    for n in ("one", "two", "three"):
        header += [f"variant_option_{n}_name", f"variant_option_{n}_value"]
    rows, sizes, colours = [], [], []
    for i in range(rnd.randint(10, 30)):
        axes = rnd.sample([("Size", rnd.choice("SML")), ("Color", rnd.choice(["Crimson", "Black"])), ("", "")], 3)
        rows.append([f"p{i}", f"Tee {i}", "15.99", *(cell for axis in axes for cell in axis)])
        named = dict(axes)
        sizes.append(named.get("Size"))
        colours.append(named.get("Color"))
    table, _ = read_table_bytes(csv_bytes(header, rows), "product-export.csv", KIND_ATTACHED)
    assert table["size"].to_pylist() == sizes
    assert table["color"].to_pylist() == colours


def test_magento_grid_stock_is_the_sum_of_its_labelled_counts():
    """Magento's admin product grid writes stock as labelled counts per source in one cell (held-out
    hssnfarooq/luxeoverhemden-app magento_products.csv); a configurable product's cell is blank or " -"."""
    header = ["ID", "Name", "SKU", "Price", "Quantity per Source", "Salable Quantity", "Status"]
    rows = [
        [
            "1",
            "Venti-45",
            "V-45",
            "€64.99",
            "Default Source: 1, Default Original: 0, Supplier Stock: 0",
            "x",
            "Enabled",
        ],
        ["2", "Venti", "V", "€64.99", " -", "", "Enabled"],
        ["3", "Venti-41", "V-41", "€64.99", "Default Source: 0, Supplier Stock: 0", "", "Enabled"],
        ["4", "Venti-44", "V-44", "€64.99", "Default Source: 1, Supplier Stock: 2", "", "Enabled"],
        ["5", "Odd", "O", "€64.99", "Default Source: many", "", "Enabled"],
    ]
    table, evidence = read_table_bytes(csv_bytes(header, rows), "magento_products.csv", KIND_ATTACHED)
    assert table["inventory_qty"].to_pylist() == [1, None, 0, 3, None]
    assert table["availability"].to_pylist() == ["in_stock", "unknown", "out_of_stock", "in_stock", "unknown"]
    assert "Quantity per Source" not in evidence.unmapped_columns


def test_salable_quantity_alone_is_read_the_same_way():
    header = ["Name", "SKU", "Price", "Salable Quantity"]
    rows = [["A", "A", "9", "Default Stock: 0"], ["B", "B", "9", "Default Stock: 4, EU Stock: 1"]]
    table, _ = read_table_bytes(csv_bytes(header, rows), "grid.csv", KIND_ATTACHED)
    assert table["inventory_qty"].to_pylist() == [0, 5]
