"""A file whose every line is one quoted cell holding the real row is read as the rows inside.

A CSV pasted into one spreadsheet column and saved again quotes each line whole (held-out
MaatarChaima/product_feeds product_feed.csv: `"id,title,…"`, `"001,""T-shirt Blanc"",…"`); it read as
one column and "no product columns recognised". Each case writes a generated table with Python's csv
module, then wraps every line the same way; both must read alike.
"""

from __future__ import annotations

import csv
import io
import random

import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

HEADERS = {
    "gmc": ["id", "title", "description", "availability", "condition", "price", "link", "image_link", "brand"],
    "generic": ["sku", "title", "price", "category", "brand"],
}


def table(kind: str, seed: int, n: int, delimiter: str) -> str:
    rng = random.Random(seed)
    rows = [HEADERS[kind]]
    for i in range(n):
        name = f'Lamp "{rng.choice(["Oak", "Pine"])}" {i}, tall'  # quotes and delimiters inside cells
        price = f"{rng.uniform(2, 300):.2f}"
        if kind == "gmc":
            rows.append(
                [f"{i:03}", name, "Coton bio", "in stock", "new", f"{price} EUR", "https://x/p", "https://x/i", "Acme"]
            )
        else:
            rows.append([f"S{i}", name, price, rng.choice(["Lighting", "Decor"]), "Acme"])
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    return buf.getvalue()


def wrapped(text: str) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    for line in text.splitlines():
        writer.writerow([line])
    return b"\xef\xbb\xbf" + buf.getvalue().encode()


def rows_of(data: bytes):
    t, ev = read_table_bytes(data, "product_feed.csv", KIND_ATTACHED)
    keep = ("title", "price", "currency", "brand", "availability", "own_categories", "sku")
    return [{k: r[k] for k in keep} for r in t.to_pylist()], ev


@pytest.mark.parametrize("kind", list(HEADERS))
@pytest.mark.parametrize("delimiter", [",", ";"])
@pytest.mark.parametrize("seed,n", [(1, 1), (2, 25)])
def test_lines_wrapped_in_one_quoted_cell_read_as_their_rows(kind, delimiter, seed, n):
    plain = table(kind, seed, n, delimiter)
    want, plain_ev = rows_of(plain.encode())
    got, ev = rows_of(wrapped(plain))
    assert got == want and len(got) == n
    assert (ev.format, ev.rows_read, ev.rows_skipped) == (plain_ev.format, n, 0)


def test_a_one_column_table_is_not_unwrapped():
    rows, ev = rows_of(b'title\n"Chair, oak"\n"Lamp"\n')
    assert [r["title"] for r in rows] == ["Chair, oak", "Lamp"] and ev.rows_read == 2
