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

"What sizes am I missing?" (`size_cells`, agent.analysis.size_runs for the rule) is one more query: a
row per (product, stored size value) with its offers, those out of stock and those with a stated
stock, and its least title (a product is named by its least, as in memory). That is per product, not
per distinct size, because the rule needs each product's own smallest and largest size; the rows are bounded by the scope's offers that have a size (and in practice by
products × their sizes). The stored values are normalised in Python as `tally` normalises them, and
each shown in its most common written form over the scope's sized offers, as in memory.
"""

from __future__ import annotations

from typing import Any

from agent.analysis.attributes import ATTRIBUTES, Distribution, _clean, _spell, _Vocab, _written, tally
from agent.analysis.result import Scope
from agent.analysis.sql_run import avail_param, offers, scope_filter, unplaced_note
from agent.catalog.taxonomy import Taxonomy

READS = tuple(column for _, column, _ in ATTRIBUTES)


def figures(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> tuple[int, list[tuple[str, Distribution]], list[str]]:
    """(offers in scope, [(attribute label, Distribution)], notes) from BigQuery."""
    where, params = scope_filter(scope, taxonomy, pushdown)
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


_SIZES = """SELECT pk, size AS v, COUNT(*) AS n, COUNTIF(st = 'out_of_stock') AS o,
  COUNTIF(st IN ('in_stock', 'out_of_stock', 'preorder', 'backorder')) AS k, MIN(title) AS t
FROM scoped WHERE size IS NOT NULL GROUP BY pk, v"""


def size_cells(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> tuple[list, list[str]]:
    """(size_runs cells, notes) from BigQuery: per (product, normalised size) its offers, those out of
    stock and those with a stated stock (the in-memory path: attributes.size_cells)."""
    import pyarrow as pa

    from agent.analysis.size_runs import STOCK_STATES, Cell

    assert "out_of_stock" in STOCK_STATES  # the states _SIZES counts, spelled as the catalog layer spells them
    if "size" not in pushdown.has:
        return [], []
    where, params = scope_filter(scope, taxonomy, pushdown)
    counted = pushdown.query(
        offers(("pk", "gid", "st", "size", "title"), where) + _SIZES,
        [avail_param(), *params],
        reads=("size", "availability", "title"),
    )
    stored = pa.array([r["v"] for r in counted], pa.string())
    written, spelled = _written(stored).to_pylist(), _spell(_clean(stored)).to_pylist()
    vocab = _Vocab()
    codes = [vocab.code(key, shown, int(r["n"])) for key, shown, r in zip(spelled, written, counted)]
    display = vocab.display()
    cells: dict[tuple, list[int]] = {}
    titles: dict[tuple, str] = {}  # the least title per cell; size_runs names a product by its least
    for code, r in zip(codes, counted):
        if code < 0:
            continue
        v = cells.setdefault((r["pk"], code), [0, 0, 0])
        v[0] += int(r["n"])
        v[1] += int(r["o"])
        v[2] += int(r["k"])
        if r["t"] is not None and ((r["pk"], code) not in titles or r["t"] < titles[(r["pk"], code)]):
            titles[(r["pk"], code)] = r["t"]
    note = unplaced_note(pushdown, scope)
    found = [Cell(p, vocab.values[c], display[c], n, o, k, titles.get((p, c))) for (p, c), (n, o, k) in cells.items()]
    return found, [note] if note else []
