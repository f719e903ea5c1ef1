"""catalog_overview's figures as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`figures(pushdown, scope, taxonomy)` returns the same `overview.Figures` the in-memory path computes
from the Arrow table, from five queries over the snapshot partition that each return aggregated rows
only (one row of totals, one per currency, one per price band, one per Google category id, the top
brands), so `overview.answer` builds the same table and findings either way.

Placement follows agent.analysis.gaps_sql (its docstring; the offer columns are agent.analysis.sql_run's): offers are grouped by the transfer's
`google_product_category` id; a scoped question keeps the ids of the scope's taxonomy subtree and
notes how many offers carry no id. Category labels are made in Python from the distinct ids (at most
the taxonomy's size, not the catalog's) with `common.taxonomy_label`, the in-memory rule; an offer
without an id is "Unmapped" here, where in memory its product type or title may still place it, and
the mapping section then counts it "not mapped". A transfer table has no status column: every offer
is active, as the in-memory Merchant Center reader reads a feed.

Exactness: COUNT(DISTINCT) for products and brands (brand trimmed, inner runs of spaces collapsed,
empty as none, as the catalog layer cleans it, and told apart by LOWER(brand) as common.brand_key
tells them apart in memory, each shown by its spelling on most products), the values at the sorted positions of the median and the
quartiles the price bands are cut near, interpolated as numpy.quantile does (sql_run.quantile_picks), and band counts with the same
half-open bounds. Ties in the top lists are broken by name in Python for categories (all ids come
back) and by `ORDER BY … LOWER(brand)` in SQL for brands (only the top three come back).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent.analysis import common
from agent.analysis.overview import MAX_CURRENCIES, TOP_BRANDS, TOP_CATEGORIES, Figures, PriceFigures
from agent.analysis.result import Scope
from agent.analysis.sql_run import QUANTILES, interpolate, offers, quantile_picks, scope_filter, unplaced_note
from agent.catalog.taxonomy import Taxonomy

_OFFERS = ("pk", "gid", "brand", "p", "cur")

_TOTALS = """
SELECT COUNT(*) AS rows_n, COUNT(DISTINCT pk) AS products_n, COUNT(DISTINCT LOWER(brand)) AS brands_n,
       COUNTIF(gid IS NOT NULL) AS mapped_n, COUNTIF(p > 0) AS priced_n, COUNTIF(p = 0) AS zero_n,
       COUNTIF(p < 0) AS negative_n, COUNTIF(p IS NULL) AS unpriced_n
FROM scoped
"""

_CURRENCIES = """,
priced AS (
  SELECT cur, p, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY p) - 1 AS r, COUNT(*) OVER (PARTITION BY cur) AS n
  FROM scoped WHERE p > 0
)
SELECT cur, COUNT(*) AS n, MIN(p) AS lo, MAX(p) AS hi, {picks}
FROM priced GROUP BY cur
""".replace("{picks}", quantile_picks("r", "n", "p", QUANTILES))

# Bands as (currency key, band index, lower inclusive, upper exclusive or NULL); '' is "no currency".
_BANDS = """,
bands AS (SELECT b.cur AS cur, b.i AS i, b.lo AS lo, b.hi AS hi FROM UNNEST(@bands) AS b)
SELECT b.cur AS cur, b.i AS i, COUNT(*) AS n
FROM scoped AS s JOIN bands AS b ON COALESCE(s.cur, '') = b.cur
WHERE s.p > 0 AND s.p >= b.lo AND (b.hi IS NULL OR s.p < b.hi)
GROUP BY b.cur, b.i
"""

_CATEGORY_IDS = "SELECT gid, COUNT(*) AS n FROM scoped GROUP BY gid"

_CATEGORIES = """,
labels AS (SELECT l.gid AS gid, l.label AS label FROM UNNEST(@labels) AS l)
SELECT label, COUNT(DISTINCT pk) AS n
FROM (SELECT COALESCE(l.label, @unmapped) AS label, s.pk AS pk FROM scoped AS s LEFT JOIN labels AS l ON s.gid = l.gid)
GROUP BY label
"""

# The top brands by LOWER(brand) (common.brand_key), ties by that key, and the products per spelling of
# each, for the name it is shown by (common.shown_brand).
_BRANDS = f""",
top AS (
  SELECT LOWER(brand) AS k, COUNT(DISTINCT pk) AS n FROM scoped WHERE brand IS NOT NULL
  GROUP BY k ORDER BY n DESC, k LIMIT {TOP_BRANDS}
)
SELECT 'top' AS kind, k, CAST(NULL AS STRING) AS brand, n FROM top
UNION ALL
SELECT 'spelling', LOWER(s.brand), s.brand, COUNT(DISTINCT s.pk)
FROM scoped AS s JOIN top AS t ON LOWER(s.brand) = t.k GROUP BY s.brand
"""


def figures(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> Figures:
    """The scope's overview figures from BigQuery (see the module docstring for what is grouped and how)."""
    where, params = scope_filter(scope, taxonomy, pushdown)
    head = offers(_OFFERS, where)

    def query(tail: str, extra: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return pushdown.query(head + tail, [*params, *extra])

    totals = query(_TOTALS)[0]
    rows_n, mapped_n = int(totals["rows_n"]), int(totals["mapped_n"])
    currencies = query(_CURRENCIES)
    currencies.sort(key=lambda c: (c["cur"] is None, -int(c["n"]), c["cur"] or ""))  # common.price_groups' order
    prices = _prices(query, currencies[:MAX_CURRENCIES])
    categories_n, top_categories = _categories(query, totals, scope, taxonomy) if rows_n else (0, [])
    top_brands = _top_brands(query(_BRANDS)) if rows_n else []
    note = unplaced_note(pushdown, scope)
    return Figures(
        rows_n=rows_n,
        products_all=int(totals["products_n"]),
        analysed=rows_n,
        products_n=int(totals["products_n"]),
        categories_n=categories_n,
        brands_n=int(totals["brands_n"]),
        statuses={"active": rows_n},
        off_store=None,
        excluded={},
        mappings={"google_category": mapped_n, "unmapped": rows_n - mapped_n} if rows_n else {},
        prices=prices,
        currencies_n=len(currencies),
        counts={
            "priced_n": int(totals["priced_n"]),
            "zero_n": int(totals["zero_n"]),
            "negative_n": int(totals["negative_n"]),
            "unpriced_n": int(totals["unpriced_n"]),
        },
        top_categories=top_categories,
        top_brands=top_brands,
        no_currency=bool(currencies) and all(c["cur"] is None for c in currencies),
        notes=[note] if note else [],
    )


def _top_brands(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(shown name, products) of the top brands, most first and ties by key, as the in-memory path ranks them."""
    spellings: dict[str, dict[str, int]] = {}
    for r in rows:
        if r["kind"] == "spelling":
            spellings.setdefault(r["k"], {})[r["brand"]] = int(r["n"])
    top = sorted(((r["k"], int(r["n"])) for r in rows if r["kind"] == "top"), key=lambda kn: (-kn[1], kn[0]))
    return [(common.shown_brand(spellings[k]), n) for k, n in top]


# A query over the scoped offers: (tail after the shared head, extra parameters) -> rows.
_Query = Callable[[str, Sequence[Any]], list[dict[str, Any]]]


def _prices(query: _Query, shown: list[dict[str, Any]]) -> list[PriceFigures]:
    """Each shown currency's price figures: its bands cut near the quartiles as the in-memory overview
    cuts them (common.nice_number, common.band_labels), counted in one query of every band."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    cut_bands = {}
    for c in shown:
        cuts = sorted({common.nice_number(_quantile(c, q)) for q in QUANTILES})
        cuts = [x for x in cuts if float(c["lo"]) < x <= float(c["hi"])]
        cut_bands[c["cur"] or ""] = common.band_labels(cuts, c["cur"])
    counted: dict[tuple[str, int], int] = {}
    if cut_bands:
        band_param = ArrayQueryParameter(
            "bands",
            "STRUCT",
            [
                StructQueryParameter(
                    None,
                    ScalarQueryParameter("cur", "STRING", cur),
                    ScalarQueryParameter("i", "INT64", i),
                    ScalarQueryParameter("lo", "FLOAT64", lo),
                    ScalarQueryParameter("hi", "FLOAT64", None if hi == float("inf") else hi),
                )
                for cur, bands in cut_bands.items()
                for i, (_, lo, hi) in enumerate(bands)
            ],
        )
        counted = {(r["cur"], int(r["i"])): int(r["n"]) for r in query(_BANDS, [band_param])}
    return [
        PriceFigures(
            currency=c["cur"],
            variants=int(c["n"]),
            low=float(c["lo"]),
            median=_quantile(c, 0.5),
            high=float(c["hi"]),
            bands=[
                (label, counted.get((c["cur"] or "", i), 0))
                for i, (label, _, _) in enumerate(cut_bands[c["cur"] or ""])
            ],
        )
        for c in shown
    ]


def _categories(
    query: _Query, totals: dict[str, Any], scope: Scope, taxonomy: Taxonomy
) -> tuple[int, list[tuple[str, int]]]:
    """(how many categories, the top ones by product with ties by name) of a scope with offers: labels
    made in Python from the distinct Google category ids (common.taxonomy_label, the in-memory rule),
    products counted per label in SQL; offers without an id are "Unmapped"."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    ids = [int(r["gid"]) for r in query(_CATEGORY_IDS, ()) if r["gid"] is not None]
    labels = {gid: common.taxonomy_label(gid, scope, taxonomy) for gid in ids}
    # "Unmapped" (offers without an id) is no category: counted as overview._categories_n counts
    categories_n = len(set(labels.values()) - {common.UNMAPPED_LABEL})
    if labels:
        label_param = ArrayQueryParameter(
            "labels",
            "STRUCT",
            [
                StructQueryParameter(
                    None, ScalarQueryParameter("gid", "INT64", gid), ScalarQueryParameter("label", "STRING", label)
                )
                for gid, label in labels.items()
            ],
        )
        unmapped = ScalarQueryParameter("unmapped", "STRING", common.UNMAPPED_LABEL)
        per_label = query(_CATEGORIES, [label_param, unmapped])
    else:  # no offer carries a Google category id: one "Unmapped" category of every product
        per_label = [{"label": common.UNMAPPED_LABEL, "n": totals["products_n"]}]
    ranked = sorted(((r["label"], int(r["n"])) for r in per_label), key=lambda x: (-x[1], x[0]))
    return categories_n, ranked[:TOP_CATEGORIES]


def _quantile(row: dict[str, Any], q: float) -> float:
    """np.quantile's value (the in-memory overview's rule) from the picked neighbours."""
    value = interpolate(row, q, numpy_rule=True)
    assert value is not None  # a currency row has at least one priced variant
    return value
