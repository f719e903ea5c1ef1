"""Reader properties over every real export in tests/corpus (issue 11, "How to show it").

Each file goes through the product's own entry point (`ingest.read_table_bytes`) and is checked
against an independent reading written here with Python's `csv` module:

- format: the detected format is the folder's kind;
- rows: rows read equal the data rows `csv` reads (blank lines and rows of empty cells excluded,
  image-only rows included);
- skipped: no row is skipped unless the format cannot place it (a Shopify row without a handle,
  a BigCommerce SKU row before any Product row); ragged rows are padding, not damage;
- products: every active product lands in the population exactly once (distinct active products
  counted per format from the csv rows);
- snapshot: the snapshot date is the newest date of the most preferred date column the catalog
  README lists (our own parse, ISO and Magento's locale `2/20/25, 7:27 PM`);
- currency: a currency the file names (ISO code in a price cell or a currency column) is named;
  a file naming none gets none.

Known failures of today's readers are listed ONCE in KNOWN_FAILURES and run as strict xfails: when
a fix lands the xfail itself fails, so the entry must be removed and nothing stays excused silently.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes

CORPUS = Path(__file__).parent / "corpus"

# (file relative to tests/corpus, property): what today's readers do wrong.
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    # (empty: every failure listed here when the corpus arrived is fixed on the readers branch)
}

FORMAT_NAMES = {
    "shopify": "Shopify product export",
    "gmc": "Google Merchant Center feed",
    "woocommerce": "WooCommerce product export",
    "magento": "Adobe Commerce (Magento) export",
    "bigcommerce": "BigCommerce product export",
    "generic": "generic table",
}
SEED_KINDS = {
    "shopify-": "shopify",
    "gmc-": "gmc",
    "woocommerce-": "woocommerce",
    "magento-": "magento",
    "bigcommerce-": "bigcommerce",
}
# The snapshot-date columns the catalog README lists, most preferred first (our own copy).
SNAPSHOT_NAMES = (
    "snapshot_date",
    "snapshot date",
    "snapshot",
    "as_of",
    "as of",
    "as_of_date",
    "as of date",
    "asof",
    "exported_at",
    "export_date",
    "export date",
    "export_time",
    "exported",
    "feed_date",
    "report_date",
    "extract_date",
    "extracted_at",
    "updated_at",
    "updated",
    "last_updated",
    "last updated",
    "last_modified",
    "last modified",
    "modified_at",
    "date_modified",
    "date modified",
    "date",
    # the README's last resort: the newest creation date bounds the snapshot from below
    "created_at",
    "created",
    "date_created",
    "date created",
    "date added",
    "creation_date",
)
PROPERTIES = ("format", "rows", "skipped", "products", "snapshot", "currency")
# The WooCommerce columns the product count reads, as WooCommerce's exporter (and importer) labels them in
# each header language of tests/corpus/woocommerce: English (also the Hebrew, Persian and Serbian shops'
# files: their headers are English) and Russian, written out here from the files, not taken from the
# reader's header tables. test_the_woocommerce_oracle_reads_every_file_s_columns fails when a new
# header language arrives that this list does not know.
WOO_NAMES: dict[str, tuple[str, ...]] = {
    "type": ("Type", "Тип"),
    "published": ("Published", "Опубликован"),
    "parent": ("Parent", "Родительский"),
    "id": ("ID",),
    "sku": ("SKU", "Артикул"),
}


@dataclass
class Independent:
    """What the csv module says about one file."""

    kind: str
    header: list[str]
    rows: list[list[str]]  # data rows, rows repeating the header line aside
    repeated_headers: int = 0  # rows repeating the header (two exports pasted together): read and skipped


def kind_of(path: Path) -> str:
    if path.parent.name != "seed":
        return path.parent.name
    return next(k for prefix, k in SEED_KINDS.items() if path.name.startswith(prefix))


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*/*") if p.suffix in {".csv", ".tsv", ".txt"})


@lru_cache(maxsize=None)
def independent(path: Path) -> Independent:
    data = path.read_bytes()
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    first = next((line for line in text.split("\n") if line.strip()), "")  # a leading blank line is no header
    delim = max(("\t", ";", ",", "|"), key=first.count) if any(d in first for d in "\t;,|") else ","
    csv.field_size_limit(1 << 30)
    table = list(csv.reader(io.StringIO(text, newline=""), delimiter=delim))
    # A blank line, or a line of bare delimiters (a spreadsheet's empty row), is not a data row.
    table = [r for r in table if any(c.strip() for c in r)]
    header, body = table[0], table[1:]
    repeats = [r for r in body if repeats_header(header, r)]
    return Independent(kind_of(path), header, [r for r in body if not repeats_header(header, r)], len(repeats))


def repeats_header(header: list[str], row: list[str]) -> bool:
    """A row whose every non-blank cell is its column's name, two at least: the header line again."""
    cells = [(c.strip().lower(), h.strip().lstrip("\ufeff").strip().lower()) for c, h in zip(row, header) if c.strip()]
    return len(cells) >= 2 and len(cells) == sum(1 for c in row if c.strip()) and all(c == h for c, h in cells)


@lru_cache(maxsize=None)
def product_read(path: Path):
    return read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)


def col(ind: Independent, *names: str) -> int | None:
    # a byte-order mark after leading blanks ("\t\ufeffID", slavno-russian-header-leading-blank.csv) is no name
    low = [h.strip().lstrip("\ufeff").strip().lower() for h in ind.header]
    for n in names:
        if n.lower() in low:
            return low.index(n.lower())
    return None


def cell(row: list[str], i: int | None) -> str:
    return row[i].strip() if i is not None and i < len(row) else ""


# ---- independent counts per format -------------------------------------------------------------


def magento_product_rows(ind: Independent) -> tuple[dict[str, list[str]], int]:
    """SKU -> its product row (the global row wins, else the SKU's first store-view row), and how many
    further product rows repeat a SKU already read (a converted export listing rows twice)."""
    sku, view = col(ind, "sku"), col(ind, "store_view_code")
    glob = {cell(r, sku) for r in ind.rows if cell(r, sku) and cell(r, view).lower() in ("", "admin")}
    rows: dict[str, list[str]] = {}
    repeats = 0
    for r in ind.rows:
        s = cell(r, sku)
        if not s:
            continue
        product = cell(r, view).lower() in ("", "admin") or (s not in glob and s not in rows)
        if not product:
            continue
        if s in rows and (cell(r, view).lower() in ("", "admin") or s not in glob):
            repeats += 1
            continue
        rows[s] = r
    return rows, repeats


def expected_skipped(ind: Independent) -> int:
    if ind.kind == "magento":
        return magento_product_rows(ind)[1]
    if ind.kind == "shopify":
        h = col(ind, "Handle", "URL handle")
        return sum(1 for r in ind.rows if not cell(r, h))
    if ind.kind == "bigcommerce":
        t = col(ind, "Item Type")
        seen_product, n = False, 0
        for r in ind.rows:
            kind = cell(r, t).lower()
            seen_product |= kind == "product"
            n += kind == "sku" and not seen_product
        return n
    return 0


def active_products(ind: Independent) -> int:
    """Distinct active products, counted from the csv rows by the format's own rules."""
    r_ = ind.rows
    if ind.kind == "shopify":
        h, status, pub = col(ind, "Handle", "URL handle"), col(ind, "Status"), col(ind, "Published")
        first: dict[str, list[str]] = {}
        for r in r_:
            if cell(r, h):
                first.setdefault(cell(r, h), r)

        def active(r: list[str]) -> bool:
            if status is not None and cell(r, status):
                return cell(r, status).lower() in {"active", "unlisted"}  # unlisted: sold, not listed
            if pub is not None and cell(r, pub):
                return cell(r, pub).lower() in {"true", "1", "yes"}
            return True

        return sum(1 for r in first.values() if active(r))
    if ind.kind == "gmc":
        # Merchant Center also takes attribute names in the feed's language (Polish `identyfikator`)
        i = col(ind, "id", "g:id", "identyfikator", "identifiant", "идентификатор")
        g = col(ind, "item_group_id", "g:item_group_id", "item group id")
        return len({cell(r, g) or cell(r, i) for r in r_})
    if ind.kind == "woocommerce":
        t, pub, parent, idc, sku = (col(ind, *WOO_NAMES[role]) for role in ("type", "published", "parent", "id", "sku"))
        keys = {f"id:{cell(r, idc)}" for r in r_ if cell(r, idc)} | {cell(r, sku) for r in r_ if cell(r, sku)}
        n = 0
        for r in r_:
            kind = cell(r, t).lower()
            if pub is not None and cell(r, pub) not in {"1", ""}:
                continue
            if "grouped" in kind:
                continue
            if "variation" in kind:
                n += cell(r, parent) not in keys  # an orphan variation is its own product
                continue
            n += 1
        return n
    if ind.kind == "magento":
        ptype, online = col(ind, "product_type"), col(ind, "product_online")
        variations, parent = col(ind, "configurable_variations"), col(ind, "parent_sku")
        members, visibility = col(ind, "associated_skus"), col(ind, "visibility")
        rows = magento_product_rows(ind)[0]
        children = {
            part.strip()
            for r in rows.values()
            if cell(r, ptype) == "configurable"
            for part in re.findall(r"sku=([^,|]+)", cell(r, variations))
        }
        # a child naming its parent (`parent_sku`, some export tools), a group's hidden members
        children |= {s for s, r in rows.items() if cell(r, parent) in rows and cell(r, parent) != s}
        children |= {
            m.split("=")[0].strip()
            for r in rows.values()
            if cell(r, ptype) == "grouped"
            for m in cell(r, members).split(",")
            if cell(rows.get(m.split("=")[0].strip(), []), visibility).lower() == "not visible individually"
        }
        # a "Not Visible Individually" row no parent here names is a product of its own (the reader's rule)
        return sum(
            1 for s, r in rows.items() if s not in children and cell(r, ptype) != "grouped" and cell(r, online) != "2"
        )
    if ind.kind == "bigcommerce":
        t, visible = col(ind, "Item Type"), col(ind, "Product Visible?")
        return sum(
            1
            for r in r_
            if cell(r, t).lower() == "product" and cell(r, visible).upper() not in ("N", "NO", "0", "FALSE")
        )  # Y/N or Yes/No
    if ind.kind == "generic":
        # our own copy of the id columns a store's own table names: a product id, else a variant id
        # or SKU, else each row is its own product; a status column that says draft etc. excludes
        key = col(ind, "product_id", "product id", "parent_id", "item_group_id", "handle", "parent id")
        key = key if key is not None else col(ind, "variant_id", "variant id", "id", "item id", "offer id")
        key = key if key is not None else col(ind, "sku", "item code", "product code", "code")
        # a status column, else a visibility flag (a Wix export's `visible` true/false)
        status = col(ind, "status", "state", "product status")
        status = status if status is not None else col(ind, "visible")
        off = {"draft", "archived", "private", "pending", "trash", "inactive", "disabled", "0", "false", "no"}
        live = [(i, r) for i, r in enumerate(r_) if cell(r, status).lower() not in off]
        ids = [cell(r, key) for r in r_]
        # the Shopify Google channel's feed ids `shopify_<country>_<product>_<variant>`, when every id has
        # that shape and none repeats: the product is the id less its variant part
        feed = re.compile(r"shopify_[A-Z]{2}_\d+_\d+")
        if ids and all(feed.fullmatch(i) for i in ids) and len(set(ids)) == len(ids):
            return len({cell(r, key).rsplit("_", 1)[0] for _, r in live})
        return len({cell(r, key) or f"row:{i}" for i, r in live})
    raise AssertionError(ind.kind)


_LOCALE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})(?:,?\s+(\d{1,2}):(\d{2})(?::\d{2})?\s*([AP]M)?)?$", re.I)
_ISO = re.compile(r"^(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ].*)?$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


def parse_date(value: str) -> dt.date | None:
    """ISO (`2026-11-28`, `2026/11/28`, with a time), `20261128`, or Magento's `2/20/25, 7:27 PM`."""
    v = value.strip()
    for rx in (_ISO, _COMPACT):
        if m := rx.match(v):
            try:
                return dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return None
    if m := _LOCALE.match(v):
        year = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
        try:
            return dt.date(year, int(m[1]), int(m[2]))
        except ValueError:
            return None
    return None


def expected_snapshot(ind: Independent) -> dt.date | None:
    norm = [re.sub(r"[\s_]+", " ", h.strip().lower()) for h in ind.header]
    for name in SNAPSHOT_NAMES:
        key = re.sub(r"[\s_]+", " ", name)
        if key in norm:
            i = norm.index(key)
            dates = [d for r in ind.rows if (d := parse_date(cell(r, i)))]
            if dates:
                return max(dates)
    return None


PRICE_COLUMNS = (
    "Variant Price",
    "Price",
    "Variant Compare At Price",
    "Compare-at price",
    "price",
    "sale_price",
    "g:price",
    "Regular price",
    "Sale price",
    "special_price",
)
_CODE_PRICE = re.compile(r"^(?:([A-Z]{3})\s*[\d.,]+|[\d.,]+\s*([A-Z]{3}))$")


def expected_currencies(ind: Independent) -> set[str]:
    codes: set[str] = set()
    for name in PRICE_COLUMNS:
        i = col(ind, name)
        if i is None or ind.header[i].strip() != name:
            continue
        for r in ind.rows:
            if m := _CODE_PRICE.match(cell(r, i)):
                codes.add(m[1] or m[2])
    c = col(ind, "currency", "Currency", "currency_code")
    if c is not None:
        codes |= {cell(r, c).upper() for r in ind.rows if re.fullmatch(r"[A-Za-z]{3}", cell(r, c))}
    return codes


# ---- the properties ----------------------------------------------------------------------------


def check(path: Path, prop: str) -> None:
    ind = independent(path)
    table, ev = product_read(path)
    if prop == "format":
        assert ev.format == FORMAT_NAMES[ind.kind]
    elif prop == "rows":
        assert ev.rows_read == len(ind.rows) + ind.repeated_headers
    elif prop == "skipped":
        assert ev.rows_skipped == expected_skipped(ind) + ind.repeated_headers
    elif prop == "products":
        # the default population: active, and `unknown` for a table that states no status at all
        active = table.filter(pc.is_in(table["status"].cast("string"), pa.array(["active", "unknown"])))
        assert len(set(active["product_key"].to_pylist())) == active_products(ind)
    elif prop == "snapshot":
        assert ev.snapshot_date == expected_snapshot(ind)
    elif prop == "currency":
        named = {c for c in table["currency"].cast("string").to_pylist() if c}
        want = expected_currencies(ind)
        assert named == want
    else:
        raise AssertionError(prop)


def cases():
    for path in corpus_files():
        rel = str(path.relative_to(CORPUS))
        for prop in PROPERTIES:
            marks = []
            if (rel, prop) in KNOWN_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[(rel, prop)]))
            yield pytest.param(path, prop, id=f"{rel}-{prop}", marks=marks)


@pytest.mark.parametrize("path,prop", list(cases()))
def test_corpus_property(path: Path, prop: str) -> None:
    check(path, prop)


def test_known_failures_name_real_cases() -> None:
    """An entry for a file or property that does not exist would excuse nothing: refuse it."""
    files = {str(p.relative_to(CORPUS)) for p in corpus_files()}
    for rel, prop in KNOWN_FAILURES:
        assert rel in files and prop in PROPERTIES, (rel, prop)


def test_the_independent_counts_can_fail() -> None:
    """The independent readings are not vacuous: the corpus has ragged rows, dates and currencies."""
    inds = [independent(p) for p in corpus_files()]
    assert any(len({len(r) for r in i.rows} | {len(i.header)}) > 1 for i in inds)
    assert any(expected_snapshot(i) for i in inds)
    assert any(expected_currencies(i) for i in inds)
    assert all(active_products(i) > 0 or i.kind == "magento" for i in inds)


def test_the_woocommerce_oracle_reads_every_file_s_columns() -> None:
    """The WooCommerce count is only a check where it finds the columns: each column the product's reader
    reads for the count (type, published, parent, ID, SKU) in a WooCommerce file of the corpus, the oracle's
    own names (WOO_NAMES) find too. The reader's detection is asked only which header cells hold those
    columns; what they are called comes from WOO_NAMES alone."""
    from agent.catalog import headers

    roles = {"wc_type": "type", "published": "published", "parent": "parent", "product_id": "id", "sku": "sku"}
    missed = {}
    for path in corpus_files():
        ind = independent(path)
        if ind.kind != "woocommerce":
            continue
        det = headers.detect(ind.header)
        for role, name in roles.items():
            if role in det.roles and col(ind, *WOO_NAMES[name]) is None:
                missed.setdefault(path.name, []).append(det.roles[role])
    assert not missed, f"WOO_NAMES lacks these header names: {missed}"
