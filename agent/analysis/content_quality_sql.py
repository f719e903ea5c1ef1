"""content_quality's checks as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`figures(pushdown, scope, taxonomy)` returns the rows the in-memory path builds (`content_quality._rows`:
completeness, the failing checks, Merchant Center's verdicts, completeness per category) from a few
queries that return aggregated rows only: one of totals per check, one of example ids per check, one
per Google category id, and, when the table has them, one per disapproving destination and one per
item issue code. `content_quality.answer` then builds the same table and findings either way.

Each check in the catalog layer's terms, per offer (the offer columns are agent.analysis.sql_run's):
- title and GTIN trimmed, empty as none; a description blank when only whitespace; lengths in
  characters (LENGTH), the title's after trimming, the description's as written;
- a GTIN is valid with 8, 12, 13 or 14 digits and the right check digit (left-padded to 14: the odd
  positions weigh 3), as content_quality.gtin_valid checks it;
- duplicate variant ids by a window count; the transfer has no SKU, so "Duplicate SKU" never fails
  (in memory the Merchant Center reader leaves `sku` empty too);
- "Not mapped to a Google category" is an offer without `google_product_category` (placement is
  gaps_sql's decision: in memory the title or product type may still place it);
- a sale price at or above the price fails (a transfer has no compare-at price).
- completeness is counted with and without the GTIN checks in the same pass, and the totals' missing
  GTIN count decides which is shown, as in memory (content_quality.counts_gtin).

Fields absent from the export (content_quality.FIELD_CHECKS): none here. The SQL reads Merchant Center's
`Products_` transfer, whose schema always has title, description, brand, GTIN, image link and price, and
its in-memory read lists none absent either, so both paths run every check.

Examples: a BigQuery table has no row order, so both paths show the smallest ids
(content_quality.examples_by_id); SQL ranks the distinct ids per check and returns three each.
Merchant Center rows count offer rows (each offer's distinct keys first, so a destination listed twice
counts once; no id is assumed unique) and follow
agent.catalog.mc_status: a destination disapproves an offer when its `disapproved_countries` is not
empty or its status says so; item issues are counted by code, the TOP_ISSUES most common kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.analysis import common
from agent.analysis.content_quality import (
    CHECKS,
    EXAMPLES,
    MAX_DESCRIPTION,
    MAX_TITLE,
    MC_DESTINATION,
    MC_DISAPPROVED,
    MC_ISSUE,
    REQUIRED,
    SEVERITY_RANK,
    TOP_ISSUES,
    counts_gtin,
    join_examples,
    mc_row,
    required_checks,
)
from agent.analysis.result import Scope
from agent.analysis.sql_run import offers, scope_filter, unplaced_note
from agent.catalog.taxonomy import Taxonomy

_COLUMNS = ("pk", "ident", "vid", "gid", "p", "cur", "brand", "title", "description", "image", "gtin", "sale")
# The transfer columns these queries read beyond the pushdown's own (the cap is checked on them too).
READS = ("title", "description", "image_link", "gtin", "sale_price", "destinations", "issues")

_PADDED = "LPAD(gtin, 14, '0')"
_CHECK_SUM = " + ".join(
    f"SAFE_CAST(SUBSTR({_PADDED}, {position}, 1) AS INT64) * {3 if position % 2 else 1}" for position in range(1, 14)
)
_GTIN_OK = (
    f"(LENGTH(gtin) IN (8, 12, 13, 14) AND REGEXP_CONTAINS(gtin, r'^[0-9]+$') "
    f"AND MOD(10 - MOD({_CHECK_SUM}, 10), 10) = SAFE_CAST(SUBSTR(gtin, LENGTH(gtin), 1) AS INT64))"
)
# blank = only whitespace: a pattern, not TRIM (the emulator's TRIM strips spaces only, not tabs)
_BLANK_DESCRIPTION = "(description IS NULL OR NOT REGEXP_CONTAINS(description, r'\\S'))"
# check id -> SQL over the scoped offer columns (true = the offer fails it); content_quality.failures
_FAILS = {
    "missing_title": "title IS NULL",
    "missing_image": "image IS NULL",
    "zero_price": "(p IS NULL OR p <= 0)",
    "invalid_gtin": f"(gtin IS NOT NULL AND NOT {_GTIN_OK})",
    "duplicate_sku": "FALSE",
    "duplicate_variant_id": "(vid IS NOT NULL AND COUNT(*) OVER (PARTITION BY vid) > 1)",
    "missing_description": _BLANK_DESCRIPTION,
    "missing_brand": "brand IS NULL",
    # no identifier_exists exemption: the transfer's Products_ table has no such column (the note at
    # agent.catalog.bigquery.PRODUCTS_FLAT cites Google's schema page), and the in-memory read of the
    # same table has none either
    "missing_gtin": "gtin IS NULL",
    "missing_category": "gid IS NULL",
    "long_title": f"COALESCE(LENGTH(title), 0) > {MAX_TITLE}",
    "sale_not_below_regular": "COALESCE(sale >= p, FALSE)",
    "long_description": f"COALESCE(LENGTH(description), 0) > {MAX_DESCRIPTION}",
}
_CHECKED = (
    ",\nchecked AS (SELECT pk, ident, gid, cur, "
    + ", ".join(f"{sql} AS {check_id}" for check_id, sql in _FAILS.items())
    + " FROM scoped),\nflagged AS (SELECT *, ("
    + " OR ".join(REQUIRED)
    + ") AS incomplete, ("
    + " OR ".join(required_checks(frozenset(), with_gtin=False))
    + ") AS incomplete_without_gtin FROM checked)\n"
)
_TOTALS = (
    "SELECT COUNT(*) AS rows_n, COUNTIF(incomplete) AS bad_n, COUNTIF(incomplete_without_gtin) AS bad_without_gtin_n, "
    "COUNT(DISTINCT cur) AS curs_n, MIN(cur) AS cur, "
    + ", ".join(f"COUNTIF({c}) AS {c}_n, COUNT(DISTINCT IF({c}, pk, NULL)) AS {c}_p" for c in _FAILS)
    + " FROM flagged"
)
# The EXAMPLES smallest distinct ids per key: `pairs` is (k, ident) rows.
_RANKED = f""",
ranked AS (SELECT k, ident, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ident) AS n
           FROM (SELECT DISTINCT k, ident FROM pairs WHERE ident IS NOT NULL))
SELECT k, ident FROM ranked WHERE n <= {EXAMPLES} ORDER BY k, n
"""
_EXAMPLES = (
    ",\npairs AS ("
    + " UNION ALL ".join(f"SELECT '{c}' AS k, ident FROM flagged WHERE {c}" for c in _FAILS)
    + ")"
    + _RANKED
)
_CATEGORIES = (
    "SELECT gid, COUNT(*) AS n, COUNTIF(incomplete) AS bad, COUNTIF(incomplete_without_gtin) AS bad_without_gtin "
    "FROM flagged GROUP BY gid"
)
# Merchant Center: per offer its distinct disapproving destinations / issue codes (`ks`), then one
# (k, pk, ident) row per offer and key: rows are counted as rows, never by an id that may repeat.
_DISAPPROVED = """,
keyed AS (
  SELECT s.pk AS pk, s.ident AS ident,
         ARRAY(SELECT DISTINCT TRIM(d.name) FROM UNNEST(s.destinations) AS d
               WHERE (LOWER(TRIM(d.status)) = 'disapproved' OR ARRAY_LENGTH(d.disapproved_countries) > 0)
                 AND NULLIF(TRIM(d.name), '') IS NOT NULL) AS ks
  FROM scoped AS s
),
per AS (SELECT k, pk, ident FROM keyed, UNNEST(ks) AS k)"""
_ISSUES = """,
keyed AS (
  SELECT s.pk AS pk, s.ident AS ident,
         ARRAY(SELECT DISTINCT TRIM(i.code) FROM UNNEST(s.issues) AS i WHERE NULLIF(TRIM(i.code), '') IS NOT NULL) AS ks
  FROM scoped AS s
),
per AS (SELECT k, pk, ident FROM keyed, UNNEST(ks) AS k)"""
_PER_KEY = """
SELECT k, COUNT(*) AS rows_n, COUNT(DISTINCT pk) AS products_n FROM per GROUP BY k
UNION ALL SELECT NULL AS k, COUNTIF(ARRAY_LENGTH(ks) > 0) AS rows_n,
                 COUNT(DISTINCT IF(ARRAY_LENGTH(ks) > 0, pk, NULL)) AS products_n FROM keyed
"""
_PER_KEY_EXAMPLES = (
    ",\npairs AS (SELECT k, ident FROM per UNION ALL SELECT '' AS k, ident FROM keyed WHERE ARRAY_LENGTH(ks) > 0)"
    + _RANKED
)


@dataclass
class Pushed:
    """What the SQL path gives content_quality.answer: the rows, the one currency, the notes."""

    rows: list[dict[str, Any]]
    currency: str | None
    notes: list[str] = field(default_factory=list)


def figures(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> Pushed:
    """The scope's content_quality rows from BigQuery (the module docstring says how each is computed)."""
    where, params = scope_filter(scope, taxonomy, pushdown)
    extra = tuple(c for c in ("destinations", "issues") if c in pushdown.has)
    head = offers((*_COLUMNS, *extra), where)

    def query(tail: str) -> list[dict[str, Any]]:
        return pushdown.query(head + tail, params, reads=READS)

    totals = query(_CHECKED + _TOTALS)[0]
    rows_n = int(totals["rows_n"])
    note = unplaced_note(pushdown, scope)
    if not rows_n:
        return Pushed([], None, [note] if note else [])
    examples = _examples(query(_CHECKED + _EXAMPLES))
    with_gtin = counts_gtin(rows_n, int(totals["missing_gtin_n"]))
    bad = "bad" if with_gtin else "bad_without_gtin"
    complete_n = rows_n - int(totals[bad + "_n"])
    rows = [
        {
            "Section": "Completeness",
            "Item": "Rows complete for Google Shopping",
            "Affected rows": rows_n - complete_n,
            "Affected products": None,
            "Share of rows": None,
            "Complete": common.pct(complete_n, rows_n),
            "_without_gtin": not with_gtin,
        },
        *_check_rows(totals, examples, rows_n),
        *_merchant_center_rows(query, extra, rows_n),
        *_category_rows(query(_CHECKED + _CATEGORIES), scope, taxonomy, bad),
    ]
    currency = totals["cur"] if int(totals["curs_n"]) == 1 else None
    return Pushed(rows, currency, [note] if note else [])


def _examples(found: list[dict[str, Any]]) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for row in found:
        out.setdefault(row["k"], []).append(str(row["ident"]))
    return {key: joined for key, ids in out.items() if (joined := join_examples(ids))}


def _check_rows(totals: dict[str, Any], examples: dict[str, str], rows_n: int) -> list[dict[str, Any]]:
    """content_quality._check_rows' rows from the totals query."""
    checks: list[dict[str, Any]] = [
        {
            "Section": "Check",
            "Item": label,
            "Severity": severity,
            "Affected rows": int(totals[f"{check_id}_n"]),
            "Affected products": int(totals[f"{check_id}_p"]),
            "Share of rows": common.pct(int(totals[f"{check_id}_n"]), rows_n),
            "Examples": examples.get(check_id),
            "_id": check_id,
        }
        for check_id, label, severity in CHECKS
        if int(totals[f"{check_id}_n"])
    ]
    checks.sort(key=lambda r: (-SEVERITY_RANK[r["Severity"]], -r["Affected rows"]))
    return checks


def _merchant_center_rows(query, extra: tuple[str, ...], rows_n: int) -> list[dict[str, Any]]:
    """content_quality._merchant_center_rows' rows: disapprovals (anywhere, per destination), then the
    most common item issues; none for a table without the records."""
    rows: list[dict[str, Any]] = []
    for record, per, label, severity, limit in (
        ("destinations", _DISAPPROVED, MC_DESTINATION, "high", None),
        ("issues", _ISSUES, MC_ISSUE, "medium", TOP_ISSUES),
    ):
        if record not in extra:
            continue
        counted = query(per + _PER_KEY)
        examples = _examples(query(per + _PER_KEY_EXAMPLES))
        if record == "destinations":
            whole = next(r for r in counted if r["k"] is None)
            rows.append(
                mc_row(
                    MC_DISAPPROVED, severity, int(whole["rows_n"]), int(whole["products_n"]), rows_n, examples.get("")
                )
            )
        keyed = sorted((r for r in counted if r["k"] is not None), key=lambda r: (-int(r["rows_n"]), r["k"]))[:limit]
        rows += [
            mc_row(label.format(r["k"]), severity, int(r["rows_n"]), int(r["products_n"]), rows_n, examples.get(r["k"]))
            for r in keyed
        ]
    return rows


def _category_rows(per_gid: list[dict[str, Any]], scope: Scope, taxonomy: Taxonomy, bad: str) -> list[dict[str, Any]]:
    """content_quality._category_rows' rows: offers and incomplete offers summed per display label
    (`bad`: the incomplete count to take, with or without the GTIN checks: content_quality.counts_gtin)."""
    totals: dict[str, list[int]] = {}
    for row in per_gid:
        gid = row["gid"]
        label = common.UNMAPPED_LABEL if gid is None else common.taxonomy_label(int(gid), scope, taxonomy)
        counts = totals.setdefault(label, [0, 0])
        counts[0] += int(row["n"])
        counts[1] += int(row[bad])
    ordered = sorted(totals.items(), key=lambda kv: (common.pct(kv[1][0] - kv[1][1], kv[1][0]), -kv[1][1], kv[0]))
    return [  # least complete first, then most rows to fix, as in memory
        {
            "Section": "Completeness by category",
            "Item": label,
            "Affected rows": bad,
            "Complete": common.pct(n - bad, n),
        }
        for label, (n, bad) in ordered
    ]
