"""Values as written (issue 11): option values and colour/size/material keep their case in the canonical
table and in the attribute answer ("XL", "2XL", never "Xl", "2xl"); matching stays case-insensitive, so
"xl" and "XL" are one value, shown in the data's most common spelling.

Generated over three formats; expected counts come from the generated rows."""

from __future__ import annotations

import csv
import io
import random
from collections import Counter

import pytest

from agent.analysis import attributes
from agent.analysis.inputs import SkillInput
from agent.analysis.planner import Scope
from agent.catalog import taxonomy
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

SIZES = ["XS", "S", "M", "L", "XL", "2XL", "3XL", "xl", "One Size", "EU 42"]
COLOURS = ["Navy Blue", "navy blue", "RED", "Red", "Off-White", "McIntosh Green"]


def write(rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def shopify(rng, n):
    rows = [
        [
            "Handle",
            "Title",
            "Option1 Name",
            "Option1 Value",
            "Option2 Name",
            "Option2 Value",
            "Variant SKU",
            "Variant Price",
        ]
    ]
    picks = []
    for i in range(n):
        size, colour = rng.choice(SIZES), rng.choice(COLOURS)
        picks.append((size, colour))
        rows.append([f"h{i // 3}", f"Tee {i // 3}" if i % 3 == 0 else "", "Size", size, "Color", colour, f"S{i}", "10"])
    return write(rows), picks


def gmc(rng, n):
    rows = [["id", "title", "price", "size", "color", "image_link", "item_group_id", "availability"]]
    picks = []
    for i in range(n):
        size, colour = rng.choice(SIZES), rng.choice(COLOURS)
        picks.append((size, colour))
        rows.append([f"G{i}", "Tee", "10.00 USD", size, colour, "https://x/i.jpg", f"g{i // 2}", "in stock"])
    return write(rows), picks


def woocommerce(rng, n):
    rows = [
        [
            "ID",
            "Type",
            "SKU",
            "Name",
            "Regular price",
            "Attribute 1 name",
            "Attribute 1 value(s)",
            "Attribute 2 name",
            "Attribute 2 value(s)",
            "In stock?",
        ]
    ]
    picks = []
    for i in range(n):
        size, colour = rng.choice(SIZES), rng.choice(COLOURS)
        picks.append((size, colour))
        rows.append([str(i + 1), "simple", f"W{i}", "Tee", "10", "Size", size, "Colour", colour, "1"])
    return write(rows), picks


@pytest.mark.parametrize("make,seed", [(shopify, 1), (gmc, 2), (woocommerce, 3), (shopify, 4)])
def test_case_is_kept_and_matching_is_case_insensitive(make, seed):
    data, picks = make(random.Random(seed), 90)
    table, ev = read_table_bytes(data, "f.csv", KIND_ATTACHED)
    assert sorted(table["size"].cast("string").to_pylist()) == sorted(s for s, _ in picks)
    assert sorted(table["color"].cast("string").to_pylist()) == sorted(c for _, c in picks)
    result = attributes.run(
        SkillInput(own=table, reference=None, scope=Scope(), taxonomy=taxonomy.load(), sources=(ev,))
    )
    by_attr = {r["Attribute"]: r for r in result.table.to_pylist()}
    for label, values in (("Size", [s for s, _ in picks]), ("Colour", [c for _, c in picks])):
        groups: dict[str, Counter] = {}
        for v in values:
            groups.setdefault(v.lower(), Counter())[v] += 1
        assert by_attr[label]["Distinct values"] == len(groups)
        shown = by_attr[label]["Top values (rows)"]
        for _key, spellings in sorted(groups.items(), key=lambda kv: -sum(kv[1].values()))[:3]:
            total = sum(spellings.values())
            best = max(spellings.values())
            assert any(f"{w} ({total})" in shown for w, c in spellings.items() if c == best), (shown, spellings)
        assert "Xl (" not in shown and "2xl" not in shown and "Navy blue" not in shown


def test_option_axis_keeps_its_written_name():
    data = write(
        [
            ["Handle", "Title", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"],
            ["a", "A", "Finish", "Matte", "A1", "1"],
            ["a", "", "Finish", "GLOSS", "A2", "1"],
        ]
    )
    table, ev = read_table_bytes(data, "f.csv", KIND_ATTACHED)
    result = attributes.run(
        SkillInput(own=table, reference=None, scope=Scope(), taxonomy=taxonomy.load(), sources=(ev,))
    )
    row = next(r for r in result.table.to_pylist() if r["Attribute"].startswith("Option:"))
    assert row["Attribute"] == "Option: Finish" and row["Top values (rows)"] == "GLOSS (1), Matte (1)"
