"""availability's counting as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`own_counts(pushdown, scope, taxonomy)` returns the same `availability.StockCounts` the in-memory path
counts from the Arrow table — per display category the products, variants and variants out of stock, on
backorder, on preorder and of unknown stock; the products fully out (per the product's first category
by name) and the example titles in the order StockCounts' docstring states — from two queries of
aggregated rows (plus the distinct category ids, to label them), so `availability._rows` builds the
same table and findings either way.

Stock states: the availability word cleaned and mapped as the catalog layer maps it (sql_run's `st`,
once per distinct word); a transfer table has no quantity, so a variant without a known word is of
unknown stock, as in memory. Titles are cleaned as the catalog layer cleans free text (trimmed, empty
as none). Categories and placement as in agent.analysis.brands_sql.
"""

from __future__ import annotations

from typing import Any

from agent.analysis.availability import EXAMPLES, StockCounts
from agent.analysis.result import Scope
from agent.analysis.sql_run import LABELLED, avail_param, label_params, offers, scope_filter, unplaced_note
from agent.catalog.taxonomy import Taxonomy

_OFFERS = ("pk", "gid", "st", "title")

_CATEGORIES = """
SELECT FALSE AS total, c, COUNT(DISTINCT pk) AS products, COUNT(*) AS variants,
       COUNTIF(st = 'out_of_stock') AS oos, COUNTIF(st = 'backorder') AS backorder,
       COUNTIF(st = 'preorder') AS preorder, COUNTIF(st IS NULL OR st = 'unknown') AS unknown,
       COUNTIF(st IS NOT NULL AND st != 'unknown') AS stated
FROM labelled GROUP BY c
UNION ALL
SELECT TRUE, NULL, COUNT(DISTINCT pk), COUNT(*), NULL, NULL, NULL, NULL,
       COUNTIF(st IS NOT NULL AND st != 'unknown')
FROM labelled
"""

# per product: its first category by name, variants, variants out, first title; then the fully-out
# counts per category and the example titles (a title once per category, at its best key)
_PRODUCTS = f""",
per_product AS (
  SELECT pk, MIN(c) AS c, COUNT(*) AS n, COUNTIF(st = 'out_of_stock') AS oos, MIN(title) AS title
  FROM labelled GROUP BY pk
),
best AS (
  SELECT c, title, MAX(IF(oos = n, 1, 0) * 1099511627776 + oos) AS k
  FROM per_product WHERE oos > 0 AND title IS NOT NULL GROUP BY c, title
),
ranked AS (SELECT c, title, ROW_NUMBER() OVER (PARTITION BY c ORDER BY k DESC, title) AS r FROM best)
SELECT 'fully' AS kind, c, NULL AS title, COUNT(*) AS n FROM per_product WHERE oos = n AND oos > 0 GROUP BY c
UNION ALL
SELECT 'example', c, title, r FROM ranked WHERE r <= {EXAMPLES + 1}
"""


def own_counts(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> StockCounts:
    """The scope's stock counts from BigQuery (see the module docstring for what is counted and how)."""
    where, params = scope_filter(scope, taxonomy, pushdown)
    head = offers(_OFFERS, where)
    params = [avail_param(), *params]
    params += label_params(pushdown, head, params, scope, taxonomy)
    rows = pushdown.query(head + LABELLED + _CATEGORIES, params)
    total = next((r for r in rows if r["total"]), None)
    if total is None or not int(total["variants"]):
        return StockCounts([], 0, {}, {}, 0, 0, False, _notes(pushdown, scope))
    names = ("products", "variants", "oos", "backorder", "preorder", "unknown")
    by_category = [{"c": r["c"], **{k: int(r[k]) for k in names}} for r in rows if not r["total"]]
    fully_by_cat: dict[str, int] = {}
    ranked: list[tuple[str, int, str]] = []
    for r in pushdown.query(head + LABELLED + _PRODUCTS, params):
        if r["kind"] == "fully":
            fully_by_cat[r["c"]] = int(r["n"])
        else:
            ranked.append((r["c"], int(r["n"]), r["title"]))
    examples: dict[str, list[str]] = {}
    for category, _, title in sorted(ranked):
        examples.setdefault(category, []).append(title)
    return StockCounts(
        by_category=by_category,
        fully_n=sum(fully_by_cat.values()),
        fully_by_cat=fully_by_cat,
        examples=examples,
        products=int(total["products"]),
        variants=int(total["variants"]),
        has_stock=bool(int(total["stated"])),
        notes=_notes(pushdown, scope),
    )


def _notes(pushdown: Any, scope: Scope) -> list[str]:
    note = unplaced_note(pushdown, scope)
    return [note] if note else []
