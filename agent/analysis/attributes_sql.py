"""attribute_coverage's counts as SQL in BigQuery: the pushdown path above BIGQUERY_IN_MEMORY_BYTES.

`figures(pushdown, scope, taxonomy)` returns (rows analysed, one `attributes.Distribution` per
attribute, notes) from one query that returns a row per distinct stored value of `color`, `material`
and `size` with its offers, plus the count of offers in scope. The values are normalised in Python by
the in-memory path's own functions (`attributes.tally`: written form, case, spacing, spelling
variants), once per distinct value, so both paths merge, count and show values alike; grouping by the
stored value sends nothing per row through a string function in BigQuery.

A transfer table has no option columns (a Merchant Center feed names colour, material and size as
attributes of their own), so the three rows are Colour, Material and Size, as the in-memory reader
gives them. Placement and scope are gaps_sql's (its docstring); a scoped answer notes the offers
without a Google category, which SQL cannot place. A reference catalog is read in memory as usual.
"""

from __future__ import annotations

from typing import Any

from agent.analysis.attributes import ATTRIBUTES, Distribution, tally
from agent.analysis.result import Scope
from agent.analysis.sql_run import offers, scope_filter, unplaced_note
from agent.catalog.taxonomy import Taxonomy

READS = tuple(column for _, column, _ in ATTRIBUTES)


def figures(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> tuple[int, list[tuple[str, Distribution]], list[str]]:
    """(offers in scope, [(attribute label, Distribution)], notes) from BigQuery."""
    where, params = scope_filter(scope, taxonomy)
    columns = ("gid", *(column for column in READS if column in pushdown.has))
    counted = pushdown.query(offers(columns, where) + _values_query(columns), params, reads=READS)
    total = sum(int(r["n"]) for r in counted if r["a"] == "total")
    per: dict[str, list[tuple[str | None, int]]] = {column: [] for column in READS}
    for r in counted:
        if r["a"] != "total":
            per[r["a"]].append((r["v"], int(r["n"])))
    note = unplaced_note(pushdown, scope)
    found = [(label, tally(per[column])) for label, column, _ in ATTRIBUTES]
    return total, found, [note] if note else []


def _values_query(columns: tuple[str, ...]) -> str:
    """The counting query over the attribute columns the table has (a missing one counts nothing)."""
    present = [column for column in READS if column in columns]
    return "\n".join(
        ["SELECT 'total' AS a, CAST(NULL AS STRING) AS v, COUNT(*) AS n FROM scoped"]
        + [
            f"UNION ALL SELECT '{column}' AS a, {column} AS v, COUNT(*) AS n FROM scoped GROUP BY v"
            for column in present
        ]
    )
