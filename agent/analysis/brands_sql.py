"""brand_coverage's counting as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`own_aggregates(pushdown, scope, taxonomy)` returns the same `brands.BrandAggregates` the in-memory
path counts from the Arrow table — distinct products per display category, per (category, brand),
per brand over the scope, in the scope, and with a variant that names no brand — from one query of
aggregated rows (plus the distinct category ids, to label them), so `brands._rows` builds the same
table and findings either way.

Brands are cleaned as the catalog layer cleans them (sql_run.OFFER_COLUMNS["brand"]); categories are
labelled per Google category id with the in-memory rule (sql_run.label_params) and the placement
decision of agent.analysis.gaps_sql applies (an offer without an id is "Unmapped"; a scoped question
notes how many offers it could not place). A reference catalog is read in memory as usual.

Brands are told apart as the in-memory path tells them (common.brand_key): by LOWER(brand), so
"SWIMINISTA" and "Swiminista" are one brand; each is shown by its spelling on most products
(common.shown_brand), from one more kind of row, the products per spelling.

Rows come back per (category, brand) pair: as many as the catalog has distinct pairs, not offers.
"""

from __future__ import annotations

from typing import Any

from agent.analysis.brands import BrandAggregates, BrandCounts
from agent.analysis.common import shown_brand
from agent.analysis.result import Scope
from agent.analysis.sql_run import LABELLED, label_params, offers, scope_filter
from agent.catalog.taxonomy import Taxonomy

_OFFERS = ("pk", "gid", "brand")

_COUNTS = """,
keyed AS (SELECT pk, c, brand, LOWER(brand) AS bk FROM labelled)
SELECT 'pair' AS kind, c, bk AS brand, COUNT(DISTINCT pk) AS n FROM keyed GROUP BY c, bk
UNION ALL SELECT 'category', c, NULL, COUNT(DISTINCT pk) FROM keyed GROUP BY c
UNION ALL SELECT 'brand', NULL, bk, COUNT(DISTINCT pk) FROM keyed WHERE bk IS NOT NULL GROUP BY bk
UNION ALL SELECT 'spelling', bk, brand, COUNT(DISTINCT pk) FROM keyed WHERE bk IS NOT NULL GROUP BY bk, brand
UNION ALL SELECT 'scope', NULL, NULL, COUNT(DISTINCT pk) FROM keyed
UNION ALL SELECT 'without', NULL, NULL, COUNT(DISTINCT pk) FROM keyed WHERE bk IS NULL
"""


def own_aggregates(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> BrandAggregates:
    """The scope's brand counts from BigQuery (see the module docstring for what is counted and how)."""
    from agent.analysis.sql_run import unplaced_note

    where, params = scope_filter(scope, taxonomy, pushdown)
    head = offers(_OFFERS, where)
    params = [*params, *label_params(pushdown, head, params, scope, taxonomy)]
    rows = pushdown.query(head + LABELLED + _COUNTS, params)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_kind.setdefault(row["kind"], []).append(row)
    totals = {r["c"]: int(r["n"]) for r in by_kind.get("category", [])}
    spellings: dict[str, dict[str, int]] = {}
    for r in by_kind.get("spelling", []):
        spellings.setdefault(r["c"], {})[r["brand"]] = int(r["n"])
    shown = {key: shown_brand(names) for key, names in spellings.items()}
    pairs = [(r["c"], None if r["brand"] is None else shown[r["brand"]], int(r["n"])) for r in by_kind.get("pair", [])]
    note = unplaced_note(pushdown, scope)
    return BrandAggregates(
        counts=BrandCounts.from_pairs(totals, pairs),
        scope_brands={shown[r["brand"]]: int(r["n"]) for r in by_kind.get("brand", [])},
        products=sum(int(r["n"]) for r in by_kind.get("scope", [])),
        without=sum(int(r["n"]) for r in by_kind.get("without", [])),
        notes=[note] if note else [],
    )
