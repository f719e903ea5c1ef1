"""demand_gaps' own side as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

The Best sellers report is small (a few thousand ranked clusters and brands) and is read into memory
as always; what needs the merchant's catalog is computed where the catalog lies, by one query over the
snapshot partition (agent.analysis.sql_run's `offers`) that returns aggregated rows only:

- per GTIN key the report names (`@gtins`): how many matching offers are in stock / out of stock, so
  Python applies demand's rule (in stock if any, else out of stock if any, else stock unknown). The key
  is demand's `_gtin_key` written in SQL: the ASCII digits, leading zeros dropped;
- per brand the report names (`@brands`, lower-cased): the distinct products of that brand, over the
  whole catalog as in memory (a brand is carried if you sell it anywhere). `LOWER` runs once per
  distinct brand spelling, not per offer (the emulator runs it as a per-row Python function);
- per subcategory of the scope (`@subs`: every Google category id of the scope -> its subcategory
  row's name, made in Python by demand's own `_subcategory`), the distinct products there, and the
  distinct products in the scope.

Placement is gaps_sql's decision: an offer is in the scope when its own `google_product_category` is in
the scope's taxonomy subtree; offers without one cannot be placed in SQL, and a scoped answer says how
many (sql_run.unplaced_note). On a table whose offers all carry a Google category both paths give the
same OwnSide, so the same table, findings, text and A2UI (tests/test_bigquery_demand.py).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent.analysis import sql_run
from agent.analysis.result import Scope
from agent.catalog.taxonomy import Taxonomy

# per offer its GTIN key and stock state; a table without a `gtin` column has no keys
_KEYED = {
    True: "SELECT NULLIF(LTRIM(REGEXP_REPLACE(gtin, r'[^0-9]', ''), '0'), '') AS g, st FROM offers WHERE gtin IS NOT NULL",
    False: "SELECT CAST(NULL AS STRING) AS g, st FROM offers WHERE FALSE",
}
_AGGREGATES = """,
spellings AS (
  SELECT b, LOWER(b) AS lb FROM (SELECT DISTINCT brand AS b FROM offers WHERE brand IS NOT NULL)
),
subs AS (SELECT s.gid AS gid, s.name AS name FROM UNNEST(@subs) AS s)
SELECT 'gtin' AS kind, g AS name, COUNTIF(st = 'in_stock') AS in_n, COUNTIF(st = 'out_of_stock') AS oos_n,
       COUNT(*) AS n
FROM keyed WHERE g IN UNNEST(@gtins) GROUP BY g
UNION ALL
SELECT 'brand', l.lb, 0, 0, COUNT(DISTINCT o.pk)
FROM offers AS o JOIN spellings AS l ON l.b = o.brand WHERE l.lb IN UNNEST(@brands) GROUP BY l.lb
UNION ALL
SELECT 'sub', m.name, 0, 0, COUNT(DISTINCT o.pk) FROM scoped AS o JOIN subs AS m ON m.gid = o.gid GROUP BY m.name
UNION ALL
SELECT 'total', NULL, 0, 0, COUNT(DISTINCT pk) FROM scoped
"""


def own_side(
    pushdown: Any,
    scope: Scope,
    taxonomy: Taxonomy,
    gtins: set[str],
    brands: set[str],
    subcategories: dict[int, str],
):
    """demand.OwnSide from BigQuery for these GTIN keys and lower-cased brands (module docstring)."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    from agent.analysis.demand import GTIN_STATE, OwnSide

    where, params = sql_run.scope_filter(scope, taxonomy, pushdown)
    has_gtin = "gtin" in pushdown.has
    columns = ["pk", "gid", "brand", "st"] + (["gtin"] if has_gtin else [])
    sql = sql_run.offers(columns, where) + ",\nkeyed AS (" + _KEYED[has_gtin] + ")" + _AGGREGATES
    subs = [
        StructQueryParameter(None, ScalarQueryParameter("gid", "INT64", gid), ScalarQueryParameter("name", "STRING", n))
        for gid, n in sorted(subcategories.items())
    ]
    params = [
        *params,
        sql_run.avail_param(),
        ArrayQueryParameter("gtins", "STRING", sorted(gtins)),
        ArrayQueryParameter("brands", "STRING", sorted(brands)),
        ArrayQueryParameter("subs", "STRUCT", subs),
    ]
    by_gtin: dict[str, str] = {}
    by_brand: dict[str, int] = {}
    per: Counter = Counter()
    products = 0
    for row in pushdown.query(sql, params):
        kind, name = row["kind"], row["name"]
        if kind == "gtin":
            state = "in_stock" if int(row["in_n"]) else ("out_of_stock" if int(row["oos_n"]) else "unknown")
            by_gtin[name] = GTIN_STATE.get(state, "stock unknown")
        elif kind == "brand" and int(row["n"]):
            by_brand[name] = int(row["n"])
        elif kind == "sub" and int(row["n"]):
            per[name] = int(row["n"])
        elif kind == "total":
            products = int(row["n"])
    notes = [note] if (note := sql_run.unplaced_note(pushdown, scope)) else []
    return OwnSide(by_gtin, by_brand, per, products, notes)
