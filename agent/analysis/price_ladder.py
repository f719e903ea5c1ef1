"""price_ladder — "Do I have entry-level and premium options in outdoor chairs?"

Per category, on each product's "from" price (its lowest positive variant price): P10/P25/P50/P75/P90;
good/better/best tiers cut at the tertiles of the reference catalog's same category when there is one,
else at the category's own tertiles; empty tiers; the largest step between adjacent price points
(flagged above STEP_RATIO×, the "hole" in a ladder); no entry price point (own cheapest above the
reference's P25); the share of products discounted through a compare-at price, and the average depth.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult

SKILL_ID = "price_ladder"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = ("product_key", "google_category_id", "category_path", "price", "compare_at_price", "currency")
STEP_RATIO = 2.0  # adjacent price points further apart than this are a hole in the ladder
MIN_TIER_PRODUCTS = 3  # fewer priced products than this: no tiers computed
QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
TERTILES = (1 / 3, 2 / 3)

COLUMNS = (
    ("Category", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Priced", "count", pa.int64()),  # products with a positive price: the quantiles' population
    ("P10", "money", pa.float64()),
    ("P25", "money", pa.float64()),
    ("Median", "money", pa.float64()),
    ("P75", "money", pa.float64()),
    ("P90", "money", pa.float64()),
    ("Good", "count", pa.int64()),
    ("Better", "count", pa.int64()),
    ("Best", "count", pa.int64()),
    ("Largest step from", "money", pa.float64()),
    ("Largest step to", "money", pa.float64()),
    ("Step", "ratio", pa.float64()),
    ("On sale", "percent", pa.float64()),
    ("Average discount", "percent", pa.float64()),
)
REF_COLUMNS = (("Reference P25", "money", pa.float64()), ("Reference P75", "money", pa.float64()))


def _products(table: pa.Table, labels: pa.DictionaryArray) -> pa.Table:
    """One row per product: category index, from-price, on-sale flag and discount depth."""
    price = common.positive_price(table)
    cap = table["compare_at_price"]
    on_sale = pc.fill_null(pc.greater(cap, price), False)
    depth = pc.if_else(on_sale, pc.multiply(pc.divide(pc.subtract(cap, price), cap), 100.0), pa.scalar(None, pa.float64()))
    return common.per_product(table["product_key"], [("ci", labels.indices, "min"), ("price", price, "min"),
                                                     ("sale", pc.cast(on_sale, pa.int64()), "max"), ("depth", depth, "max")])


def _largest_steps(ci: np.ndarray, price: np.ndarray) -> dict[int, tuple[float, float, float]]:
    """Per category: (from, to, ratio) of the largest step between adjacent price points.

    Sorted by category then price (price argsort, then a stable radix sort on the small category
    index), ratios of neighbours, and the first largest ratio per category by reduceat: no Python loop
    over products.
    """
    ok = ~np.isnan(price)
    ci, price = ci[ok], price[ok]
    if len(ci) < 2:
        return {}
    by_price = np.argsort(price, kind="stable")
    cat = ci[by_price]
    cat_key = cat.astype(np.int16) if cat.max() < 32767 and cat.min() >= 0 else cat
    order = by_price[np.argsort(cat_key, kind="stable")]
    ci, price = ci[order], price[order]
    same = ci[1:] == ci[:-1]
    ratio = np.where(same & (price[:-1] > 0), price[1:] / np.where(price[:-1] > 0, price[:-1], 1), 0.0)
    pair_cat = ci[:-1]
    starts = np.flatnonzero(np.concatenate(([True], pair_cat[1:] != pair_cat[:-1])))
    best = np.maximum.reduceat(ratio, starts)
    group = np.repeat(np.arange(len(starts)), np.diff(np.concatenate((starts, [len(ratio)]))))
    hits = np.flatnonzero(ratio == best[group])
    first = hits[np.concatenate(([True], group[hits][1:] != group[hits][:-1]))]
    out: dict[int, tuple[float, float, float]] = {}
    for idx in first.tolist():
        if same[idx] and ratio[idx] > 0:
            out[int(ci[idx])] = (float(price[idx]), float(price[idx + 1]), float(ratio[idx]))
    return out


def _tier_counts(ci: np.ndarray, price: np.ndarray, cuts: dict[int, tuple[float, float]]) -> dict[int, tuple[int, int, int]]:
    """Good/better/best counts per category, vectorised: each product looks up its category's cuts."""
    if not cuts:
        return {}
    size = int(max(int(ci.max()) if len(ci) else 0, max(cuts)) + 1)
    t1 = np.full(size, np.nan)
    t2 = np.full(size, np.nan)
    for c, (a, b) in cuts.items():
        t1[c], t2[c] = a, b
    ok = ~np.isnan(price) & ~np.isnan(t1[ci])
    c_ok, p_ok = ci[ok], price[ok]
    tier = np.where(p_ok < t1[c_ok], 0, np.where(p_ok < t2[c_ok], 1, 2))
    counts = np.zeros((size, 3), dtype=np.int64)
    np.add.at(counts, (c_ok, tier), 1)
    return {c: tuple(int(x) for x in counts[c]) for c in cuts}


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    pop = common.population(inp.own, scope, tax, READ)
    t = pop.table
    rows: list[dict] = []
    ref_q: dict[str, list[float]] = {}
    with_ref = inp.reference is not None
    if with_ref:
        rp = common.population(inp.reference, scope, tax, READ).table
        if rp.num_rows:
            rl = common.category_labels(rp, scope, tax)
            rprod = _products(rp, rl)
            rq = common.group_quantiles(rprod["ci_min"], rprod["price_min"], (0.25, TERTILES[0], TERTILES[1], 0.75))
            names = rl.dictionary.to_pylist()
            ref_q = {names[k]: v for k, v in rq.items()}
    if t.num_rows:
        labels = common.category_labels(t, scope, tax)
        names = labels.dictionary.to_pylist()
        prod = _products(t, labels)
        ci = prod["ci_min"].to_numpy(zero_copy_only=False).astype(np.int64)
        price = prod["price_min"].to_numpy(zero_copy_only=False).astype(np.float64)
        quant = common.group_quantiles(ci, price, QUANTILES + TERTILES + (0.0,))
        steps = _largest_steps(ci, price)
        counts = prod.group_by("ci_min").aggregate([("pk", "count"), ("price_min", "count"), ("sale_max", "sum"), ("depth_max", "mean")])
        cuts = {}
        for d in counts.to_pylist():
            c = d["ci_min"]
            if d["price_min_count"] >= MIN_TIER_PRODUCTS:
                rq = ref_q.get(names[c])
                cuts[c] = (rq[1], rq[2]) if rq else tuple(quant[c][5:7])
        tiers = _tier_counts(ci, price, cuts)
        for d in counts.to_pylist():
            c = d["ci_min"]
            q = quant.get(c, [None] * 8)
            st = steps.get(c)
            tr = tiers.get(c)
            row = {"Category": names[c], "Products": d["pk_count"], "Priced": d["price_min_count"],
                   "P10": common.money(q[0]), "P25": common.money(q[1]), "Median": common.money(q[2]),
                   "P75": common.money(q[3]), "P90": common.money(q[4]),
                   "Good": tr[0] if tr else None, "Better": tr[1] if tr else None, "Best": tr[2] if tr else None,
                   "Largest step from": common.money(st[0]) if st else None, "Largest step to": common.money(st[1]) if st else None,
                   "Step": round(st[2], 1) if st else None,
                   "On sale": common.pct(d["sale_max_sum"], d["pk_count"]),
                   "Average discount": round(d["depth_max_mean"], 1) if d["depth_max_mean"] is not None else None,
                   "_min": q[7]}
            if with_ref:
                rq = ref_q.get(names[c])
                row["Reference P25"] = common.money(rq[0]) if rq else None
                row["Reference P75"] = common.money(rq[3]) if rq else None
            rows.append(row)

        def flags(r: dict) -> int:
            s = 0
            if r["Step"] is not None and r["Step"] > STEP_RATIO:
                s += 4
            if r["Good"] is not None and 0 in (r["Good"], r["Better"], r["Best"]):
                s += 2
            if with_ref and r.get("Reference P25") is not None and r["_min"] is not None and r["_min"] > r["Reference P25"]:
                s += 3
            return s

        rows.sort(key=lambda r: (-flags(r), -r["Products"], r["Category"]))
        allp = price[~np.isnan(price)]
        tq = [float(np.quantile(allp, q)) for q in QUANTILES] if len(allp) else [None] * 5
        n_products = prod.num_rows
        sale_n = int(pc.sum(prod["sale_max"]).as_py() or 0)
        depth_mean = pc.mean(prod["depth_max"]).as_py()
        total = {"Category": common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)"), "Products": n_products,
                 "Priced": int(len(allp)),
                 "P10": common.money(tq[0]), "P25": common.money(tq[1]), "Median": common.money(tq[2]),
                 "P75": common.money(tq[3]), "P90": common.money(tq[4]), "On sale": common.pct(sale_n, n_products),
                 "Average discount": round(depth_mean, 1) if depth_mean is not None else None}
        rows.insert(0, total)
    table = common.records_table(COLUMNS + (REF_COLUMNS if with_ref else ()), rows, pop.excluded)
    return SkillResult(
        skill=SKILL_ID, scope=scope, table=table, findings=_findings(rows, with_ref, pop.excluded),
        missing="reference" if scope.wants_reference and not with_ref else None,  # "compared with competitors"
        thresholds={"step_ratio": STEP_RATIO, "min_tier_products": MIN_TIER_PRODUCTS,
                    "tiers": "reference tertiles per category" if with_ref else "own tertiles per category",
                    "price": "lowest positive variant price per product"},
        currency=common.single_currency(t), chart=("Category", "Median"),
        taxonomy_note=common.taxonomy_note(scope, tax),
        notes=["Good, better and best are cut at the reference catalog's price tertiles in the same category."] if with_ref else [],
    )


def _findings(rows: list[dict], with_ref: bool, excluded: dict[str, int]) -> list[Finding]:
    if not rows:
        return [Finding("ladder.empty", {}, severity=10)]
    f: list[Finding] = []
    total = rows[0]
    if total["Median"] is not None:
        # the quantiles are over priced products only: a product at 0.00 or with no price is said, not hidden
        f.append(Finding("ladder.summary", {"p10_price": total["P10"], "median_price": total["Median"], "p90_price": total["P90"],
                                            "products_n": total["Priced"], "all_n": total["Products"]},
                         cells=((0, "P10"), (0, "Median"), (0, "P90"), (0, "Priced"), (0, "Products")), severity=3))
    visible = list(enumerate(rows))[1:20]
    steps = [(i, r) for i, r in visible if r["Step"] is not None and r["Step"] > STEP_RATIO][:3]
    if steps:
        items = [{"name": r["Category"], "from_price": r["Largest step from"], "to_price": r["Largest step to"], "step_x": r["Step"]}
                 for _, r in steps]
        f.append(Finding("ladder.steps", {"items": items, "ratio": STEP_RATIO},
                         cells=tuple((i, c) for i, _ in steps for c in ("Largest step from", "Largest step to", "Step")), severity=8))
    empty = [(i, r) for i, r in visible if r.get("Good") is not None and 0 in (r["Good"], r["Better"], r["Best"])][:3]
    if empty:
        items = [{"name": r["Category"], "tiers": ", ".join(t.lower() for t in ("Good", "Better", "Best") if r[t] == 0)} for _, r in empty]
        f.append(Finding("ladder.empty_tiers", {"items": items},
                         cells=tuple((i, t) for i, r in empty for t in ("Good", "Better", "Best")), severity=7))
    if with_ref:
        no_entry = [(i, r) for i, r in visible if r.get("Reference P25") is not None and r.get("_min") is not None
                    and r["_min"] > r["Reference P25"] and r["P10"] is not None][:3]
        if no_entry:
            items = [{"name": r["Category"], "p10_price": r["P10"], "ref_p25_price": r["Reference P25"]} for _, r in no_entry]
            f.append(Finding("ladder.no_entry", {"items": items},
                             cells=tuple((i, c) for i, _ in no_entry for c in ("P10", "Reference P25")), severity=6))
    untiered = [r["Category"] for _, r in visible if r.get("Good") is None][:5]
    if untiered:
        f.append(Finding("ladder.untiered", {"names": untiered, "min": MIN_TIER_PRODUCTS}, severity=2))
    if total.get("On sale"):
        f.append(Finding("ladder.discount", {"sale_pct": total["On sale"], "depth_pct": total["Average discount"]},
                         cells=((0, "On sale"), (0, "Average discount")), severity=4))
    ex = common.excluded_finding(excluded, rows)
    if ex:
        f.append(ex)
    f.sort(key=lambda x: -x.severity)
    return f[:7]
