"""Why the mapping misses: every remaining miss and unmapped product of the evaluation, classified by
mechanical rules a reviewer can check row by row, and the ceiling a perfect mapper could reach.

The population is what `eval_mapping.py` leaves: products it did not map, and products it mapped to
another id than the merchant's label. Each gets the first class whose rule holds:

1. `coarse_label` — mapped, and the prediction lies strictly inside the label ("Apparel &
   Accessories" labelled, "Clothing > Swimwear" predicted): the merchant stopped higher than the
   product; right at level 2 when the label has two levels, wrong at leaf however good the mapper.
2. `label_wrong` — the merchant's own product type or own category reads confidently (the name
   matcher, no shop context) to a place outside the label's level-2 branch, neither it nor the
   title's noun reads confidently inside it, and *no* word of the title, type or own category is the
   noun of any taxonomy name inside that branch: the merchant's own fields say another product than
   the label ("Black Forest Cake" typed, Gift Cards labelled). Conservative: a title alone never
   judges a label (its noun may be a model name, "Bailey Autograph"), nor do words the taxonomy does
   not know, so this under-counts wrong labels (the ceiling below is then an upper bound).
3. `reachable` (our error) — some word of the title's first segment, the type or the own category is
   the noun of a Google or Shopify name (or first/last word of a localised Google name) inside the
   label's level-2 branch: the taxonomy's own vocabulary could reach the label. An upper bound of
   what a better mapper could get (a word being there does not mean it decides).
4. `no_noun` — no product type, no own category, and no title word that is the noun of any taxonomy
   name: nothing to read ("Men's Must Have").
5. `taxonomy_lacks` — the rest: the product has words (a type, a category, title nouns) but none names
   a place in the label's branch ("Ear hoop" earrings, "Grillz", "Inflatable").

"Label branch" is the label's first two levels (its only level for a one-level label), as in the
evaluation's level-2 precision.

Outputs the counts per class on both halves, the ceiling (a perfect mapper maps everything but
`no_noun` and `taxonomy_lacks`, and is still scored wrong on `label_wrong`, and at leaf on
`coarse_label`), the precision of today's mapping on products whose label is not judged wrong by rule
2, and, with `--sample N --csv PATH`, a fixed seeded sample of the population for hand review.

The committed sample `bench/mapping_miss_sample.csv` carries, beside each row's rule class, a
hand-reviewed class and a note (`reviewed_class`, `review_note`); `--reviewed` reads it and gives the
ceiling by the review, with how often the rules agreed with it. The sample is the N misses with the
smallest SHA-1 of (seed, shop, title, type, label): stable while the products stay misses.

Usage: `.venv/bin/python bench/classify_misses.py [--sample 200 --seed 10 --csv PATH] [--reviewed bench/mapping_miss_sample.csv]`
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from eval_mapping import DEV, HELD_OUT, corpus_files, evaluate_file, same_level2, split_of, wilson  # noqa: E402

from agent.catalog import namematch, nouns, taxonomy  # noqa: E402

CLASSES = ("coarse_label", "label_wrong", "reachable", "no_noun", "taxonomy_lacks")


def branch(cid: int) -> int:
    """The label's level-2 place (its level-1 place for a one-level label)."""
    tax = taxonomy.load()
    levels = tax.node(cid).path.split(taxonomy.SEPARATOR)
    return tax.id_for_path(taxonomy.SEPARATOR.join(levels[:2]))


def _inside(cid: int, root: int) -> bool:
    return cid == root or taxonomy.load().is_within(cid, root)


def field_words(o) -> tuple[list[str], list[str]]:
    """(English stems, localised stems) of the title's first segment, the type and the own category."""
    texts = [nouns.title_phrase(o.title), o.product_type, o.category.replace(">", " ")]
    eng = [w for t in texts if t for w in namematch.words(t)]
    loc = [w for t in texts if t for w in namematch.local_words(t)]
    return eng, loc


def names_in(words_: list[str], local: list[str], root: int) -> bool:
    """Whether a word is the noun of a taxonomy name inside `root` (English last word; localised
    first or last word)."""
    idx = namematch.index()
    for w in words_:
        if any(_inside(e.google_id, root) for e in idx.entries(w)):
            return True
    for w in local:
        if any((e.tokens[0] == w or e.tokens[-1] == w) and _inside(e.google_id, root) for e in idx.local_entries(w)):
            return True
    return False


def any_noun(words_: list[str]) -> bool:
    idx = namematch.index()
    return any(idx.is_head(w) for w in words_)


def label_contradicted(o) -> bool:
    """Rule 2: the merchant's own product type or own category (its last level) reads confidently
    outside the label's branch, no field reads confidently inside it, and no field word names a place
    inside it: the merchant's own fields contradict the label ("Black Forest Cake" typed, "Gift Cards"
    labelled). A title alone never judges a label: its noun may be a model name ("Bailey Autograph")."""
    root = branch(o.label)
    leaf = o.category.split(">")[-1].strip() if o.category else None
    readings = [namematch.match(p) for p in (o.product_type, leaf) if p]
    head = nouns.title_head(o.title)
    if head:
        readings.append(namematch.match(head, frozenset(), True))
    sure = [m for m in readings if m is not None and m.confident]
    if not any(m is not None and m.confident for m in readings[: len(readings) - bool(head)]):
        return False
    if any(_inside(m.google_id, root) for m in sure):
        return False
    eng, loc = field_words(o)
    return not names_in(eng, loc, root)


def classify(o) -> str:
    tax = taxonomy.load()
    if o.got is not None and o.got != o.label and tax.is_within(o.got, o.label):
        return "coarse_label"
    if label_contradicted(o):
        return "label_wrong"
    eng, loc = field_words(o)
    if names_in(eng, loc, branch(o.label)):
        return "reachable"
    if not o.product_type and not o.category and not any_noun(eng):
        return "no_noun"
    return "taxonomy_lacks"


def _sample_key(seed: int, row) -> str:
    """A row's place in the seeded sample: the SHA-1 of the seed and what identifies the product, so a
    product stays in the sample while it stays a miss (a later mapping change only swaps the rows it
    fixed for the next ones, and the hand review of the others still holds)."""
    shop, _, o, _ = row
    return hashlib.sha1(f"{seed}\t{shop}\t{o.title}\t{o.product_type}\t{o.label}".encode()).hexdigest()


BOOTSTRAP = 2000


def _ceiling(share: Counter, size: int, n: int, pop: int) -> tuple[float, float, float]:
    """(coverage, L2, leaf) of a perfect non-guessing mapper, the classes' shares of the reviewed
    sample spread over the population (`pop` misses + unmapped of `n` labelled products)."""
    est = {c: share[c] / size * pop for c in CLASSES}
    reach = n - est["no_noun"] - est["taxonomy_lacks"]
    if reach <= 0:
        return 0.0, 0.0, 0.0
    return (
        reach / n,
        (reach - est["label_wrong"]) / reach,
        (reach - est["label_wrong"] - est["coarse_label"]) / reach,
    )


def _reviewed(path: Path, rows: list) -> None:
    """The ceiling read from a hand-reviewed sample: each class's share of the sample, spread over the
    whole population (misses + unmapped of all shops), and how often the rules agreed with the review."""
    with open(path, newline="", encoding="utf-8") as f:
        sample = list(csv.DictReader(f))
    n = len(rows)
    pop = sum(1 for r in rows if r[3] is not None)
    mapped = sum(1 for r in rows if r[2].got is not None)
    right2 = sum(same_level2(r[2].got, r[2].label) for r in rows if r[2].got is not None)
    share = Counter(r["reviewed_class"] for r in sample)
    est = {c: share[c] / len(sample) * pop for c in CLASSES}
    agree = sum(r["rule_class"] == r["reviewed_class"] for r in sample)
    lows = {c: wilson(share[c], len(sample)) for c in CLASSES}
    print(
        f"## reviewed sample {path.name}: {len(sample)} rows, rules agree with the review on {agree} "
        f"({agree / len(sample):.0%})"
    )
    for c in CLASSES:
        lo, hi = lows[c]
        print(
            f"   {c:15s} {share[c]:4d} in sample ({share[c] / len(sample):.1%}, 95 % Wilson {lo:.1%}–{hi:.1%})"
            f"  ~{est[c]:6.0f} of the {pop} misses + unmapped"
        )
    point = _ceiling(share, len(sample), n, pop)
    print(f"   ceiling: coverage {point[0]:.1%}, L2 {point[1]:.1%}, leaf {point[2]:.1%}")
    # the ceiling's uncertainty from the sample's size: the sample's rows drawn again with
    # replacement (a fixed seed, so the figures repeat), the ceiling of each draw, its 2.5/97.5 % points
    rng = random.Random(10)
    draws = []
    for _ in range(BOOTSTRAP):
        again = Counter(rng.choice(sample)["reviewed_class"] for _ in sample)
        draws.append(_ceiling(again, len(sample), n, pop))
    for k, what in enumerate(("coverage", "L2", "leaf")):
        vals = sorted(d[k] for d in draws)
        lo, hi = vals[int(0.025 * len(vals))], vals[int(0.975 * len(vals)) - 1]
        print(f"   ceiling {what}: {point[k]:.1%}, 95 % bootstrap interval {lo:.1%}–{hi:.1%} ({BOOTSTRAP} draws)")
    # today's mapped products without the wrong labels the review finds among the mis-mapped ones
    wrong_mapped = sum(1 for r in sample if r["reviewed_class"] == "label_wrong" and r["prediction"])
    mis = sum(1 for r in sample if r["prediction"])
    est_wrong = (
        wrong_mapped / mis * (mapped - sum(r[2].got == r[2].label for r in rows if r[2].got is not None)) if mis else 0
    )
    print(f"   today on labels not judged wrong (review, extrapolated): L2 {right2 / (mapped - est_wrong):.1%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("corpus", nargs="?", default=str(ROOT / "tests" / "corpus"))
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--csv", help="write the sample here")
    ap.add_argument("--reviewed", help="a hand-reviewed sample (bench/mapping_miss_sample.csv): its ceiling")
    args = ap.parse_args(argv)
    tax = taxonomy.load()
    rows = []  # (shop, half, outcome, class or None for a right leaf)
    for path in corpus_files(Path(args.corpus)):
        shop = f"{path.parent.name}/{path.stem}"
        for o in evaluate_file(path):
            cls = None if o.got == o.label else classify(o)
            rows.append((shop, split_of(shop), o, cls))
    for half in (DEV, HELD_OUT, "all"):
        sel = [r for r in rows if half == "all" or r[1] == half]
        n = len(sel)
        pop = Counter(r[3] for r in sel if r[3] is not None)
        mapped = [r for r in sel if r[2].got is not None]
        right2 = sum(same_level2(r[2].got, r[2].label) for r in mapped)
        # ceiling: a perfect mapper places all but no_noun / taxonomy_lacks
        unplaceable = pop["no_noun"] + pop["taxonomy_lacks"]
        reach = n - unplaceable
        # label_wrong products would be mapped right and scored wrong; coarse ones are right at L2
        # exactly when the label has two levels or more (or one level, compared at one level)
        ceil2 = (reach - pop["label_wrong"]) / reach if reach else 0.0
        ceil_leaf = (reach - pop["label_wrong"] - pop["coarse_label"]) / reach if reach else 0.0
        # today's precision on products whose label rule 2 does not judge wrong
        trusted = [r for r in mapped if not label_contradicted(r[2])]
        t2 = sum(same_level2(r[2].got, r[2].label) for r in trusted)
        tleaf = sum(r[2].got == r[2].label for r in trusted)
        print(f"## {half}: {n} labelled, {len(mapped)} mapped, population (misses + unmapped) {sum(pop.values())}")
        for c in CLASSES:
            unm = sum(1 for r in sel if r[3] == c and r[2].got is None)
            print(f"   {c:15s} {pop[c]:5d}  ({unm} unmapped, {pop[c] - unm} mis-mapped)")
        print(f"   today: coverage {len(mapped) / n:.1%}, L2 {right2 / len(mapped):.1%}")
        print(f"   ceiling: coverage {reach / n:.1%}, L2 {ceil2:.1%}, leaf {ceil_leaf:.1%}")
        print(
            f"   today on labels not judged wrong: {len(trusted)} mapped, L2 {t2 / len(trusted):.1%}, "
            f"leaf {tleaf / len(trusted):.1%}"
        )
    if args.reviewed:
        _reviewed(Path(args.reviewed), rows)
    if args.sample:
        pop_rows = [r for r in rows if r[3] is not None]
        sample = sorted(pop_rows, key=lambda r: _sample_key(args.seed, r))[: args.sample]
        sample.sort(key=lambda r: (r[0], r[2].title))
        out = open(args.csv, "w", newline="", encoding="utf-8") if args.csv else sys.stdout
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["shop", "half", "title", "product_type", "own_category", "label", "prediction", "class"])
        for shop, half, o, cls in sample:
            w.writerow(
                [
                    shop,
                    half,
                    o.title[:120],
                    o.product_type,
                    o.category,
                    tax.node(o.label).path,
                    tax.node(o.got).path if o.got is not None else "",
                    cls,
                ]
            )
        if args.csv:
            out.close()
        print(f"sample of {len(sample)} (seed {args.seed}):", dict(Counter(r[3] for r in sample)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
