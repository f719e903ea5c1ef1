"""price_ladder's aggregation as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`own_aggregates(pushdown, scope, taxonomy)` returns the same `price_ladder.LadderAggregates` the
in-memory path builds from the Arrow table — per currency of the priced variants (price above zero)
and per display category: the quantiles, the largest step between adjacent distinct price points, the
variants, products, variants on sale and their discount depths, and the good/better/best counts once
the cuts are known — from queries that return aggregated rows only, so `price_ladder` builds the same
table, findings and notes either way.

Exactness as agent.analysis.gaps_sql: the quantiles are the values at the sorted positions
(sql_run.quantile_picks), interpolated in Python by the in-memory rule (pandas' for the categories,
numpy's for the totals); a step's ratio is FLOAT64 division of the same two prices, ties to the lower
price point as in memory; tier counts compare with the very cuts the in-memory path would use (its own
tertiles, or the reference's, computed in Python and sent as parameters).

Sales: a variant is on sale when its `sale_price.value` is above zero and below its price and the
sale's schedule (`sale_price_effective_start_date` / `_end_date`, as UTC days, first and last
inclusive: sql_run's `sale_start` / `sale_end`) includes the snapshot day `when`, as common.sales
decides in memory from the same two TIMESTAMPs; depth is (price − sale) / price. Without a snapshot
day a scheduled sale cannot be checked: it is not on sale and is counted as unchecked, as in memory.
Categories and placement as in agent.analysis.brands_sql. A reference is read in memory as usual.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agent.analysis.price_ladder import QUANTILES, TERTILES, CurrencyFigures, LadderAggregates
from agent.analysis.result import Scope
from agent.analysis.sql_run import (
    LABELLED,
    interpolate,
    label_params,
    offers,
    quantile_picks,
    scope_filter,
    unplaced_note,
)
from agent.catalog.taxonomy import Taxonomy

_OFFERS = ("pk", "gid", "p", "cur", "sale")
_SCHEDULE = ("sale_start", "sale_end")
_SCHEDULE_COLUMNS = ("sale_price_effective_start_date", "sale_price_effective_end_date")  # the transfer's
_PER_CATEGORY = QUANTILES + TERTILES + (0.0,)  # the in-memory path's order (CurrencyFigures.quantiles)

_PRICED = """,
priced AS (
  SELECT COALESCE(cur, '') AS cur, c, pk, p, sale > 0 AND sale < p AND @@current AS on_sale,
         IF(sale > 0 AND sale < p AND @@current, (p - sale) / p * 100.0, NULL) AS depth,
         sale > 0 AND sale < p AND @@unchecked AS unchecked
  FROM labelled WHERE p > 0
)
"""

_FIGURES = (
    _PRICED
    + """,
ranked AS (
  SELECT cur, c, pk, p, on_sale, depth, unchecked,
         ROW_NUMBER() OVER (PARTITION BY cur, c ORDER BY p) - 1 AS r, COUNT(*) OVER (PARTITION BY cur, c) AS n,
         ROW_NUMBER() OVER (PARTITION BY cur ORDER BY p) - 1 AS tr, COUNT(*) OVER (PARTITION BY cur) AS tn
  FROM priced
)
SELECT FALSE AS total, cur, c, COUNT(*) AS variants, COUNT(DISTINCT pk) AS products, COUNTIF(on_sale) AS on_sale,
       SUM(depth) AS depth_sum, COUNT(depth) AS depth_n, COUNTIF(unchecked) AS unchecked, MAX(n) AS n, {group_picks}
FROM ranked GROUP BY cur, c
UNION ALL
SELECT TRUE, cur, NULL, COUNT(*), COUNT(DISTINCT pk), COUNTIF(on_sale), SUM(depth), COUNT(depth), COUNTIF(unchecked),
       MAX(tn), {total_picks}
FROM ranked GROUP BY cur
""".replace("{group_picks}", quantile_picks("r", "n", "p", _PER_CATEGORY)).replace(
        "{total_picks}", quantile_picks("tr", "tn", "p", _PER_CATEGORY, only=QUANTILES)
    )
)

# the largest step between adjacent distinct price points per currency and category (lowest on ties)
_STEPS = (
    _PRICED
    + """,
points AS (SELECT DISTINCT cur, c, p FROM priced),
steps AS (SELECT cur, c, LAG(p) OVER (PARTITION BY cur, c ORDER BY p) AS lo, p AS hi FROM points),
ranked AS (
  SELECT cur, c, lo, hi, hi / lo AS ratio, ROW_NUMBER() OVER (PARTITION BY cur, c ORDER BY hi / lo DESC, lo) AS k
  FROM steps WHERE lo IS NOT NULL
)
SELECT cur, c, lo, hi, ratio FROM ranked WHERE k = 1
"""
)

_TIERS = (
    _PRICED
    + """,
cuts AS (SELECT x.cur AS cur, x.c AS c, x.lo AS lo, x.hi AS hi FROM UNNEST(@cuts) AS x)
SELECT q.c AS c, COUNTIF(q.p < x.lo) AS good, COUNTIF(q.p >= x.lo AND q.p < x.hi) AS better,
       COUNTIF(q.p >= x.hi) AS best
FROM priced AS q JOIN cuts AS x ON q.cur = x.cur AND q.c = x.c
GROUP BY q.c
"""
)

_COUNTS = """
SELECT COUNTIF(p > 0) AS priced_n, COUNTIF(p = 0) AS zero_n, COUNTIF(p < 0) AS negative_n,
       COUNTIF(p IS NULL) AS unpriced_n
FROM scoped
"""


def _schedule(pushdown: Any, when: Any) -> tuple[tuple[str, ...], dict[str, str], list[Any]]:
    """The offer columns, the `@@current` / `@@unchecked` conditions and their parameters for the sale's
    schedule at the snapshot day `when` (common.sales' rule); a table without the schedule columns has
    every sale unscheduled."""
    from google.cloud.bigquery.query import ScalarQueryParameter

    if not set(_SCHEDULE_COLUMNS) & pushdown.has:
        return _OFFERS, {"@@current": "TRUE", "@@unchecked": "FALSE"}, []
    columns = _OFFERS + tuple(c for c, raw in zip(_SCHEDULE, _SCHEDULE_COLUMNS) if raw in pushdown.has)
    start = "sale_start" if "sale_start" in columns else "CAST(NULL AS DATE)"
    end = "sale_end" if "sale_end" in columns else "CAST(NULL AS DATE)"
    if when is None:  # nothing to check a schedule against: only unscheduled sales are current
        scheduled = f"({start} IS NOT NULL OR {end} IS NOT NULL)"
        return columns, {"@@current": f"NOT {scheduled}", "@@unchecked": scheduled}, []
    inside = f"({start} IS NULL OR {start} <= @when) AND ({end} IS NULL OR {end} >= @when)"
    return columns, {"@@current": f"({inside})", "@@unchecked": "FALSE"}, [ScalarQueryParameter("when", "DATE", when)]


def _with(sql: str, conditions: dict[str, str]) -> str:
    for token, condition in conditions.items():
        sql = sql.replace(token, condition)
    return sql


def own_aggregates(pushdown: Any, scope: Scope, taxonomy: Taxonomy, when: Any = None) -> LadderAggregates:
    """The scope's ladder figures from BigQuery (see the module docstring for what is computed and how);
    `when` is the snapshot day sales are judged at (common.as_of of the sources)."""
    where, params = scope_filter(scope, taxonomy, pushdown)
    columns, conditions, schedule_params = _schedule(pushdown, when)
    head = offers(columns, where)
    counts = {k: int(v) for k, v in pushdown.query(head + _COUNTS, params)[0].items()}
    note = unplaced_note(pushdown, scope)
    notes = [note] if note else []
    if not counts["priced_n"]:
        return LadderAggregates([], counts, notes)
    params = [*params, *label_params(pushdown, head, params, scope, taxonomy)]
    rows = pushdown.query(head + LABELLED + _with(_FIGURES, conditions), [*params, *schedule_params])
    steps = pushdown.query(head + LABELLED + _with(_STEPS, conditions), [*params, *schedule_params])
    totals = [r for r in rows if r["total"]]
    # common.price_groups' order: a stated currency first, most priced variants, then the name
    totals.sort(key=lambda r: (r["cur"] == "", -int(r["variants"]), r["cur"]))
    groups = []
    for total in totals:
        cur = total["cur"]
        per = sorted((r for r in rows if not r["total"] and r["cur"] == cur), key=lambda r: r["c"])
        names = [r["c"] for r in per]
        code = {name: i for i, name in enumerate(names)}
        groups.append(
            CurrencyFigures(
                currency=cur or None,
                names=names,
                quantiles=np.array([[_q(r, q) for q in _PER_CATEGORY] for r in per], dtype=np.float64).reshape(
                    len(per), len(_PER_CATEGORY)
                ),
                steps={
                    code[s["c"]]: (float(s["lo"]), float(s["hi"]), float(s["ratio"]))
                    for s in steps
                    if s["cur"] == cur and s["c"] in code
                },
                variants=np.array([int(r["variants"]) for r in per], dtype=np.int64),
                products=np.array([int(r["products"]) for r in per], dtype=np.int64),
                on_sale=np.array([int(r["on_sale"]) for r in per], dtype=np.float64),
                depth_sum=np.array([float(r["depth_sum"] or 0.0) for r in per], dtype=np.float64),
                depth_n=np.array([int(r["depth_n"]) for r in per], dtype=np.int64),
                total={
                    "quantiles": [interpolate(total, q, numpy_rule=True) for q in QUANTILES],
                    "products": int(total["products"]),
                    "variants": int(total["variants"]),
                    "on_sale": int(total["on_sale"]),
                    "depth": float(total["depth_sum"]) / int(total["depth_n"]) if int(total["depth_n"]) else None,
                },
                tiers=_tiers(pushdown, head, [*params, *schedule_params], cur, names, conditions),
                unchecked=int(total["unchecked"]),
            )
        )
    return LadderAggregates(groups, counts, notes)


def _q(row: dict[str, Any], quantile: float) -> float:
    value = interpolate(row, quantile)
    return float("nan") if value is None else value


def _tiers(pushdown: Any, head: str, params: list[Any], cur: str, names: list[str], conditions: dict[str, str]):
    """Cuts {category code: (low, high)} -> {code: (good, better, best)}, counted in BigQuery."""

    def count(cuts: dict[int, tuple[float, float]]) -> dict[int, tuple[int, int, int]]:
        from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

        cut_param = ArrayQueryParameter(
            "cuts",
            "STRUCT",
            [
                StructQueryParameter(
                    None,
                    ScalarQueryParameter("cur", "STRING", cur),
                    ScalarQueryParameter("c", "STRING", names[code]),
                    ScalarQueryParameter("lo", "FLOAT64", float(low)),
                    ScalarQueryParameter("hi", "FLOAT64", float(high)),
                )
                for code, (low, high) in cuts.items()
            ],
        )
        code = {name: i for i, name in enumerate(names)}
        rows = pushdown.query(head + LABELLED + _with(_TIERS, conditions), [*params, cut_param])
        found = {code[r["c"]]: (int(r["good"]), int(r["better"]), int(r["best"])) for r in rows}
        return {category: found.get(category, (0, 0, 0)) for category in cuts}

    return count
