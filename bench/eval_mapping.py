"""Evaluate the taxonomy mapping on real merchant labels (issue 10 item 3).

Every product in the corpus whose row carries a category the merchant set — Merchant Center
`google_product_category`, Shopify `Product Category` (a Shopify Standard Product Taxonomy path, through
Shopify's published mapping) or Shopify's `Google Shopping / Google Product Category` — is a labelled
product. The label columns are removed from the file's bytes, the file is read by the product's own
readers (`read_table_bytes`, so the mapping sees exactly what it would see on an unlabelled export:
title, product type, own categories), and the result is compared with the label, per product:

* coverage: share of labelled products that got any mapping;
* precision at level 2: of the mapped ones, share whose first two taxonomy levels equal the label's
  (a label of one level compares one level);
* precision at leaf: of the mapped ones, share whose id equals the label's id exactly;
* on path (for reading the leaf figure): of the mapped ones, share on the label's own path — equal,
  or one an ancestor of the other (a merchant who labels only "Apparel & Accessories" and gets
  "Clothing > Swimwear" is on path, not exact).

The shops are split into two fixed halves by a hash of their name (`split_of`: "dev" and "held-out"),
so a rule can be developed on the dev half's misses (`--misses N --split dev`) and checked on shops
it was never looked at with; the figures are reported for both halves and for all.

Usage: `.venv/bin/python bench/eval_mapping.py [corpus folder, default tests/corpus] [--misses N] [--split dev]`
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent.catalog import categorise, taxonomy  # noqa: E402
from agent.catalog.categorise import resolve_google, resolve_shopify  # noqa: E402
from agent.catalog.evidence import KIND_ATTACHED  # noqa: E402
from agent.catalog.sources import read_table_bytes  # noqa: E402

GOOGLE_LABELS = (
    "google_product_category",
    "google product category",
    "google shopping / google product category",
    "g:google_product_category",
)
SHOPIFY_LABELS = ("product category",)
HANDLES = ("handle", "url handle")
SUFFIXES = (".csv", ".tsv", ".txt")
csv.field_size_limit(1 << 30)


@dataclass
class Outcome:
    shop: str
    label: int
    got: int | None
    title: str = ""
    product_type: str = ""
    category: str = ""  # the merchant's own category path, as read (bench/classify_misses.py reads it)
    sure: int = categorise.SURE_NONE  # how sure the mapping was (categorise.SURE_*): the curve cuts on it
    got_all: int | None = None  # the id had every grade been answered (categorise.ALL_GRADES): the curve's


@dataclass
class Figures:
    labelled: int = 0
    mapped: int = 0
    level2: int = 0
    leaf: int = 0
    on_path: int = 0
    misses: list[Outcome] = field(default_factory=list)
    unmapped: list[Outcome] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.labelled += 1
        if o.got is None:
            self.unmapped.append(o)
            return
        self.mapped += 1
        ok2, ok_leaf = same_level2(o.got, o.label), o.got == o.label
        self.level2 += ok2
        self.leaf += ok_leaf
        tax = taxonomy.load()
        self.on_path += tax.is_within(o.got, o.label) or tax.is_within(o.label, o.got)
        if not ok_leaf:
            self.misses.append(o)

    @property
    def coverage(self) -> float:
        return self.mapped / self.labelled if self.labelled else 0.0

    @property
    def precision2(self) -> float:
        return self.level2 / self.mapped if self.mapped else 0.0

    @property
    def precision_leaf(self) -> float:
        return self.leaf / self.mapped if self.mapped else 0.0

    @property
    def precision_path(self) -> float:
        return self.on_path / self.mapped if self.mapped else 0.0


def level2(cid: int) -> str:
    return " > ".join(taxonomy.load().node(cid).path.split(" > ")[:2])


def same_level2(got: int, label: int) -> bool:
    tax = taxonomy.load()
    a, b = tax.node(got).path.split(" > "), tax.node(label).path.split(" > ")
    depth = min(2, len(b))
    return a[:depth] == b[:depth]


def _decode(data: bytes) -> str:
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _rows(text: str) -> list[list[str]]:
    first = text.split("\n", 1)[0]
    delim = "\t" if first.count("\t") > first.count(",") else ";" if first.count(";") > first.count(",") else ","
    return [r for r in csv.reader(io.StringIO(text), delimiter=delim) if any(c.strip() for c in r)], delim


def labels_and_hidden(data: bytes) -> tuple[dict[int, int], bytes] | None:
    """({1-based data row: label id}, the file's bytes without its label columns), or None when the
    file has no label column."""
    rows, delim = _rows(_decode(data))
    if not rows:
        return None
    header = [h.strip().lower() for h in rows[0]]
    gcols = [i for i, h in enumerate(header) if h in GOOGLE_LABELS]
    scols = [i for i, h in enumerate(header) if h in SHOPIFY_LABELS]
    if not gcols and not scols:
        return None
    hcol = next((i for i, h in enumerate(header) if h in HANDLES), None)
    labels: dict[int, int] = {}
    last_handle, carried = None, (None, None)
    for k, row in enumerate(rows[1:], start=1):
        cell = lambda cols: next((row[i].strip() for i in cols if i < len(row) and row[i].strip()), None)  # noqa: E731
        g, s = cell(gcols), cell(scols)
        if hcol is not None:  # Shopify: product fields sit on a handle's first row
            handle = row[hcol].strip() if hcol < len(row) else ""
            if handle and handle == last_handle and g is None and s is None:
                g, s = carried
            elif handle != last_handle:
                last_handle, carried = handle, (g, s)
        label = None
        if g:
            got = resolve_google(g)
            label = got[0] if got else None
        if label is None and s:
            label = resolve_shopify(s)
        if label is not None:
            labels[k] = label
    drop = set(gcols) | set(scols)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delim, lineterminator="\n")
    for row in rows:
        writer.writerow([c for i, c in enumerate(row) if i not in drop])
    return labels, out.getvalue().encode("utf-8")


def evaluate_file(path: Path) -> list[Outcome]:
    data = path.read_bytes()
    got = labels_and_hidden(data)
    if got is None or not got[0]:
        return []
    labels, hidden = got
    table, _ = read_table_bytes(hidden, path.name, KIND_ATTACHED)
    every, sure = _grades(table)
    cols = table.select(
        ["row_number", "product_key", "google_category_id", "title", "product_type", "category_path"]
    ).to_pydict()
    seen: set[int] = set()
    out = []
    for k, (rn, key, cid, title, ptype, cat) in enumerate(zip(*cols.values())):
        if key in seen or rn not in labels:
            continue
        seen.add(key)
        got_all = int(every[k]) if every[k] >= 0 else None
        out.append(Outcome(path.stem, labels[rn], cid, title or "", ptype or "", cat or "", int(sure[k]), got_all))
    return out


def _grades(table):
    """Each row's sureness grade, from the mapping run again on the canonical columns the reader
    mapped (the label columns are gone, so no Google column): the same ids, asserted, plus the grade."""
    import numpy as np
    import pyarrow.compute as pc

    vehicle = pc.equal(table["category_mapping"].cast("string"), "vehicle_listing")
    args = (table.num_rows, None, table["category_path"], table["product_type"], table["title"])
    ids, _, _ = categorise.placements(*args, brand=table["brand"], vehicle=vehicle)
    read = table["google_category_id"].fill_null(-1).to_numpy()
    if not np.array_equal(ids, read):  # the curve would describe another mapping than the figures
        raise AssertionError(f"{table.num_rows} rows: the mapping run again differs from the reader's")
    every, _, sure = categorise.placements(*args, brand=table["brand"], vehicle=vehicle, answer=categorise.ALL_GRADES)
    return every, sure


def corpus_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)


DEV, HELD_OUT = "dev", "held-out"


def split_of(shop: str) -> str:
    """The fixed half a shop ("folder/stem") belongs to: the parity of its name's SHA-1. Fixed once,
    before any rule was developed on it; never chosen by looking at the figures."""
    return DEV if int(hashlib.sha1(shop.encode()).hexdigest(), 16) % 2 == 0 else HELD_OUT


def evaluate(folder: Path) -> tuple[Figures, dict[str, Figures]]:
    total, per_shop = Figures(), defaultdict(Figures)
    for path in corpus_files(folder):
        for o in evaluate_file(path):
            total.add(o)
            per_shop[f"{path.parent.name}/{path.stem}"].add(o)
    return total, dict(per_shop)


def by_split(folder: Path) -> dict[str, Figures]:
    """{"dev", "held-out", "all"}: the figures of each half and of the whole corpus."""
    out = {DEV: Figures(), HELD_OUT: Figures(), "all": Figures()}
    for path in corpus_files(folder):
        half = split_of(f"{path.parent.name}/{path.stem}")
        for o in evaluate_file(path):
            out[half].add(o)
            out["all"].add(o)
    return out


CURVE_STEPS = (
    (categorise.SURE_LABEL, "a category the merchant wrote"),
    (categorise.SURE_LISTING, "+ vehicle listings"),
    (categorise.SURE_TYPE_NAME, "+ type / category matching a taxonomy name of several words"),
    (categorise.SURE_TYPE, "+ bare noun of the merchant's type / category"),
    (categorise.SURE_TITLE_NAME, "+ title alone matching a taxonomy name of several words"),
    (categorise.SURE_TITLE, "+ bare noun of the title alone"),
    (categorise.SURE_BRANCH, "+ read inside the shop's own branch"),
    (categorise.SURE_GROUP, "+ like the rest of its own category"),
)


def curve(outcomes: list[Outcome]) -> list[tuple[int, str, Figures]]:
    """The precision/coverage trade-off: for each sureness grade, the figures if the mapper answered
    only at that grade or surer (the rest counted as unmapped)."""
    out = []
    for grade, what in CURVE_STEPS:
        f = Figures()
        for o in outcomes:
            f.add(Outcome(o.shop, o.label, o.got_all if o.sure <= grade else None))
        out.append((grade, what, f))
    return out


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a share k/n (what a figure from n products can claim)."""
    if not n:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def dev_ranked(dev: list[Outcome]) -> list[int]:
    """The sureness grades ordered by their level-2 precision on the dev half only (the held-out
    half then says whether the order holds): a grade with no dev product keeps its place when it is
    the merchant's own category or a vehicle listing, else goes last."""
    right: dict[int, int] = defaultdict(int)
    seen: dict[int, int] = defaultdict(int)
    for o in dev:
        if o.got_all is not None:
            seen[o.sure] += 1
            right[o.sure] += same_level2(o.got_all, o.label)
    grades = [g for g, _ in CURVE_STEPS]
    return sorted(
        grades,
        key=lambda g: (
            0 if not seen[g] and g <= categorise.SURE_LISTING else 2 if not seen[g] else 1,
            -(right[g] / seen[g]) if seen[g] else g,
        ),
    )


def curve_in_order(outcomes: list[Outcome], order: list[int]) -> list[tuple[int, Figures]]:
    """Cumulative figures answering at the first 1, 2, … grades of `order` (the rest unmapped)."""
    out = []
    for k in range(1, len(order) + 1):
        keep = set(order[:k])
        f = Figures()
        for o in outcomes:
            f.add(Outcome(o.shop, o.label, o.got_all if o.sure in keep else None))
        out.append((order[k - 1], f))
    return out


def _row(name: str, f: Figures) -> str:
    return (
        f"| {name} | {f.labelled} | {f.mapped} | {f.coverage:.1%} | {f.precision2:.1%} | {f.precision_leaf:.1%} "
        f"| {f.precision_path:.1%} |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("corpus", nargs="?", default=str(ROOT / "tests" / "corpus"))
    ap.add_argument("--misses", type=int, default=0, help="print this many wrong leaf mappings")
    ap.add_argument("--split", choices=(DEV, HELD_OUT), help="print misses of this half only")
    ap.add_argument("--unmapped", type=int, default=0, help="print this many unmapped products")
    ap.add_argument("--curve", action="store_true", help="print the precision/coverage trade-off by sureness")
    args = ap.parse_args(argv)
    total, per_shop = evaluate(Path(args.corpus))
    print("| shop | half | labelled | mapped | coverage | precision L2 | precision leaf | on label's path |")
    print("|---|---|---|---|---|---|---|---|")
    halves = {DEV: Figures(), HELD_OUT: Figures()}
    for name in sorted(per_shop):
        print(_row(f"{name} | {split_of(name)}", per_shop[name]))
    for path in corpus_files(Path(args.corpus)):
        name = f"{path.parent.name}/{path.stem}"
        if name in per_shop:
            half = halves[split_of(name)]
            for k in ("labelled", "mapped", "level2", "leaf", "on_path"):
                setattr(half, k, getattr(half, k) + getattr(per_shop[name], k))
            half.misses += per_shop[name].misses
            half.unmapped += per_shop[name].unmapped
    for h in (DEV, HELD_OUT):
        n = sum(1 for name in per_shop if split_of(name) == h)
        print(_row(f"**{h} ({n} shops)** | {h}", halves[h]))
    print(_row(f"**all ({len(per_shop)} shops)** | all", total))
    if args.curve:
        outcomes = {DEV: [], HELD_OUT: [], "all": []}
        for path in corpus_files(Path(args.corpus)):
            name = f"{path.parent.name}/{path.stem}"
            got = evaluate_file(path)
            outcomes[split_of(name)] += got
            outcomes["all"] += got
        print("\n| answers at sureness | half | mapped | coverage | precision L2 | precision leaf |")
        print("|---|---|---|---|---|---|")
        for h in ("all", DEV, HELD_OUT):
            for grade, what, f in curve(outcomes[h]):
                print(
                    f"| {grade} {what} | {h} | {f.mapped} | {f.coverage:.1%} | {f.precision2:.1%} "
                    f"| {f.precision_leaf:.1%} |"
                )
        order = dev_ranked(outcomes[DEV])
        names = dict(CURVE_STEPS)
        print(f"\nGrades in the order of their level-2 precision on the dev half: {order}")
        print("| answers at | half | mapped | coverage | precision L2 (95 % Wilson) | precision leaf |")
        print("|---|---|---|---|---|---|")
        for h in ("all", DEV, HELD_OUT):
            for grade, f in curve_in_order(outcomes[h], order):
                lo, hi = wilson(f.level2, f.mapped)
                print(
                    f"| + {grade} {names[grade].lstrip('+ ')} | {h} | {f.mapped} | {f.coverage:.1%} "
                    f"| {f.precision2:.1%} ({lo:.1%}–{hi:.1%}) | {f.precision_leaf:.1%} |"
                )
    tax = taxonomy.load()
    chosen = halves[args.split] if args.split else total
    for o in chosen.unmapped[: args.unmapped]:
        print(f"UNMAPPED {o.shop}: {o.title[:60]!r} type={o.product_type[:30]!r}\n   label {tax.node(o.label).path}")
    for o in chosen.misses[: args.misses]:
        print(
            f"{o.shop}: {o.title[:60]!r} type={o.product_type[:30]!r}\n   label {tax.node(o.label).path}\n   got   {tax.node(o.got).path}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
