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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from agent.analysis import common, sql_run
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
# Nor for a category of one product: its variants' prices (sizes, colours of one swimsuit) are no range
# of options to be entry-level or premium in, and a tie among them said "one price holds a third or
# more" of a ladder that is one product. Two products and up are tiered as before.
MIN_TIER_OPTIONS = 2
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
NO_PRICE_COLUMN = ("No price (left out)", "count", pa.int64())
UNCHECKED_COLUMN = ("Scheduled sales not checked", "count", pa.int64())
# The variants the ladder leaves out or cannot judge, each a column on the first row when any is counted
# and a finding: (column, finding code, its count parameter). Variants without a price were left out
# unsaid: a held-out WooCommerce shop's "How are my prices spread in synthesizers?" scoped 368 products
# and answered over the 2 that had a price, the other 366 not mentioned.
LEFT_OUT = (
    (ZERO_COLUMN, "ladder.zero_prices", "zero_n"),
    (NO_PRICE_COLUMN, "ladder.unpriced", "unpriced_n"),
    (UNCHECKED_COLUMN, "ladder.sale_unchecked", "unchecked_n"),
)


def _largest_steps(codes: np.ndarray, price: np.ndarray) -> dict[int, tuple[float, float, float]]:
    """Per category: (from, to, ratio) of the largest step between adjacent price points.

    Sorted by category then price (price argsort, then a stable radix sort on the small category
    index), ratios of neighbours, and the first largest ratio per category by reduceat: no Python loop
    over products.
    """
    priced = ~np.isnan(price)
    codes, price = codes[priced], price[priced]
    if len(codes) < 2:
        return {}
    cents = np.rint(price * 100.0)
    span = int(cents.max() - cents.min()) + 1 if len(cents) else 1
    if np.array_equal(cents / 100.0, price) and span * (int(codes.max()) + 1) < 2**62:
        # prices in whole cents (the usual case): the distinct (category, price) points from one integer
        # sort, since a step is between adjacent distinct price points and repeats only add ratios of 1
        lo_c = int(cents.min())
        composite = codes.astype(np.int64) * span + (cents.astype(np.int64) - lo_c)
        composite.sort()
        keep = np.concatenate(([True], composite[1:] != composite[:-1]))
        composite = composite[keep]
        codes, price = composite // span, (composite % span + lo_c) / 100.0
    else:
        by_price = np.argsort(price, kind="stable")
        cat = codes[by_price]
        cat_key = cat.astype(np.int16) if cat.max() < 32767 and cat.min() >= 0 else cat
        order = by_price[np.argsort(cat_key, kind="stable")]
        codes, price = codes[order], price[order]
    if len(codes) < 2:
        return {}
    same = codes[1:] == codes[:-1]
    ratio = np.where(same & (price[:-1] > 0), price[1:] / np.where(price[:-1] > 0, price[:-1], 1), 0.0)
    pair_cat = codes[:-1]
    starts = np.flatnonzero(np.concatenate(([True], pair_cat[1:] != pair_cat[:-1])))
    best = np.maximum.reduceat(ratio, starts)
    group = np.repeat(np.arange(len(starts)), np.diff(np.concatenate((starts, [len(ratio)]))))
    hits = np.flatnonzero(ratio == best[group])
    first = hits[np.concatenate(([True], group[hits][1:] != group[hits][:-1]))]
    out: dict[int, tuple[float, float, float]] = {}
    for idx in first.tolist():
        if same[idx] and ratio[idx] > 0:
            out[int(codes[idx])] = (float(price[idx]), float(price[idx + 1]), float(ratio[idx]))
    return out


def _tier_counts(
    codes: np.ndarray, price: np.ndarray, cuts: dict[int, tuple[float, float]]
) -> dict[int, tuple[int, int, int]]:
    """Good/better/best counts per category, vectorised: each product looks up its category's cuts."""
    if not cuts:
        return {}
    size = int(max(int(codes.max()) if len(codes) else 0, max(cuts)) + 1)
    low_cut = np.full(size, np.nan)
    high_cut = np.full(size, np.nan)
    for c, (a, b) in cuts.items():
        low_cut[c], high_cut[c] = a, b
    valid = ~np.isnan(price) & ~np.isnan(low_cut[codes])
    c_ok, p_ok = codes[valid], price[valid]
    tier = np.where(p_ok < low_cut[c_ok], 0, np.where(p_ok < high_cut[c_ok], 1, 2))
    counts = np.zeros((size, 3), dtype=np.int64)
    np.add.at(counts, (c_ok, tier), 1)
    return {c: (int(counts[c][0]), int(counts[c][1]), int(counts[c][2])) for c in cuts}


def _readable(table: pa.Table) -> list[str]:
    """READ without the sale-schedule columns a table stored before they existed lacks (a follow-up on
    an earlier attachment): such a table's sales are read as unscheduled."""
    return [c for c in READ if c in table.column_names]


def _partition(scoped: pa.Table, labels: pa.DictionaryArray, rows: np.ndarray, when) -> dict:
    """The priced variants of one currency as numpy arrays: category code, product key, price, sale."""
    codes = common.numpy_of(labels.indices).astype(np.int64)
    pk = common.numpy_of(scoped["product_key"]).astype(np.int64)
    price = common.numpy_of(scoped["price"]).astype(np.float64)
    sale = common.sales(scoped, when)
    return {
        "ci": codes[rows],
        "pk": pk[rows],
        "price": price[rows],
        "on_sale": sale.on_sale[rows],
        "depth": sale.depth[rows],
        "unchecked": int((sale.unchecked & rows).sum()),
    }


def _reference_quantiles(inp: SkillInput, currency: str | None) -> dict[str, list[float]]:
    """Per category name: P25, tertiles and P75 of the reference's priced variants in `currency`."""
    scope, tax = inp.scope, inp.taxonomy
    reference = common.population(inp.reference, scope, tax, _readable(inp.reference)).table
    if reference.num_rows == 0:
        return {}
    group = next((g for g in common.price_groups(reference) if g.currency == currency), None)
    if group is None:
        return {}
    labels = common.category_labels(reference, scope, tax)
    part = _partition(reference, labels, group.rows, common.as_of(reference))
    names = labels.dictionary.to_pylist()
    cuts = common.quantiles_by_code(part["ci"], len(names), part["price"], (0.25, TERTILES[0], TERTILES[1], 0.75))
    return {names[k]: [float(x) for x in cuts[k]] for k in range(len(names)) if not np.isnan(cuts[k, 0])}


@dataclass
class CurrencyFigures:
    """One currency's priced variants, aggregated per category (codes index `names`) and over all: what
    `_rows_for` reads. The seam between where the aggregation runs (`_figures` here from numpy arrays,
    agent.analysis.price_ladder_sql in BigQuery above the size line) and what is said about it."""

    currency: str | None
    names: list[str]  # category labels
    quantiles: np.ndarray  # per category: QUANTILES, TERTILES, then the minimum (NaN: no priced variant)
    steps: dict[int, tuple[float, float, float]]  # category code -> largest step (from, to, ratio)
    variants: np.ndarray  # per category: priced variants
    products: np.ndarray  # … distinct products with a priced variant
    on_sale: np.ndarray  # … variants on sale now
    depth_sum: np.ndarray  # … sum of their discount depths (percent)
    depth_n: np.ndarray  # … how many depths are summed
    total: dict  # over the currency: "quantiles" (QUANTILES), "products", "variants", "on_sale", "depth"
    tiers: Callable[[dict[int, tuple[float, float]]], dict[int, tuple[int, int, int]]]  # cuts -> counts
    unchecked: int = 0  # variants whose sale dates are not stated (UNCHECKED_COLUMN)


@dataclass
class LadderAggregates:
    """The own catalog's side of the answer: per currency (largest first) its figures, and the scope's
    common.price_counts."""

    groups: list[CurrencyFigures]
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)  # what the path itself has to say (pushdown: unplaced rows)


def _aggregated_in_bigquery(inp: SkillInput, pushdown: Any) -> LadderAggregates:
    """Above the size line: aggregated in BigQuery, sales judged at the snapshot day (imported here:
    price_ladder_sql imports this module)."""
    from agent.analysis import price_ladder_sql

    return price_ladder_sql.own_aggregates(pushdown, inp.scope, inp.taxonomy, common.as_of(inp.own, inp.sources))


def own_aggregates(inp: SkillInput, scoped: pa.Table) -> LadderAggregates:
    """The in-memory path: the scope's population, per currency group, aggregated in numpy."""
    groups = common.price_groups(scoped)
    figures = []
    if groups:
        labels = common.category_labels(scoped, inp.scope, inp.taxonomy)
        names = labels.dictionary.to_pylist()
        when = common.as_of(scoped, inp.sources)
        for group in groups:
            figures.append(_figures(_partition(scoped, labels, group.rows, when), names, group.currency))
    return LadderAggregates(figures, common.price_counts(scoped))


def _figures(part: dict, names: list[str], currency: str | None) -> CurrencyFigures:
    """One currency's priced variants (numpy arrays, `_partition`) aggregated per category and over all."""
    codes, pk, price = part["ci"], part["pk"], part["price"]
    n = len(names)
    depth_ok = part["on_sale"] & ~np.isnan(part["depth"])
    total_q = [float(x) for x in np.quantile(price, list(QUANTILES))] if len(price) else [None] * 5
    ordered = len(pk) < 2 or bool(np.all(pk[1:] >= pk[:-1]))  # the catalog layer's layout: one pass
    n_products = (int(np.count_nonzero(pk[1:] != pk[:-1])) + 1 if len(pk) else 0) if ordered else len(np.unique(pk))
    return CurrencyFigures(
        currency=currency,
        names=names,
        quantiles=common.quantiles_by_code(codes, n, price, QUANTILES + TERTILES + (0.0,)),
        steps=_largest_steps(codes, price),
        variants=np.bincount(codes, minlength=n),
        products=np.asarray(common.distinct_per_code(codes, pk, n)) if len(codes) else np.zeros(n, np.int64),
        on_sale=np.bincount(codes, weights=part["on_sale"].astype(np.float64), minlength=n),
        depth_sum=np.bincount(codes[depth_ok], weights=part["depth"][depth_ok], minlength=n),
        depth_n=np.bincount(codes[depth_ok], minlength=n),
        total={
            "quantiles": total_q,
            "products": n_products,
            "variants": len(price),
            "on_sale": int(part["on_sale"].sum()),
            "depth": float(part["depth"][depth_ok].mean()) if depth_ok.any() else None,
        },
        tiers=lambda cuts: _tier_counts(codes, price, cuts),
        unchecked=part["unchecked"],
    )


def _rows_for(
    fig: CurrencyFigures, ref_q: dict[str, list[float]] | None, mixed: bool, total_label: str
) -> tuple[dict, list[dict]]:
    """The totals row and the category rows of one currency's priced variants."""
    names, quantiles, variants, currency = fig.names, fig.quantiles, fig.variants, fig.currency
    cuts = {}
    for code in np.flatnonzero((variants >= MIN_TIER_PRODUCTS) & (fig.products >= MIN_TIER_OPTIONS)).tolist():
        ref = ref_q.get(names[code]) if ref_q else None
        cuts[code] = (ref[1], ref[2]) if ref else tuple(quantiles[code][5:7])
    tiers = fig.tiers(cuts) if cuts else {}
    rows = []
    for code in np.flatnonzero(variants > 0).tolist():
        qs = [None if np.isnan(x) else float(x) for x in quantiles[code]]
        step = fig.steps.get(code)
        tier = tiers.get(code)
        row = {
            "Category": names[code],
            "Products": int(fig.products[code]),
            "Priced variants": int(variants[code]),
            "P10": common.money(qs[0]),
            "P25": common.money(qs[1]),
            "Median": common.money(qs[2]),
            "P75": common.money(qs[3]),
            "P90": common.money(qs[4]),
            "Good": tier[0] if tier else None,
            "Better": tier[1] if tier else None,
            "Best": tier[2] if tier else None,
            "Largest step from": common.money(step[0]) if step else None,
            "Largest step to": common.money(step[1]) if step else None,
            "Step": round(step[2], 1) if step else None,
            "On sale": common.pct(fig.on_sale[code], variants[code]),
            "Average discount": round(fig.depth_sum[code] / fig.depth_n[code], 1) if fig.depth_n[code] else None,
            "_min": qs[7],
            "_currency": currency,
            # cut at its own tertiles (no reference category): an empty tier there is only tied prices
            "_own_tiers": bool(tier) and not (ref_q and ref_q.get(names[code])),
        }
        if ref_q is not None:
            ref = ref_q.get(names[code])
            row["Reference P25"] = common.money(ref[0]) if ref else None
            row["Reference P75"] = common.money(ref[3]) if ref else None
        if mixed:
            row["Currency"] = currency
        rows.append(row)
    return _total_row(fig, mixed, total_label), rows


def _total_row(fig: CurrencyFigures, mixed: bool, total_label: str) -> dict:
    """The totals row of one currency's priced variants: quantiles over all of them, products counted once."""
    total_q, figures = fig.total["quantiles"], fig.total
    total = {
        "Category": total_label,
        "Products": figures["products"],
        "Priced variants": figures["variants"],
        "P10": common.money(total_q[0]),
        "P25": common.money(total_q[1]),
        "Median": common.money(total_q[2]),
        "P75": common.money(total_q[3]),
        "P90": common.money(total_q[4]),
        "On sale": common.pct(figures["on_sale"], figures["variants"]),
        "Average discount": round(figures["depth"], 1) if figures["depth"] is not None else None,
        "_currency": fig.currency,
        "_total": True,
    }
    if mixed:
        total["Currency"] = fig.currency
    return total


@dataclass
class _Ladder:
    """The table step's output: per currency a totals row, the category rows (most in need first), and
    what the notes and findings need to know about how they were built."""

    totals: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    unchecked: int = 0  # variants whose sale dates are not stated (UNCHECKED_COLUMN)
    ref_currency_missing: list[str] = field(default_factory=list)  # currencies the reference has no prices in


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    with_ref = inp.reference is not None
    agg, excluded = sql_run.own_side(inp, _readable(inp.own), _aggregated_in_bigquery, own_aggregates)
    groups = agg.groups
    mixed = len(groups) > 1
    ladder = _ladder(inp, groups) if groups else _Ladder()
    ordered = ladder.totals + ladder.rows
    left = {
        ZERO_COLUMN[0]: agg.counts["zero_n"] + agg.counts["negative_n"],
        NO_PRICE_COLUMN[0]: agg.counts.get("unpriced_n", 0),
        UNCHECKED_COLUMN[0]: ladder.unchecked,
    }
    table = _table(ordered, with_ref, mixed, left, excluded)
    notes = list(agg.notes)
    if with_ref and ladder.ref_currency_missing and ordered:
        notes.append(
            "The reference has no priced products in "
            + ", ".join(ladder.ref_currency_missing)
            + ", so those prices are not compared with it (currencies are never converted)."
        )
    if groups and all(group.currency is None for group in groups):
        notes.append(common.NO_PRICE_NOTE)
    findings = _findings(ordered, len(ladder.totals), with_ref, excluded, mixed, left)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=findings,
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


def _ladder(inp: SkillInput, groups: list[CurrencyFigures]) -> _Ladder:
    """The table step: per currency group, the totals row and the category rows, against the reference's
    quantiles in that currency when there is a reference; category rows sorted by what needs attention."""
    scope = inp.scope
    with_ref = inp.reference is not None
    mixed = len(groups) > 1
    ladder = _Ladder()
    label = common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)")
    for group in groups:
        ladder.unchecked += group.unchecked
        ref_quantiles = _reference_quantiles(inp, group.currency) if with_ref else None
        if with_ref and not ref_quantiles:
            ladder.ref_currency_missing.append(group.currency or "no currency")
        total, category_rows = _rows_for(group, ref_quantiles, mixed, label)
        ladder.totals.append(total)
        ladder.rows.extend(category_rows)

    def attention(row: dict) -> int:
        """A big price step, an empty tier, an entry price above the reference's lower quartile."""
        score = 0
        if row["Step"] is not None and row["Step"] > STEP_RATIO:
            score += 4
        if _empty_tier(row):
            score += 2
        if (
            with_ref
            and row.get("Reference P25") is not None
            and row["_min"] is not None
            and row["_min"] > row["Reference P25"]
        ):
            score += 3
        return score

    ladder.rows.sort(key=lambda r: (-attention(r), -r["Priced variants"], r["Category"], r.get("Currency") or ""))
    return ladder


def _table(
    ordered: list[dict], with_ref: bool, mixed: bool, left: dict[str, int], excluded: dict[str, int]
) -> pa.Table:
    """The rows as the answer's table: the reference, left-out (zero price, no price, unchecked sale) and
    currency columns only when they hold something (the first row carries the left-out counts)."""
    columns = COLUMNS + (REF_COLUMNS if with_ref else ())
    for column, _, _ in LEFT_OUT:
        if ordered and left.get(column[0]):
            columns += (column,)
            ordered[0][column[0]] = left[column[0]]
    if mixed:
        columns += (CURRENCY_COLUMN,)
    return common.records_table(columns, ordered, excluded)


def _findings(
    rows: list[dict],
    n_totals: int,
    with_ref: bool,
    excluded: dict[str, int],
    mixed: bool,
    left: dict[str, int],
) -> list[Finding]:
    """What the table says, most severe first (seven at most): the totals' findings, the variants left
    out (zero price, no price) or not judged (unchecked sales), then what the first twenty category rows
    show."""
    if not rows:
        return [Finding("ladder.empty", {}, severity=10)]
    found = _total_findings(rows, n_totals, mixed)
    found += [
        Finding(code, {param: left[column[0]]}, cells=((0, column[0]),), severity=5)
        for column, code, param in LEFT_OUT
        if left.get(column[0])
    ]
    visible = [(i, r) for i, r in enumerate(rows) if not r.get("_total")][:20]
    visible = [(i, r) for i, r in visible if i < 20]
    found += _category_findings(visible, with_ref, mixed)
    if not any(r["Step"] is not None and r["Step"] > STEP_RATIO for r in rows if not r.get("_total")):
        found += _no_hole(visible, mixed)  # not one hole in any category row, shown or not
    example = common.excluded_finding(excluded, rows)
    if example:
        found.append(example)
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _in_currency(row: dict, mixed: bool) -> dict:
    """The row's currency for a finding's values, when prices come in several."""
    return {"currency": row["_currency"]} if mixed else {}


def _total_findings(rows: list[dict], n_totals: int, mixed: bool) -> list[Finding]:
    """The price summary and sales of the first two totals rows, and the currencies when there are several."""
    found: list[Finding] = []
    for i, total in enumerate(rows[:n_totals][:2]):
        if total["Median"] is not None:
            found.append(
                Finding(
                    "ladder.summary",
                    {
                        "p10_price": total["P10"],
                        "median_price": total["Median"],
                        "p90_price": total["P90"],
                        "variants_n": total["Priced variants"],
                        "products_n": total["Products"],
                        **_in_currency(total, mixed),
                    },
                    cells=((i, "P10"), (i, "Median"), (i, "P90"), (i, "Priced variants"), (i, "Products")),
                    severity=3,
                )
            )
        if total.get("On sale"):
            found.append(
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
        found.append(
            Finding(
                "ladder.mixed_currency",
                {"items": items},
                cells=tuple((i, "Priced variants") for i in range(n_totals)),
                severity=9,
            )
        )
    return found


def _has_zero_tier(row: dict) -> bool:
    return row.get("Good") is not None and 0 in (row["Good"], row["Better"], row["Best"])


def _empty_tier(row: dict) -> bool:
    """A tier with nothing in it against the reference's cuts: a real hole in the ladder.

    Cut at the category's own tertiles an empty tier can only mean tied prices (a third or more of the
    variants at the lowest price, or one price spanning the middle third; the best tier always holds the
    dearest): the merchant has no hole there, only one price many variants share, which `_tied_tier`
    says instead."""
    return _has_zero_tier(row) and not row.get("_own_tiers")


def _tied_tier(row: dict) -> bool:
    """An own-tertile tier left empty by tied prices (see `_empty_tier`)."""
    return _has_zero_tier(row) and bool(row.get("_own_tiers"))


def _tied_price(row: dict) -> float | None:
    """The price the tie is at, as the table shows it: an empty good tier means the cheapest price holds
    the lower third (so P10 and P25 are it); an empty better tier means one price spans the middle third,
    where the median falls."""
    return common.money(row["_min"]) if row["Good"] == 0 else row["Median"]


def _tiers_finding(code: str, shown: list[tuple[int, dict]], items: list[dict], severity: int) -> Finding:
    """A finding about the tiers of the rows shown, its cells their three tier counts."""
    cells = tuple((i, t) for i, _ in shown for t in ("Good", "Better", "Best"))
    return Finding(code, {"items": items}, cells=cells, severity=severity)


def _no_hole(visible: list[tuple[int, dict]], mixed: bool) -> list[Finding]:
    """With no step above STEP_RATIO in any category row, that said, with the largest step there is: "Where
    are my price gaps?" on a held-out denim shop (jackets 5,500 to 8,000 at most, 1.5×) was answered with
    P10–P90 and tiers and not one sentence on gaps, which reads as if the question went unheard."""
    stepped = [(i, r) for i, r in visible if r["Step"] is not None]
    if not stepped:
        return []
    i, r = max(stepped, key=lambda ir: (ir[1]["Step"], -ir[0]))
    values = {
        "name": r["Category"],
        "from_price": r["Largest step from"],
        "to_price": r["Largest step to"],
        "step_x": r["Step"],
        "ratio": STEP_RATIO,
        **_in_currency(r, mixed),
    }
    cells = tuple((i, c) for c in ("Largest step from", "Largest step to", "Step"))
    return [Finding("ladder.no_steps", values, cells=cells, severity=6)]


def _category_findings(visible: list[tuple[int, dict]], with_ref: bool, mixed: bool) -> list[Finding]:
    """Big steps, empty tiers, no entry-level price against the reference, and untiered categories, among
    the category rows shown."""
    found: list[Finding] = []
    steps = [(i, r) for i, r in visible if r["Step"] is not None and r["Step"] > STEP_RATIO][:3]
    if steps:
        items = [
            {
                "name": r["Category"],
                "from_price": r["Largest step from"],
                "to_price": r["Largest step to"],
                "step_x": r["Step"],
                **_in_currency(r, mixed),
            }
            for _, r in steps
        ]
        found.append(
            Finding(
                "ladder.steps",
                {"items": items, "ratio": STEP_RATIO},
                cells=tuple((i, c) for i, _ in steps for c in ("Largest step from", "Largest step to", "Step")),
                severity=8,
            )
        )
    empty = [(i, r) for i, r in visible if _empty_tier(r)][:3]
    if empty:
        items = [
            {"name": r["Category"], "tiers": ", ".join(t.lower() for t in ("Good", "Better", "Best") if r[t] == 0)}
            for _, r in empty
        ]
        found.append(_tiers_finding("ladder.empty_tiers", empty, items, severity=7))
    tied = [(i, r) for i, r in visible if _tied_tier(r)][:3]
    if tied:
        items = [{"name": r["Category"], "tied_price": _tied_price(r), **_in_currency(r, mixed)} for _, r in tied]
        found.append(_tiers_finding("ladder.tied", tied, items, severity=3))
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
                {
                    "name": r["Category"],
                    "p10_price": r["P10"],
                    "ref_p25_price": r["Reference P25"],
                    **_in_currency(r, mixed),
                }
                for _, r in no_entry
            ]
            found.append(
                Finding(
                    "ladder.no_entry",
                    {"items": items},
                    cells=tuple((i, c) for i, _ in no_entry for c in ("P10", "Reference P25")),
                    severity=6,
                )
            )
    untiered = list(dict.fromkeys(r["Category"] for _, r in visible if r.get("Good") is None))[:5]
    if untiered:
        found.append(Finding("ladder.untiered", {"names": untiered, "min": MIN_TIER_PRODUCTS}, severity=2))
    return found
