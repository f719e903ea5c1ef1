"""price_ladder — "Do I have entry-level and premium options in outdoor chairs?"

Per category, over its **priced variants** (variant rows priced above zero — the unit every price
figure of every skill uses, see common): P10/P25/P50/P75/P90; good/better/best tiers (counted in
priced variants) cut at the tertiles of the reference catalog's same category when there is one in the
same currency, else at the category's own tertiles; empty tiers; the largest step between adjacent
price points (flagged above STEP_RATIO×, the "hole" in a ladder); no entry price point (own cheapest
above the reference's P25); the share of priced variants on sale now (a current sale price, or a
compare-at price above the price: common.sales) and their average discount depth.

"Products" counts the products with at least one priced variant (in the row's currency); "Priced
variants" the variants every figure of the row is over.

Prices in several currencies are never pooled: each currency gets its own totals row and category rows
(a Currency column says which), and a reference is compared only in the same currency.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from agent.analysis import common
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult

SKILL_ID = "price_ladder"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = (
    "product_key",
    "google_category_id",
    "category_path",
    "product_type",
    "price",
    "compare_at_price",
    "sale_price",
    "sale_start",
    "sale_end",
    "currency",
    "snapshot_date",
)
STEP_RATIO = 2.0  # adjacent price points further apart than this are a hole in the ladder
MIN_TIER_PRODUCTS = 3  # fewer priced variants than this: no tiers computed
QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90)
TERTILES = (1 / 3, 2 / 3)

COLUMNS = (
    ("Category", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Priced variants", "count", pa.int64()),
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
CURRENCY_COLUMN = ("Currency", "currency", pa.string())
ZERO_COLUMN = ("Priced 0.00 or below (left out)", "count", pa.int64())
UNCHECKED_COLUMN = ("Scheduled sales not checked", "count", pa.int64())


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
    cents = np.rint(price * 100.0)
    span = int(cents.max() - cents.min()) + 1 if len(cents) else 1
    if np.array_equal(cents / 100.0, price) and span * (int(ci.max()) + 1) < 2**62:
        # prices in whole cents (the usual case): the distinct (category, price) points from one integer
        # sort, since a step is between adjacent distinct price points and repeats only add ratios of 1
        lo_c = int(cents.min())
        composite = ci.astype(np.int64) * span + (cents.astype(np.int64) - lo_c)
        composite.sort()
        keep = np.concatenate(([True], composite[1:] != composite[:-1]))
        composite = composite[keep]
        ci, price = composite // span, (composite % span + lo_c) / 100.0
    else:
        by_price = np.argsort(price, kind="stable")
        cat = ci[by_price]
        cat_key = cat.astype(np.int16) if cat.max() < 32767 and cat.min() >= 0 else cat
        order = by_price[np.argsort(cat_key, kind="stable")]
        ci, price = ci[order], price[order]
    if len(ci) < 2:
        return {}
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


def _tier_counts(
    ci: np.ndarray, price: np.ndarray, cuts: dict[int, tuple[float, float]]
) -> dict[int, tuple[int, int, int]]:
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
    return {c: (int(counts[c][0]), int(counts[c][1]), int(counts[c][2])) for c in cuts}


def _readable(table: pa.Table) -> list[str]:
    """READ without the sale-schedule columns a table stored before they existed lacks (a follow-up on
    an earlier attachment): such a table's sales are read as unscheduled."""
    return [c for c in READ if c in table.column_names]


def _partition(t: pa.Table, labels: pa.DictionaryArray, rows: np.ndarray, when) -> dict:
    """The priced variants of one currency as numpy arrays: category code, product key, price, sale."""
    ci = common.numpy_of(labels.indices).astype(np.int64)
    pk = common.numpy_of(t["product_key"]).astype(np.int64)
    price = common.numpy_of(t["price"]).astype(np.float64)
    sale = common.sales(t, when)
    return {
        "ci": ci[rows],
        "pk": pk[rows],
        "price": price[rows],
        "on_sale": sale.on_sale[rows],
        "depth": sale.depth[rows],
        "unchecked": int((sale.unchecked & rows).sum()),
    }


def _reference_quantiles(inp: SkillInput, currency: str | None) -> dict[str, list[float]]:
    """Per category name: P25, tertiles and P75 of the reference's priced variants in `currency`."""
    scope, tax = inp.scope, inp.taxonomy
    rp = common.population(inp.reference, scope, tax, _readable(inp.reference)).table
    if rp.num_rows == 0:
        return {}
    group = next((g for g in common.price_groups(rp) if g.currency == currency), None)
    if group is None:
        return {}
    rl = common.category_labels(rp, scope, tax)
    part = _partition(rp, rl, group.rows, common.as_of(rp))
    names = rl.dictionary.to_pylist()
    q = common.quantiles_by_code(part["ci"], len(names), part["price"], (0.25, TERTILES[0], TERTILES[1], 0.75))
    return {names[k]: [float(x) for x in q[k]] for k in range(len(names)) if not np.isnan(q[k, 0])}


def _rows_for(
    part: dict,
    names: list[str],
    ref_q: dict[str, list[float]] | None,
    currency: str | None,
    mixed: bool,
    total_label: str,
) -> tuple[dict, list[dict]]:
    """The totals row and the category rows of one currency's priced variants."""
    ci, pk, price = part["ci"], part["pk"], part["price"]
    n = len(names)
    quant = common.quantiles_by_code(ci, n, price, QUANTILES + TERTILES + (0.0,))
    steps = _largest_steps(ci, price)
    variants = np.bincount(ci, minlength=n)
    products = np.asarray(common.distinct_per_code(ci, pk, n)) if len(ci) else np.zeros(n, np.int64)
    on_sale = np.bincount(ci, weights=part["on_sale"].astype(np.float64), minlength=n)
    depth_ok = part["on_sale"] & ~np.isnan(part["depth"])
    depth_sum = np.bincount(ci[depth_ok], weights=part["depth"][depth_ok], minlength=n)
    depth_n = np.bincount(ci[depth_ok], minlength=n)
    cuts = {}
    for c in np.flatnonzero(variants >= MIN_TIER_PRODUCTS).tolist():
        rq = ref_q.get(names[c]) if ref_q else None
        cuts[c] = (rq[1], rq[2]) if rq else tuple(quant[c][5:7])
    tiers = _tier_counts(ci, price, cuts)
    rows = []
    for c in np.flatnonzero(variants > 0).tolist():
        q = [None if np.isnan(x) else float(x) for x in quant[c]]
        st = steps.get(c)
        tr = tiers.get(c)
        row = {
            "Category": names[c],
            "Products": int(products[c]),
            "Priced variants": int(variants[c]),
            "P10": common.money(q[0]),
            "P25": common.money(q[1]),
            "Median": common.money(q[2]),
            "P75": common.money(q[3]),
            "P90": common.money(q[4]),
            "Good": tr[0] if tr else None,
            "Better": tr[1] if tr else None,
            "Best": tr[2] if tr else None,
            "Largest step from": common.money(st[0]) if st else None,
            "Largest step to": common.money(st[1]) if st else None,
            "Step": round(st[2], 1) if st else None,
            "On sale": common.pct(on_sale[c], variants[c]),
            "Average discount": round(depth_sum[c] / depth_n[c], 1) if depth_n[c] else None,
            "_min": q[7],
            "_currency": currency,
        }
        if ref_q is not None:
            rq = ref_q.get(names[c])
            row["Reference P25"] = common.money(rq[0]) if rq else None
            row["Reference P75"] = common.money(rq[3]) if rq else None
        if mixed:
            row["Currency"] = currency
        rows.append(row)
    tq = [float(x) for x in np.quantile(price, list(QUANTILES))] if len(price) else [None] * 5
    ordered = len(pk) < 2 or bool(np.all(pk[1:] >= pk[:-1]))  # the catalog layer's layout: one pass
    n_products = (int(np.count_nonzero(pk[1:] != pk[:-1])) + 1 if len(pk) else 0) if ordered else len(np.unique(pk))
    total = {
        "Category": total_label,
        "Products": n_products,
        "Priced variants": len(price),
        "P10": common.money(tq[0]),
        "P25": common.money(tq[1]),
        "Median": common.money(tq[2]),
        "P75": common.money(tq[3]),
        "P90": common.money(tq[4]),
        "On sale": common.pct(int(part["on_sale"].sum()), len(price)),
        "Average discount": round(float(part["depth"][depth_ok].mean()), 1) if depth_ok.any() else None,
        "_currency": currency,
        "_total": True,
    }
    if mixed:
        total["Currency"] = currency
    return total, rows


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    pop = common.population(inp.own, scope, tax, _readable(inp.own))
    t = pop.table
    with_ref = inp.reference is not None
    totals: list[dict] = []
    rows: list[dict] = []
    groups = common.price_groups(t)
    mixed = len(groups) > 1
    counts = common.price_counts(t)
    unchecked = 0
    ref_currency_missing: list[str] = []
    if groups:
        labels = common.category_labels(t, scope, tax)
        names = labels.dictionary.to_pylist()
        when = common.as_of(t, inp.sources)
        label = common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)")
        for g in groups:
            part = _partition(t, labels, g.rows, when)
            unchecked += part["unchecked"]
            ref_q = _reference_quantiles(inp, g.currency) if with_ref else None
            if with_ref and not ref_q:
                ref_currency_missing.append(g.currency or "no currency")
            total, cat_rows = _rows_for(part, names, ref_q, g.currency, mixed, label)
            totals.append(total)
            rows.extend(cat_rows)

        def flags(r: dict) -> int:
            s = 0
            if r["Step"] is not None and r["Step"] > STEP_RATIO:
                s += 4
            if r["Good"] is not None and 0 in (r["Good"], r["Better"], r["Best"]):
                s += 2
            if (
                with_ref
                and r.get("Reference P25") is not None
                and r["_min"] is not None
                and r["_min"] > r["Reference P25"]
            ):
                s += 3
            return s

        rows.sort(key=lambda r: (-flags(r), -r["Priced variants"], r["Category"], r.get("Currency") or ""))
    ordered = totals + rows
    columns = COLUMNS + (REF_COLUMNS if with_ref else ())
    extra_zero = counts["zero_n"] + counts["negative_n"]
    if ordered and extra_zero:
        columns += (ZERO_COLUMN,)
        ordered[0][ZERO_COLUMN[0]] = extra_zero
    if ordered and unchecked:
        columns += (UNCHECKED_COLUMN,)
        ordered[0][UNCHECKED_COLUMN[0]] = unchecked
    if mixed:
        columns += (CURRENCY_COLUMN,)
    table = common.records_table(columns, ordered, pop.excluded)
    notes = []
    if with_ref and ref_currency_missing and ordered:
        notes.append(
            "The reference has no priced products in "
            + ", ".join(ref_currency_missing)
            + ", so those prices are not compared with it (currencies are never converted)."
        )
    if groups and all(g.currency is None for g in groups):
        notes.append(common.NO_PRICE_NOTE)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=_findings(ordered, len(totals), with_ref, pop.excluded, mixed, extra_zero, unchecked),
        missing="reference" if scope.wants_reference and not with_ref else None,  # "compared with competitors"
        thresholds={
            "step_ratio": STEP_RATIO,
            "min_tier_variants": MIN_TIER_PRODUCTS,
            "tiers": "reference tertiles per category" if with_ref else "own tertiles per category",
            "price": "priced variants (price above zero), per currency",
            "on_sale": "current sale price below the price, or compare-at price above it",
        },
        currency=groups[0].currency if len(groups) == 1 else None,
        chart=None if mixed else ("Category", "Median"),
        taxonomy_note=common.taxonomy_note(scope, tax),
        notes=(
            ["Good, better and best are cut at the reference catalog's price tertiles in the same category."]
            if with_ref
            else []
        )
        + notes,
    )


def _findings(
    rows: list[dict],
    n_totals: int,
    with_ref: bool,
    excluded: dict[str, int],
    mixed: bool,
    zero_n: int,
    unchecked_n: int,
) -> list[Finding]:
    if not rows:
        return [Finding("ladder.empty", {}, severity=10)]
    f: list[Finding] = []

    def cur(r: dict) -> dict:
        return {"currency": r["_currency"]} if mixed else {}

    for i, total in enumerate(rows[:n_totals][:2]):
        if total["Median"] is not None:
            f.append(
                Finding(
                    "ladder.summary",
                    {
                        "p10_price": total["P10"],
                        "median_price": total["Median"],
                        "p90_price": total["P90"],
                        "variants_n": total["Priced variants"],
                        "products_n": total["Products"],
                        **cur(total),
                    },
                    cells=((i, "P10"), (i, "Median"), (i, "P90"), (i, "Priced variants"), (i, "Products")),
                    severity=3,
                )
            )
        if total.get("On sale"):
            f.append(
                Finding(
                    "ladder.discount",
                    {
                        "sale_pct": total["On sale"],
                        "depth_pct": total["Average discount"],
                        **({"in_currency": total["_currency"] or "no currency"} if mixed else {}),
                    },
                    cells=((i, "On sale"), (i, "Average discount")),
                    severity=4,
                )
            )
    if mixed:
        items = [
            {"currency": r["_currency"] or "no currency", "variants_n": r["Priced variants"]} for r in rows[:n_totals]
        ]
        f.append(
            Finding(
                "ladder.mixed_currency",
                {"items": items},
                cells=tuple((i, "Priced variants") for i in range(n_totals)),
                severity=9,
            )
        )
    if zero_n:
        f.append(Finding("ladder.zero_prices", {"zero_n": zero_n}, cells=((0, ZERO_COLUMN[0]),), severity=5))
    if unchecked_n:
        f.append(
            Finding(
                "ladder.sale_unchecked", {"unchecked_n": unchecked_n}, cells=((0, UNCHECKED_COLUMN[0]),), severity=5
            )
        )
    visible = [(i, r) for i, r in enumerate(rows) if not r.get("_total")][:20]
    visible = [(i, r) for i, r in visible if i < 20]
    steps = [(i, r) for i, r in visible if r["Step"] is not None and r["Step"] > STEP_RATIO][:3]
    if steps:
        items = [
            {
                "name": r["Category"],
                "from_price": r["Largest step from"],
                "to_price": r["Largest step to"],
                "step_x": r["Step"],
                **cur(r),
            }
            for _, r in steps
        ]
        f.append(
            Finding(
                "ladder.steps",
                {"items": items, "ratio": STEP_RATIO},
                cells=tuple((i, c) for i, _ in steps for c in ("Largest step from", "Largest step to", "Step")),
                severity=8,
            )
        )
    empty = [(i, r) for i, r in visible if r.get("Good") is not None and 0 in (r["Good"], r["Better"], r["Best"])][:3]
    if empty:
        items = [
            {"name": r["Category"], "tiers": ", ".join(t.lower() for t in ("Good", "Better", "Best") if r[t] == 0)}
            for _, r in empty
        ]
        f.append(
            Finding(
                "ladder.empty_tiers",
                {"items": items},
                cells=tuple((i, t) for i, r in empty for t in ("Good", "Better", "Best")),
                severity=7,
            )
        )
    if with_ref:
        no_entry = [
            (i, r)
            for i, r in visible
            if r.get("Reference P25") is not None
            and r.get("_min") is not None
            and r["_min"] > r["Reference P25"]
            and r["P10"] is not None
        ][:3]
        if no_entry:
            items = [
                {"name": r["Category"], "p10_price": r["P10"], "ref_p25_price": r["Reference P25"], **cur(r)}
                for _, r in no_entry
            ]
            f.append(
                Finding(
                    "ladder.no_entry",
                    {"items": items},
                    cells=tuple((i, c) for i, _ in no_entry for c in ("P10", "Reference P25")),
                    severity=6,
                )
            )
    untiered = list(dict.fromkeys(r["Category"] for _, r in visible if r.get("Good") is None))[:5]
    if untiered:
        f.append(Finding("ladder.untiered", {"names": untiered, "min": MIN_TIER_PRODUCTS}, severity=2))
    ex = common.excluded_finding(excluded, rows)
    if ex:
        f.append(ex)
    f.sort(key=lambda x: -x.severity)
    return f[:7]
