"""Ingest's fast paths give exactly what the general rule gives (issue 16, item 2: speed, same answers).

Each shortcut taken for speed — one-path own categories, the dictionary-level placeholder filter of the
mapping, combining own-category columns without re-splitting their paths — is checked against the
general rule written out here on many generated values, tricky ones included (placeholders in every
case and language, empty levels, non-breaking spaces, separators alone, control characters).
"""

from __future__ import annotations

import random

import pyarrow as pa

from agent.catalog import categorise, taxonomy
from agent.catalog.readers import own_categories as own

PIECES = sorted(own.PLACEHOLDERS) + [
    "Home",
    "Garden > Pots",
    "Tables, Chairs & Benches",
    "Gear/Bags",
    "Ü",
    "Straße",
    "K",
    "12",
    "-",
    "",
    " ",
    ">",
    " > ",
    "/",
    ";",
    ",",
    "\u00a0",
    "\t",
    "\x1c",
]


def _values(seed: int, n: int = 3000) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 4))]
        text = rng.choice(["", " ", " > ", "/", ";", ","]).join(parts)
        out.append("".join(c.upper() if rng.random() < 0.3 else c for c in text))
    return out


def _general_generic(value):
    if not value:
        return None
    paths = []
    for part in value.split(";"):
        for p in own._several_if_paths(part):
            paths.append(own._levels(p, ">") if ">" in p else own._levels(p, "/"))
    return own._join(paths)


def _general_single(value):
    return own._join([own._levels(value, ">")]) if value else None


def test_one_path_shortcuts_equal_the_general_parse():
    for v in _values(1) + [None, "", "Uncategorized", "UNCATEGORISED", " > ", "a > > b", "Sin categoría"]:
        assert own.generic(v) == _general_generic(v), v
        assert own.single(v) == _general_single(v), v


def test_combine_equals_joining_every_rows_paths():
    rng = random.Random(2)
    a = [own.generic(v) for v in _values(3, 400)]
    b = [own.single(v) for v in _values(4, 400)]
    rows_a = [rng.choice(a + [None]) for _ in range(5000)]
    rows_b = [rng.choice(b + [None]) for _ in range(5000)]
    got = own.combine(pa.array(rows_a).dictionary_encode(), pa.array(rows_b).dictionary_encode()).to_pylist()
    want = [
        own._join([p.split(" > ") for v in (x, y) if v for p in v.split(own.SEPARATOR)]) for x, y in zip(rows_a, rows_b)
    ]
    assert got == want


def test_placeholder_filter_nulls_exactly_the_placeholder_values():
    values = _values(5) + [
        "Uncategorized",
        "Home > Uncategorized",
        "NON CLASSÉ",
        "Без категории",
        "",
        ">",
        "\u00a0",
        None,
    ]

    def placeholder(v):
        return v is not None and all(
            lv.strip().casefold() in own.PLACEHOLDERS
            for lv in taxonomy.normalise_path(v).split(taxonomy.SEPARATOR)
            if lv.strip()
        )

    col = pa.chunked_array([pa.array(values, pa.string()).dictionary_encode()])
    out = categorise._without_placeholders(col)
    got = [v is None for v in (out.to_pylist() if out is not None else values)]
    assert got == [v is None or placeholder(v) for v in values]
    assert any(placeholder(v) for v in values) and not all(placeholder(v) for v in values if v is not None)
