"""A row made longer than the header by a delimiter inside an unquoted text cell is read as one cell.

tests/corpus/gmc/equinox-health-kes.csv has `Gastrostomy Tube (Size 24, 26, 28)` unquoted: read from the
left, that row's price was a URL and its brand "0 KES". Each case here is written by hand without quoting
(what such a feed generator does) from a seed; the expected values come from the generated records.
"""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from agent.catalog import csvread
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes
from agent.render.footer import source_line

HEADER = ["id", "title", "description", "link", "image_link", "price", "availability", "brand"]
WORDS = ["Oak", "Lamp", "Chair", "Table", "Rug", "Vase", "Shelf", "Desk"]


def feed(seed: int, n: int, broken: int, delimiter: str) -> tuple[bytes, list[dict]]:
    """A feed whose rows are joined with `delimiter` and never quoted; `broken` rows carry the delimiter
    (followed by a space, as prose writes it) inside their title or description."""
    rng = random.Random(seed)
    bad = set(rng.sample(range(n), broken))
    records, lines = [], [delimiter.join(HEADER)]
    for i in range(n):
        name = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}"
        text = f"A solid {name.lower()} for the home"
        if i in bad:
            pieces = [f"Size {s}" for s in rng.sample(range(10, 60), rng.randint(2, 3))]
            if rng.random() < 0.5:
                name = f"{name} ({(delimiter + ' ').join(pieces)})"
            else:
                text = f"{text}{delimiter} in {(delimiter + ' ').join(pieces)}"
        price = round(rng.uniform(5, 900), 2)
        rec = {
            "id": f"P{i}",
            "title": name,
            "description": text,
            "price": price,
            "brand": rng.choice(["Acme", "Nordhaus"]),
            "link": f"https://shop.example/p/{i}",
        }
        records.append(rec)
        cells = [rec["id"], name, text, rec["link"], f"https://shop.example/i/{i}.jpg", f"{price:.2f} USD"]
        lines.append(delimiter.join([*cells, "in_stock", rec["brand"]]))
    return ("\n".join(lines) + "\n").encode(), records


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("seed,n,broken", [(1, 30, 1), (2, 120, 7), (3, 12, 3)])
def test_an_unquoted_delimiter_in_a_text_cell_is_read_as_one_cell(seed, n, broken, delimiter):
    data, records = feed(seed, n, broken, delimiter)
    table, ev = read_table_bytes(data, "feed.txt" if delimiter == "\t" else "feed.csv", KIND_ATTACHED)
    assert (ev.rows_read, ev.rows_skipped, ev.rows_overlong, ev.rows_rejoined) == (n, 0, 0, broken)
    rows = table.to_pylist()
    assert [r["title"] for r in rows] == [rec["title"] for rec in records]
    assert [r["description"] for r in rows] == [rec["description"] for rec in records]
    assert [r["price"] for r in rows] == [rec["price"] for rec in records]
    assert [r["brand"] for r in rows] == [rec["brand"] for rec in records]
    assert [r["link"] for r in rows] == [rec["link"] for rec in records]
    assert {r["currency"] for r in rows} == {"USD"} and {r["availability"] for r in rows} == {"in_stock"}
    name = {",": "comma", ";": "semicolon", "\t": "tab"}[delimiter]
    rows_word = "row" if broken == 1 else "rows"
    assert f"{broken} {rows_word} with an unquoted {name} inside a cell (read as one cell)" in source_line(ev)


def test_stray_cells_beyond_the_header_still_keep_the_known_cells():
    """A long row that reads well from the left is not rejoined: its extra cells are counted, as before."""
    data = b"title,price,sku\nChair,10,A\nTable,20,B,stray,,more\nLamp,5,C,\n"
    table, ev = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    assert table["price"].to_pylist() == [10, 20, 5]
    assert (ev.rows_overlong, ev.extra_cells, ev.rows_rejoined) == (1, 2, 0)


def test_the_python_reader_rejoins_the_same_way():
    """The last-resort reader (Python's csv, used when Arrow's rows cannot be mended) applies the same rule."""
    data, records = feed(4, 20, 4, ",")
    header = data.split(b"\n", 1)[0].decode().split(",")
    kinds = {"title": csvread.KIND_TEXT, "description": csvread.KIND_TEXT, "price": csvread.KIND_PRICE}
    kinds |= {"link": csvread.KIND_URL, "image_link": csvread.KIND_URL, "brand": csvread.KIND_TEXT}
    ragged = csvread.Ragged()
    wanted = {c: pa.string() for c in header}
    table, _ = csvread._python_read(data, header, wanted, ",", ragged, csvread.Rejoin(header, kinds, ","))
    assert table["title"].to_pylist() == [rec["title"] for rec in records]
    assert table["brand"].to_pylist() == [rec["brand"] for rec in records]
    assert (ragged.rejoined, ragged.overlong) == (4, 0)
