"""assortment_gaps' aggregation as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`own_aggregates(pushdown, scope, taxonomy)` returns the same `gaps.OwnAggregates` the in-memory path
computes from the Arrow table, from two queries over the snapshot partition that return only
aggregated rows (one per currency, one per subcategory plus a totals row), so `gaps.answer` builds the
same table, findings and notes either way and the function's memory does not grow with the catalog.

Decision (categories): the `Products_` transfer carries Merchant Center's own `google_product_category`
id for each offer, and the SQL path groups by that id. A scoped question sends the scope's taxonomy
subtree (its roots and every node under them) as an array parameter and keeps the offers whose id is
in it; each keeps its own id as its subcategory key, exactly as the in-memory path's `gaps._keys` does.
Offers with no Google category cannot be placed in a scope in SQL (the in-memory path can still place
them by the merchant's category or the title noun, agent.analysis.scoping): on the whole catalog they
are the "Not mapped to a subcategory" row as in memory; on a scoped question they are left out and a
note says how many. A title never moves an offer the merchant filed in another Google category into a
scope (scoping._filed_elsewhere_mask). An offer the merchant filed at an *ancestor* of the scope is
placed in it by its title in memory ("Ratalu Chips" filed under Food Items is in Chips, on the Merchant
Center feed tests/corpus/gmc/amies-homemade-inr-tab.txt); SQL cannot run that rule, so
sql_run.scope_filter reads the distinct titles filed above the scope that name its noun, lets the
in-memory rule pick among them (sql_run.title_placed_keys) and keeps those offers too, under "Not
mapped to a subcategory" as in memory; a scope of title words only (no Google node) is found the same
way among all offers. So on a table whose offers all carry a Google category both
paths give identical answers (tests/test_bigquery_pushdown.py, tests/test_bigquery_scope_titles.py).

Exactness: every figure is the in-memory one, not an approximation — COUNT(DISTINCT) for products,
COUNTIF for stock states, MIN/MAX, and for the P25/median/P75 the two values at the closest sorted positions (ROW_NUMBER), interpolated
linearly in Python by the rule of `common.quantiles_by_code` (pandas' default; see quantile_picks).
Prices are compared as FLOAT64 of the NUMERIC `price.value`, as the reader parses them. Availability
words are cleaned as `values.availability_value` cleans them (lower case, runs of spaces, `_` and `-`
as one space, a schema.org prefix dropped) and mapped through the catalog layer's own table
(`agent.catalog.values.AVAILABILITY_WORDS`, sent as a parameter), so a word means the same in both paths. A transfer table has no draft/archived
status (a feed lists what is for sale), so nothing is left out by status on either path.

Not pushed down: a reference catalog (read in memory as usual, so a bq:// reference above the line is
refused with the line). Best sellers data joins as in memory ("missing, and in the top 10% of
demand"): the report is read into memory and the own side it needs is aggregated in BigQuery by
agent.analysis.demand_sql, the same rows demand_gaps shows.
"""

from __future__ import annotations

from typing import Any

from agent.analysis.gaps import OTHER_KEY, OwnAggregates
from agent.analysis.result import Scope
from agent.analysis.sql_run import (
    QUANTILES,
    avail_param,
    interpolate,
    number,
    offers,
    quantile_picks,
    scope_filter,
    title_placed_keys,
    unplaced_note,
)
from agent.catalog.taxonomy import Taxonomy

# The scope's offers with their subcategory key (`{key}`: the Google category id, or OTHER_KEY).
_OFFERS = ("pk", "gid", "p", "cur", "stated", "st")
_KEYED = """,
keyed AS (SELECT pk, {key} AS k, p, cur, stated, st FROM scoped)
"""

_CURRENCIES = (
    _KEYED
    + """
SELECT cur, COUNTIF(p > 0) AS priced_n, COUNTIF(p = 0) AS zero_n, COUNTIF(p < 0) AS negative_n,
       COUNT(*) AS rows_n, COUNTIF(st IS NOT NULL AND st != 'unknown') AS stated_n
FROM keyed
GROUP BY cur
"""
)

_GROUPS = (
    _KEYED
    + """,
priced AS (
  SELECT pk, k, st, IF(p > 0 AND {main}, p, NULL) AS mp FROM keyed
),
ranked AS (
  SELECT k, pk, st, mp,
         ROW_NUMBER() OVER (PARTITION BY k ORDER BY mp ASC NULLS LAST) - 1 AS r,
         COUNT(mp) OVER (PARTITION BY k) AS n,
         ROW_NUMBER() OVER (ORDER BY mp ASC NULLS LAST) - 1 AS tr,
         COUNT(mp) OVER () AS tn
  FROM priced
)
SELECT FALSE AS total, k, COUNT(DISTINCT pk) AS products, COUNT(*) AS variants,
       COUNTIF(st = 'in_stock') AS in_n, COUNTIF(st = 'out_of_stock') AS oos_n,
       MIN(mp) AS p0, MAX(mp) AS p100, MAX(n) AS n, {group_picks}
FROM ranked GROUP BY k
UNION ALL
SELECT TRUE AS total, NULL AS k, COUNT(DISTINCT pk), COUNT(*), COUNTIF(st = 'in_stock'), COUNTIF(st = 'out_of_stock'),
       MIN(mp), MAX(mp), MAX(tn), {total_picks}
FROM ranked
"""
)


def own_aggregates(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> OwnAggregates:
    """The scope's aggregates from BigQuery (see the module docstring for what is grouped and how)."""
    from google.cloud.bigquery.query import ScalarQueryParameter

    where, scope_params = scope_filter(scope, taxonomy, pushdown)
    params: list[Any] = [avail_param(), *scope_params]
    key = _subcategory_key(scope)
    parts = {"head": offers(_OFFERS, where), "key": key}
    currencies = pushdown.query(_fill(_CURRENCIES, parts), params)
    by_currency = [(r["cur"], int(r["priced_n"])) for r in currencies if int(r["priced_n"])]
    # the main currency as common.price_groups orders them: a stated currency first, most variants, name
    by_currency.sort(key=lambda c: (c[0] is None, -c[1], c[0] or ""))
    currency = by_currency[0][0] if by_currency else None
    if by_currency:
        main = "cur IS NULL" if currency is None else "cur = @main"
        if currency is not None:
            params.append(ScalarQueryParameter("main", "STRING", currency))
    else:
        main = "FALSE"
    picks = {
        "group_picks": quantile_picks("r", "n", "mp", QUANTILES),
        "total_picks": quantile_picks("tr", "tn", "mp", QUANTILES, only=(0.5,)),
    }
    rows = pushdown.query(_fill(_GROUPS, {**parts, "main": main, **picks}), params)
    has_stock = any(int(r["stated_n"]) for r in currencies)
    by_key: dict[int, dict] = {}
    total: dict = {
        "products": 0,
        "variants": 0,
        "in": 0 if has_stock else None,
        "min": None,
        "median": None,
        "max": None,
    }
    for r in rows:
        if r["total"]:
            if int(r["variants"]):
                total = {
                    "products": int(r["products"]),
                    "variants": int(r["variants"]),
                    "in": int(r["in_n"]) if has_stock else None,
                    "min": number(r["p0"]),
                    "median": interpolate(r, 0.5),
                    "max": number(r["p100"]),
                }
            continue
        by_key[int(r["k"])] = {
            "products": int(r["products"]),
            "variants": int(r["variants"]),
            "in": int(r["in_n"]),
            "oos": int(r["oos_n"]),
            "min": number(r["p0"]),
            "p25": interpolate(r, 0.25),
            "median": interpolate(r, 0.5),
            "p75": interpolate(r, 0.75),
            "max": number(r["p100"]),
        }
    prices = {
        "priced_n": sum(int(r["priced_n"]) for r in currencies),
        "zero_n": sum(int(r["zero_n"]) for r in currencies),
        "negative_n": sum(int(r["negative_n"]) for r in currencies),
    }
    notes = [note] if (note := unplaced_note(pushdown, scope)) else []
    unmapped = _unmapped_by(pushdown, scope, taxonomy, where, scope_params) if by_key.get(OTHER_KEY) else {}
    return OwnAggregates(
        unmapped_by=unmapped,
        by_key=by_key,
        total=total,
        currency=currency,
        other_currencies={c or "no currency": n for c, n in by_currency[1:]},
        has_stock=has_stock,
        prices=prices,
        rows=total["variants"],
        notes=notes,
    )


_PLACED = """,
places AS (SELECT p.k AS k, p.place AS place FROM UNNEST(@key_places) AS p),
placed AS (
  SELECT s.pk AS pk, MIN(p.place) AS place FROM scoped AS s JOIN places AS p ON p.k = s.{column}
  WHERE {key} = {other} GROUP BY s.pk
)
SELECT place, COUNT(*) AS n FROM placed GROUP BY place
"""


def _subcategory_key(scope: Scope) -> str:
    """As gaps._keys: an offer's own id inside the scope's subtree, else OTHER_KEY (an offer filed above
    the scope and placed in it by its title, sql_run.scope_filter, is "Not mapped to a subcategory" in
    memory too); on the whole catalog its id, or OTHER_KEY without one."""
    if scope.taxonomy_id is None:
        return f"COALESCE(gid, {OTHER_KEY})"
    return f"IF(gid IN UNNEST(@scope_ids), gid, {OTHER_KEY})"


def _unmapped_by(pushdown: Any, scope: Scope, taxonomy: Taxonomy, where: str, params: list[Any]) -> dict[str, int]:
    """As gaps._unmapped_by: how the scope's products not mapped to a subcategory came in. Scoped in SQL,
    those are the offers filed above the scope that the in-memory rule placed in it
    (sql_run.title_placed_keys, which gives each key's first place); a product counts in the first place
    any of its offers has, by your category (own or taxonomy) or by its title."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    column, places = title_placed_keys(pushdown, scope, taxonomy)
    if not places:
        return {}
    key_places = [
        StructQueryParameter(None, ScalarQueryParameter("k", "STRING", k), ScalarQueryParameter("place", "INT64", v))
        for k, v in sorted(places.items())
    ]
    key = _subcategory_key(scope).replace("gid", "s.gid")
    sql = offers(("pk", "gid"), where) + _PLACED.replace("{column}", column).replace("{key}", key)
    sql = sql.replace("{other}", str(OTHER_KEY))
    rows = pushdown.query(sql, [*params, ArrayQueryParameter("key_places", "STRUCT", key_places)])
    by = {int(r["place"]): int(r["n"]) for r in rows}
    return {"own_n": by.get(0, 0) + by.get(1, 0), "title_n": by.get(2, 0)}


def _fill(sql: str, parts: dict[str, str]) -> str:
    """Our own fragments into the template; `{table}` and `{where}` are left for the Pushdown to fill."""
    for name in ("group_picks", "total_picks"):
        sql = sql.replace("{" + name + "}", parts.get(name, ""))
    return parts["head"] + sql.replace("{key}", parts["key"]).replace("{main}", parts.get("main", "FALSE"))
