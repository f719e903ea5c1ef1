"""Every real export in tests/corpus reads its titles and its prices (a held-out sweep's finding).

The row, product, snapshot and currency properties (test_corpus_rows.py) all held for an Etsy listings
download with an Italian header while not one title, description or price was read: the overview then
said "No price" for every product. So, over every file: most rows have a title, and at least half have
a price. A file whose export really has no such column is listed once in NO_FIELD with the reason; the
listing is checked too (the field must still be missing there, so a fix cannot hide behind it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
from agent.catalog.readers.own_categories import is_placeholder  # ("Uncategorized", "Sin categoría": no category)

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in {".csv", ".tsv", ".txt"})
# least share of canonical rows holding the field
FLOORS = {"title": 0.9, "price": 0.5}
# (file relative to tests/corpus, field) -> why the export has none we could read
NO_FIELD: dict[tuple[str, str], str] = {
    ("generic/thursday-boots-listing.csv", "price"): "only a `Price Range` cell ($11500 - $11500), no price",
    ("shopify/prijsgarantie-inventory-nl-no-price.csv", "price"): "a seven-column inventory subset: no price column",
}


@pytest.fixture(scope="module")
def shares() -> dict[str, dict[str, float]]:
    out = {}
    for path in FILES:
        table, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
        rows = max(table.num_rows, 1)
        out[str(path.relative_to(CORPUS))] = {f: 1 - table[f].null_count / rows for f in FLOORS}
    return out


@pytest.mark.parametrize("field", sorted(FLOORS))
def test_every_export_reads_the_field(shares, field):
    short = {
        name: round(got[field], 2)
        for name, got in shares.items()
        if got[field] < FLOORS[field] and (name, field) not in NO_FIELD
    }
    assert not short, f"{field} read for too few rows (share of rows): {short}"


def test_the_listed_exceptions_still_have_no_field(shares):
    for (name, field), why in NO_FIELD.items():
        assert name in shares, f"{name} is not in the corpus ({why})"
        assert shares[name][field] < FLOORS[field], f"{name} now reads {field}: remove it from NO_FIELD"


SHOPIFY_FILES = [p for p in FILES if p.parent.name == "shopify" or p.name.startswith("shopify-")]


@pytest.mark.parametrize("path", SHOPIFY_FILES, ids=lambda p: p.name)
def test_a_shopify_product_category_is_one_own_category_whole(path):
    """Shopify's `Product Category` is one taxonomy path, whose names may hold commas ("Food, Beverages &
    Tobacco > … > Meat, Seafood & Eggs"): each product's own categories hold it whole, never in pieces."""
    import csv
    import io

    text = path.read_bytes().decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    handle = next((h for h in ("Handle", "URL handle") if rows and h in rows[0]), None)
    column = next((c for c in ("Product Category", "Product category") if rows and c in rows[0]), None)
    if handle is None or column is None:
        pytest.skip("no handle or no Product Category column")
    first: dict[str, str] = {}
    for row in rows:
        if row[handle] and row[handle] not in first:
            first[row[handle]] = " > ".join(p.strip() for p in (row[column] or "").split(">") if p.strip())
    table, _ = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)
    own = dict(zip(table["product_id"].to_pylist(), table["own_categories"].to_pylist()))
    wanted = {h: cat for h, cat in first.items() if cat and not is_placeholder(cat) and h in own}
    if not wanted:
        pytest.skip("no product states a Product Category")
    broken = {h: cat for h, cat in wanted.items() if cat not in (own[h] or "").split("\n")}
    assert not broken, (
        f"{len(broken)} of {len(wanted)} products lost their Product Category: {list(broken.items())[:3]}"
    )


WIX = CORPUS / "generic" / "lifsins-vatn-wix-isk.csv"


def test_a_semicolon_joined_collection_cell_is_several_own_categories():
    """A Wix export's `collection` lists every collection of a product joined by `;` ("All
    collections;Rauðvín;Varvaglione"): each is an own category, the first real one is the shown path,
    and Wix's catch-all "All collections" (every product is in it) is a placeholder, never a category.
    The overview had shown each whole cell as one label."""
    from agent.analysis.registry import SKILLS, SkillInput
    from agent.analysis.result import Scope
    from agent.catalog.taxonomy import load

    table, evidence = read_table_bytes(WIX.read_bytes(), WIX.name, KIND_ATTACHED)
    rows = dict(
        zip(
            table["row_number"].to_pylist(),
            zip(table["category_path"].to_pylist(), table["own_categories"].to_pylist()),
        )
    )
    import csv
    import io

    raw = list(csv.DictReader(io.StringIO(WIX.read_bytes().decode("utf-8-sig"), newline="")))
    assert is_placeholder("All collections")
    checked = 0
    for number, (shown, own) in rows.items():
        names = [" ".join(n.split()) for n in raw[number - 1]["collection"].split(";") if n.strip()]
        real = [n for n in names if n != "All collections"]
        assert (own or "").split("\n") == real, (number, own, names)
        assert shown == real[0], (number, shown, names)
        checked += 1
    assert checked == 60
    result = SKILLS["catalog_overview"].run(
        SkillInput(own=table, reference=None, scope=Scope(), taxonomy=load(), sources=(evidence,))
    )
    labels = [r["Item"] for r in result.table.to_pylist() if r["Section"] == "Top categories (products)"]
    assert labels and not any(";" in label or "All collections" in label for label in labels), labels
