"""Helpers every skill shares: the analysed population, the scope mask, result-table building.

Why here and not in each skill: the population rule (which statuses count) and the scope rule (which
rows belong to "outdoor furniture") must be identical across skills, or two answers in one turn would
disagree about the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis.result import UNIT_KEY, Scope
from agent.catalog.taxonomy import Taxonomy
from agent.catalog.values import entry_codes

# Statuses analysed by default. "unknown" stays in: feeds without a status column (Merchant Center,
# generic tables) are published listings; dropping them would empty most catalogs.
ANALYSED_STATUSES = ("active", "unknown")
EXCLUDED_STATUSES = ("draft", "archived")


@dataclass(frozen=True)
class Population:
    """The rows a skill analyses, and what was left out of them (always counted and said)."""

    table: pa.Table  # in scope and analysed status
    excluded: dict[str, int]  # status -> variant rows in scope excluded from the analysis
    in_scope_rows: int  # all statuses
    scoped: pa.Table | None = None  # in scope, all statuses (same columns as `table`): the left-out rows' source


def as_str(arr: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """Dictionary columns decoded to plain strings (compute kernels and group_by like them better)."""
    if pa.types.is_dictionary(arr.type):
        return arr.cast(pa.string())
    return arr


def encoded(arr) -> pa.DictionaryArray:
    """The column as one DictionaryArray (hash-encoded if it was plain), for per-distinct-value work."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    return arr


def value_counts(arr) -> dict:
    """{value: rows} over a (dictionary) column, nulls left out; counted on the integer indices."""
    import numpy as np

    d = encoded(arr)
    idx = d.indices.drop_null().to_numpy(zero_copy_only=False)
    if len(d.dictionary) == 0:
        return {}
    counts = np.bincount(idx, minlength=len(d.dictionary))
    out: dict = {}
    for value, n in zip(d.dictionary.to_pylist(), counts.tolist()):
        if n:
            out[value] = out.get(value, 0) + n
    return out


def map_values(arr, convert) -> pa.Array:
    """`convert` applied to each distinct value once, spread back to the rows: string work on 1M rows costs
    as much as on the few hundred distinct values (statuses, colours, categories)."""
    d = encoded(arr)
    return pc.take(convert(d.dictionary), d.indices)


def blank(arr: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Boolean: value missing, empty or only whitespace (utf8_is_space: no regex, no trimmed copies)."""
    if pa.types.is_dictionary(arr.type):
        return pc.fill_null(map_values(arr, blank), True)
    s = as_str(arr)
    if not (pa.types.is_string(s.type) or pa.types.is_large_string(s.type)):
        return pc.is_null(s)
    return pc.fill_null(pc.or_(pc.equal(pc.binary_length(s), 0), pc.utf8_is_space(s)), True)


def scope_ids(scope: Scope, taxonomy: Taxonomy) -> list[int]:
    """The taxonomy nodes of the scope (its roots) and every node under them."""
    from agent.analysis.scoping import subtree_ids

    return subtree_ids(scope, taxonomy)


def scope_mask(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> pa.Array | None:
    """Rows inside the scope: in its own categories, its taxonomy subtrees or named by its title noun
    (agent.analysis.scoping, computed once per table and scope). None means the whole catalog."""
    from agent.analysis.scoping import rows

    found = rows(table, scope, taxonomy)
    return None if found is None else found.mask


def rows_where(table: pa.Table, mask: pa.Array | pa.ChunkedArray) -> pa.Table:
    """The rows of `table` where `mask` is true, every column of the result in one chunk.

    Why not `Table.filter` alone: a table whose columns are chunked differently (a CSV catalog: the
    columns ingest rebuilds are one chunk, the ones kept as parsed one chunk per read block, 273 at
    5M rows) is first cut into record batches at every chunk boundary of every column, so the filter
    walks 273 batches × every column and hands back 273 mostly empty chunks per column, which every
    later step pays for again (5M CSV variants: 47 ms against 4 ms, and the scope's left-out count
    55 ms against 1 ms on a one-chunk result). So the one-chunk columns are filtered together
    (Arrow's table filter, on the machine's threads), the others each on its own and combined, and
    what follows does not depend on how the source was read."""
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks() if mask.num_chunks != 1 else mask.chunk(0)
    single = [c for c in table.column_names if table[c].num_chunks == 1]
    together = table.select(single).filter(mask) if single else None
    cols = []
    for name in table.column_names:
        if together is not None and name in single:
            col = together[name]
        else:
            col = table[name].filter(mask)
        cols.append(col.combine_chunks() if col.num_chunks != 1 else col.chunk(0))
    return pa.Table.from_arrays(cols, schema=table.schema)


def population(
    table: pa.Table,
    scope: Scope,
    taxonomy: Taxonomy,
    columns: Sequence[str] | None = None,
    scoped_on: pa.Table | None = None,
) -> Population:
    """In-scope rows with an analysed status; excluded statuses counted by variant row.

    `columns` (plus status) are the only ones carried into the filtered table: filtering a
    million-row table costs per column, and a skill reads a handful of the canonical columns. The
    scope mask is taken on the whole table first (its cached computation is shared by every skill).
    `scoped_on`: the whole table the mask is taken on when `table` is a slimmer one derived from it
    row for row (content_quality's): scoping reads columns such a table drops (own categories, the
    mapping method), so a scope taken on it would hold other rows than every other skill's.
    """
    mask = scope_mask(table if scoped_on is None else scoped_on, scope, taxonomy)
    if columns is not None:
        table = table.select(list(dict.fromkeys([*columns, "status"])))
    scoped = table if mask is None else rows_where(table, mask)
    excluded: dict[str, int] = {}
    if scoped.num_rows == 0:
        return Population(table=scoped, excluded=excluded, in_scope_rows=0, scoped=scoped)
    status = encoded(scoped["status"])
    counts = value_counts(status)
    for st in EXCLUDED_STATUSES:
        if counts.get(st):
            excluded[st] = int(counts[st])
    if not excluded:
        return Population(table=scoped, excluded=excluded, in_scope_rows=scoped.num_rows, scoped=scoped)
    import numpy as np

    # per distinct status, read off the index buffer (a null status is kept, as no status stated)
    kept = np.array([v not in EXCLUDED_STATUSES for v in as_str(status.dictionary).to_pylist()], dtype=bool)
    keep = pa.array(entry_codes(status, kept, missing=True))
    return Population(table=rows_where(scoped, keep), excluded=excluded, in_scope_rows=scoped.num_rows, scoped=scoped)


def count_products(table: pa.Table) -> int:
    """Distinct products: one comparison pass when keys come ascending (the catalog layer's layout),
    else a hash count."""
    import numpy as np

    if table.num_rows == 0:
        return 0
    pk = table["product_key"]
    pk_np = pk.combine_chunks() if isinstance(pk, pa.ChunkedArray) else pk
    if pk_np.null_count == 0:
        arr = pk_np.to_numpy(zero_copy_only=False)
        if bool(np.all(arr[1:] >= arr[:-1])):
            return int(np.count_nonzero(arr[1:] != arr[:-1]) + 1)
    return int(pc.count_distinct(pk).as_py())


def single_currency(table: pa.Table) -> str | None:
    """The one currency the data states for its prices, or None (absent or mixed)."""
    if table.num_rows == 0:
        return None
    values = list(value_counts(table["currency"]))
    return values[0] if len(values) == 1 else None


def field(name: str, typ: pa.DataType, unit: str) -> pa.Field:
    return pa.field(name, typ, metadata={UNIT_KEY: unit.encode()})


def build_table(columns: Sequence[tuple[str, str, pa.DataType]], rows: Iterable[Sequence[Any]]) -> pa.Table:
    """A result table from (name, unit, type) column specs and row tuples, units in field metadata."""
    rows = list(rows)
    schema = pa.schema([field(name, typ, unit) for name, unit, typ in columns])
    arrays = [pa.array([r[i] for r in rows], type=typ) for i, (_, _, typ) in enumerate(columns)]
    return pa.Table.from_arrays(arrays, schema=schema)


def records_table(
    columns: Sequence[tuple[str, str, pa.DataType]],
    rows: Sequence[dict[str, Any]],
    excluded: dict[str, int] | None = None,
) -> pa.Table:
    """A result table from dict rows keyed by column name (missing keys are nulls); with `excluded`, the
    left-out column is added on the totals row (see with_excluded)."""
    if excluded is not None:
        columns = with_excluded(tuple(columns), list(rows), excluded)
    return build_table(columns, [[r.get(c[0]) for c in columns] for r in rows])


def pct(part: float, whole: float) -> float | None:
    """A percentage rounded to one decimal, as shown; None when the whole is zero."""
    if not whole:
        return None
    return round(100.0 * part / whole, 1)


def money(value: float | None) -> float | None:
    return None if value is None else round(float(value), 2)


def taxonomy_note(scope: Scope, taxonomy: Taxonomy, leaves: int | None = None) -> str | None:
    """ "10 subcategories under Furniture > Outdoor Furniture" for the evidence footer's taxonomy line;
    a leaf scope reads "Furniture > … > Sunloungers (no subcategories)" rather than "0 subcategories"."""
    if scope.taxonomy_id is None:
        return None
    node = taxonomy.node(scope.taxonomy_id)
    if node is None:
        return None
    extra = [e for e in (taxonomy.node(i) for i in scope.extra_taxonomy_ids) if e is not None]
    n = (
        leaves
        if leaves is not None
        else len(taxonomy.descendants(node.id)) + sum(len(taxonomy.descendants(e.id)) for e in extra)
    )
    where = " and ".join([node.path] + [e.path for e in extra])
    if n == 0:
        return f"{where} (no subcategories)"
    word = "subcategory" if n == 1 else "subcategories"
    return f"{n} {word} under {where}"


UNMAPPED_LABEL = "Unmapped"
WHOLE_CATALOG_DEPTH = (
    4  # whole-catalog groupings stop at "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills"
)


def _merchant_categories(table: pa.Table) -> tuple[Any, list[str | None]]:
    """Per row, an index into the merchant's own category names (-1 none), and the names: the
    category path, or — where the row has none, or only the platform's "Uncategorized" — its product
    type. A Shopify shop that files everything by `Type` (a grocery's "Cans & Jars", "Sweets &
    Snacks") then shows those names for its unmapped rows, not one "Unmapped" holding 93% of it.
    Worked out on the two dictionaries and integer indices (no strings per row)."""
    import numpy as np

    from agent.catalog.readers.own_categories import is_placeholder

    path = encoded(table["category_path"])
    p_idx = pc.fill_null(path.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    names = as_str(path.dictionary).to_pylist()
    if "product_type" not in table.column_names or table["product_type"].null_count == table.num_rows:
        return p_idx, names
    bad = np.array([not n or is_placeholder(n) for n in names] + [True], dtype=bool)  # [-1] -> True
    no_path = bad[np.where(p_idx >= 0, p_idx, len(names))]
    if not no_path.any():
        return p_idx, names
    typ = encoded(table["product_type"])
    t_idx = pc.fill_null(typ.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    t_names = as_str(typ.dictionary).to_pylist()
    t_bad = np.array([not n or is_placeholder(n) for n in t_names] + [True], dtype=bool)
    use_type = no_path & ~t_bad[np.where(t_idx >= 0, t_idx, len(t_names))]
    return np.where(use_type, len(names) + t_idx, p_idx), names + t_names


def category_labels(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> pa.DictionaryArray:
    """One display category per row, for per-category tables, as a DictionaryArray (no strings per row).

    Inside a taxonomy scope: the row's own node, named relative to the scope ("Outdoor Seating >
    Sunloungers"); for the whole catalog: the taxonomy path cut at WHOLE_CATALOG_DEPTH levels. Unmapped
    rows carry their merchant category (else their product type) with "(unmapped)", or "Unmapped" (also
    when that category is the platform's "Uncategorized" placeholder). Labels are computed once per
    distinct (taxonomy id or merchant category) key, then spread to rows by integer index.
    """
    import numpy as np

    from agent.catalog.readers.own_categories import is_placeholder

    n = table.num_rows
    if n == 0:
        return pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    ids = table["google_category_id"]
    ids_np = (
        pc.fill_null(ids, -1).to_numpy().astype(np.int64)
        if isinstance(ids, pa.Array)
        else pc.fill_null(ids, -1).combine_chunks().to_numpy(zero_copy_only=False).astype(np.int64)
    )
    m_idx, merchant_names = _merchant_categories(table)
    key = np.where(ids_np >= 0, ids_np, -(m_idx + 2))
    enc = pc.dictionary_encode(pa.array(key))
    uniq = enc.dictionary.to_pylist()
    labels: list[str] = []
    for k in uniq:
        if k == -1:
            labels.append(UNMAPPED_LABEL)
        elif k < -1 and not is_placeholder(merchant_names[-k - 2]):
            labels.append(f"{merchant_names[-k - 2]} (unmapped)")
        elif k < -1:  # the platform's "Uncategorized" is no category: such rows have none of their own
            labels.append(UNMAPPED_LABEL)
        else:
            labels.append(taxonomy_label(k, scope, taxonomy))
    distinct = list(dict.fromkeys(labels))
    pos = {label: i for i, label in enumerate(distinct)}
    remap = pa.array([pos[label] for label in labels], pa.int32())
    return pa.DictionaryArray.from_arrays(pc.take(remap, enc.indices), pa.array(distinct, pa.string()))


def taxonomy_label(gid: int, scope: Scope, taxonomy: Taxonomy) -> str:
    """A Google category id's display label in the scope (category_labels' rule for a mapped row; the
    BigQuery pushdown labels the ids it groups by with the same function)."""
    node = taxonomy.node(gid)
    if node is None:
        return UNMAPPED_LABEL
    base = taxonomy.node(scope.taxonomy_id) if scope.taxonomy_id is not None else None
    levels = node.path.split(" > ")
    extra = next((taxonomy.node(e) for e in scope.extra_taxonomy_ids if taxonomy.is_within(gid, e)), None)
    if base is not None and extra is not None and not taxonomy.is_within(gid, base.id):
        return " > ".join(levels[extra.depth - 1 :])  # "Outdoor Furniture Accessories > Covers"
    if base is not None and taxonomy.is_within(gid, base.id):
        rel = levels[base.depth :]
        general = base.name if not taxonomy.children_of(base.id) else f"{base.name} (general)"
        return " > ".join(rel) if rel else general
    return " > ".join(levels[:WHOLE_CATALOG_DEPTH]) if base is None else node.path


# --- stock -----------------------------------------------------------------------------------------------
STOCK_STATES = ("in_stock", "out_of_stock", "preorder", "backorder", "unknown")


def stock_codes(table: pa.Table):
    """Per row an int8 index into STOCK_STATES (numpy), computed without per-row strings.

    The stated availability wins; where it is missing or "unknown", the quantity decides (> 0 in stock,
    ≤ 0 out of stock, or backorder when the policy is "continue"); no quantity either → unknown. Never
    guesses zero stock from a missing column.
    """
    import numpy as np

    n = table.num_rows
    unknown = STOCK_STATES.index("unknown")
    availability = encoded(table["availability"])
    per_value = [
        STOCK_STATES.index(v) if v in STOCK_STATES else unknown for v in as_str(availability.dictionary).to_pylist()
    ]
    stated = entry_codes(availability, np.array(per_value, dtype=np.int8), missing=unknown)
    if n == 0 or not (stated == unknown).any():
        return stated
    qty_col = table["inventory_qty"]
    qty_known = (
        pc.is_valid(qty_col).to_numpy(zero_copy_only=False)
        if isinstance(qty_col, pa.Array)
        else pc.is_valid(qty_col).combine_chunks().to_numpy(zero_copy_only=False)
    )
    qty = pc.fill_null(qty_col, 0)
    qty = (qty.combine_chunks() if isinstance(qty, pa.ChunkedArray) else qty).to_numpy(zero_copy_only=False)
    policy = encoded(table["inventory_policy"])
    cont = entry_codes(
        policy, np.array([v == "continue" for v in as_str(policy.dictionary).to_pylist()], dtype=bool), missing=False
    )
    from_qty = np.where(
        ~qty_known,
        unknown,
        np.where(
            qty > 0,
            STOCK_STATES.index("in_stock"),
            np.where(cont, STOCK_STATES.index("backorder"), STOCK_STATES.index("out_of_stock")),
        ),
    ).astype(np.int8)
    return np.where(stated == unknown, from_qty, stated).astype(np.int8)


def has_stock_information(table: pa.Table) -> bool:
    """Whether any row states availability or a quantity (else every stock figure is "unknown")."""
    if table.num_rows == 0:
        return False
    stated = set(value_counts(table["availability"])) - {"unknown"}
    return bool(stated) or table["inventory_qty"].null_count < table.num_rows


# --- exact per-group quantiles ------------------------------------------------------------------------------
def quantiles_by_code(codes, n_groups: int, values, quantiles: Sequence[float]):
    """(n_groups × len(quantiles)) exact quantiles per dense group code (NaN rows ignored; NaN where a group
    has no value), linear interpolation as pandas.

    Prices in whole cents (the usual case) sort as one integer composite `code × span + (cents − min)`:
    rows ordered by group and value at once (span exceeds the value range, so groups never overlap) and
    each value read back exactly — one sort instead of a two-key lexsort, the costly part on a million
    rows. Other values take an exact argsort by value, then a stable sort by group.
    """
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    ok = ~np.isnan(v)
    if not ok.all():
        codes, v = codes[ok], v[ok]
    out = np.full((n_groups, len(quantiles)), np.nan)
    if len(v) == 0:
        return out
    cents = np.rint(v * 100.0)
    lo_c, hi_c = (float(cents.min()), float(cents.max())) if len(cents) else (0.0, 0.0)
    span = int(hi_c - lo_c) + 1
    counts = np.bincount(codes, minlength=n_groups)
    if np.array_equal(cents / 100.0, v) and span * n_groups < 2**62:
        # prices in cents (the usual case): an exact integer composite, one sort, values read back
        # exactly; in 32 bits when it fits (a million rows, a few thousand groups, prices up to a few
        # hundred: it does), which halves the sort (5 → 2.5 ms on a million rows)
        wide = np.int32 if span * n_groups < 2**31 else np.int64
        composite = codes.astype(wide)  # built in place: each temporary of a million integers costs here
        composite *= span
        composite += (cents - lo_c).astype(wide)
        composite.sort()
        # sorted, the rows come group by group: subtracting each group's base (a repeat, not a modulo)
        composite -= np.repeat(np.arange(n_groups, dtype=wide) * span, counts)
        v = (composite + lo_c) / 100.0
    else:  # other values: the exact two-pass order
        by_value = np.argsort(v, kind="stable")
        order = by_value[np.argsort(codes[by_value], kind="stable")]
        v = v[order]
    start = np.concatenate(([0], np.cumsum(counts)[:-1]))
    has = counts > 0
    for j, q in enumerate(quantiles):
        rel = q * (counts[has] - 1)  # position inside the group: independent of where the group starts
        whole = np.floor(rel)
        lo = start[has] + whole.astype(np.int64)
        hi = np.minimum(lo + 1, start[has] + counts[has] - 1)
        out[has, j] = v[lo] + (v[hi] - v[lo]) * (rel - whole)
    return out


def distinct_per_code(codes, product_keys, n_groups: int) -> Any:
    """Distinct product keys per dense group code.

    Fast path, exact: when rows come grouped by product with ascending keys and each product's group
    codes ascending (how the catalog layer builds tables), a new (product, group) pair starts wherever
    either changes, so one pass of comparisons counts them. Otherwise a hash group-by.
    """
    import numpy as np

    codes = np.asarray(codes, dtype=np.int64)
    product_keys = np.asarray(product_keys)
    if len(product_keys) == 0:
        return np.zeros(n_groups, dtype=np.int64)
    same_pk = product_keys[1:] == product_keys[:-1]
    ordered = bool(np.all(product_keys[1:] >= product_keys[:-1])) and bool(np.all(~same_pk | (codes[1:] >= codes[:-1])))
    if ordered:
        new = np.ones(len(product_keys), dtype=bool)
        new[1:] = ~same_pk | (codes[1:] != codes[:-1])
        return np.bincount(codes[new], minlength=n_groups)
    g = pa.table({"c": codes, "pk": product_keys}).group_by("c").aggregate([("pk", "count_distinct")])
    out = np.zeros(n_groups, dtype=np.int64)
    out[g["c"].to_numpy()] = g["pk_count_distinct"].to_numpy()
    return out


def positive_price(table: pa.Table) -> pa.ChunkedArray:
    """Price with zero and negative values as null: a zero price is a data problem, not a price point."""
    price = table["price"]
    return pc.if_else(pc.greater(price, 0), price, pa.scalar(None, pa.float64()))


# --- draft/archived rows left out: stated in prose, so they are a cell of the totals row -------------------
EXCLUDED_COLUMN = ("Left out (draft/archived rows)", "count", pa.int64())


def with_excluded(columns: tuple, rows: list[dict], excluded: dict[str, int]) -> tuple:
    """Adds the left-out column (filled on the totals row, index 0) when anything was left out."""
    if not excluded or not rows:
        return columns
    for i, row in enumerate(rows):
        row[EXCLUDED_COLUMN[0]] = sum(excluded.values()) if i == 0 else None
    return columns + (EXCLUDED_COLUMN,)


def excluded_finding(excluded: dict[str, int], rows: list[dict]):
    """The "N draft or archived rows left out" finding citing the totals row (None when nothing was)."""
    from agent.analysis.result import Finding

    if not excluded or not rows:
        return None
    return Finding(
        "common.excluded", {"excluded_n": sum(excluded.values())}, cells=((0, EXCLUDED_COLUMN[0]),), severity=2
    )


def scope_name(scope: Scope) -> str:
    """Short display name of the scope for totals rows: the taxonomy node's own name, else the label."""
    if scope.is_whole_catalog:
        return "All categories"
    if scope.taxonomy_path:
        return scope.taxonomy_path.split(" > ")[-1]
    label = scope.label or "Scope"
    return label[:1].upper() + label[1:]


def per_product(product_keys, aggs: Sequence[tuple[str, Any, str]]) -> pa.Table:
    """One row per product: column "pk", "pk_count" (rows) and f"{name}_{op}" for each (name, values, op),
    op in min | max | sum | mean. Nulls are ignored as Arrow's group-by ignores them.

    Fast path when product keys come ascending (the catalog layer's layout): numpy reduceat over the
    runs of each product. Otherwise Arrow's hash group-by, with the same output.
    """
    import numpy as np

    pk_arr = product_keys.combine_chunks() if isinstance(product_keys, pa.ChunkedArray) else product_keys
    arrays = []
    for name, values, op in aggs:
        arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        arrays.append((name, pa.array(arr) if not isinstance(arr, (pa.Array,)) else arr, op))
    keys = pk_arr.to_numpy(zero_copy_only=False) if pk_arr.null_count == 0 else None
    if keys is not None and len(keys) and bool(np.all(keys[1:] >= keys[:-1])):
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        ends = np.concatenate((starts[1:], [len(keys)]))
        cols = {"pk": pa.array(keys[starts]), "pk_count": pa.array(ends - starts)}
        for name, arr, op in arrays:
            if arr.null_count == 0 and op in ("min", "max", "sum"):  # no nulls: reduce the native values
                data = arr.to_numpy(zero_copy_only=False)
                ufunc = {"min": np.minimum, "max": np.maximum, "sum": np.add}[op]
                res = ufunc.reduceat(data, starts)
                out = pa.array(res)
                cols[f"{name}_{op}"] = out.cast(pa.int64()) if pa.types.is_integer(arr.type) else out.cast(pa.float64())
                continue
            valid = pc.is_valid(arr).to_numpy(zero_copy_only=False)
            data = pc.fill_null(arr, 0).to_numpy(zero_copy_only=False).astype(np.float64)
            n_valid = np.add.reduceat(valid.astype(np.int64), starts)
            if op == "sum":
                res = np.add.reduceat(np.where(valid, data, 0.0), starts)
            elif op == "mean":
                res = np.add.reduceat(np.where(valid, data, 0.0), starts) / np.maximum(n_valid, 1)
            elif op == "min":
                res = np.minimum.reduceat(np.where(valid, data, np.inf), starts)
            elif op == "max":
                res = np.maximum.reduceat(np.where(valid, data, -np.inf), starts)
            else:
                raise ValueError(op)
            out = pa.array(res, mask=n_valid == 0) if op != "sum" else pa.array(res)
            if pa.types.is_integer(arr.type) and op in ("min", "max", "sum"):
                out = out.cast(pa.int64())
            cols[f"{name}_{op}"] = out
        return pa.table(cols)
    work = pa.table({"pk": pk_arr, **{name: arr for name, arr, _ in arrays}})
    g = work.group_by("pk").aggregate([("pk", "count")] + [(name, op) for name, _, op in arrays])
    for name, arr, op in arrays:
        col = f"{name}_{op}"
        if pa.types.is_integer(arr.type) and op in ("min", "max", "sum"):
            g = g.set_column(g.schema.get_field_index(col), col, g[col].cast(pa.int64()))
        elif op != "sum" or not pa.types.is_integer(arr.type):
            g = g.set_column(g.schema.get_field_index(col), col, g[col].cast(pa.float64()))
    return g


def brand_key(brand: str) -> str:
    """A brand's identity: its name in lower case ("SWIMINISTA", "Swiminista" and "swiminista" are one
    brand). The SQL twins group by BigQuery's LOWER(brand), which lower-cases as str.lower does for
    every letter but a handful of special cases (a dotted capital I); the catalog layer has already
    trimmed the name and collapsed its spaces."""
    return brand.lower()


def shown_brand(spellings: dict[str, int]) -> str:
    """The name a brand is shown by: of its spellings, the one on most products (the smallest one on
    a tie, so that both paths, whose rows come in no fixed order, show the same one)."""
    return min(spellings, key=lambda name: (-spellings[name], name))


def brand_codes(brands, product_keys) -> tuple[Any, list[str]]:
    """Brand code per row (-1 = no brand) and each brand's shown name (`shown_brand`), brands told
    apart by `brand_key`: one pass per distinct value, then the rows' integer indices.

    Why: a shop's export spells its own vendor several ways ("SWIMINISTA" on 15 products,
    "Swiminista" on 8; "JAZZUPCO" and "jazzupco"); counted apart they made 4 brands of 3 and a
    92 % vendor look like 60 %."""
    import numpy as np

    d = encoded(brands)
    idx = pc.fill_null(d.indices, len(d.dictionary)).to_numpy(zero_copy_only=False)
    used = np.bincount(idx, minlength=len(d.dictionary) + 1) > 0  # a filtered table keeps its whole dictionary
    keys: dict[str, int] = {}
    per_entry = []
    for brand, seen in zip(as_str(d.dictionary).to_pylist(), used.tolist()):
        brand = (brand or "").strip()
        per_entry.append(keys.setdefault(brand_key(brand), len(keys)) if brand and seen else -1)
    entry = np.array(per_entry + [-1], dtype=np.int64)
    codes = entry[idx]
    spelling_of_entry = idx[codes >= 0]
    per_spelling = distinct_per_code(spelling_of_entry, np.asarray(product_keys)[codes >= 0], len(d.dictionary))
    spellings: list[dict[str, int]] = [{} for _ in keys]
    names = as_str(d.dictionary).to_pylist()
    for i, n in enumerate(per_spelling.tolist()):
        if n and entry[i] >= 0:
            spellings[int(entry[i])][(names[i] or "").strip()] = int(n)
    return codes, [shown_brand(s) if s else "" for s in spellings]


def numpy_of(arr):
    """A (chunked) Arrow column as one numpy array."""
    a = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    return a.to_numpy(zero_copy_only=False)


# --- money: which variants are priced, in which currency, and which are on sale ------------------------------
# One rule for every price figure of every skill (overview, ladder, gaps agree on the same variants):
# * a figure is over **priced variants** (variant rows whose price is above zero), never over each
#   product's cheapest variant; counts of products are named as such;
# * a zero price is not a price point: such variants are counted and the answer says so;
# * prices in different currencies are never pooled: figures are split by currency (the overview and
#   the ladder give one set per currency), or restricted to the main currency and the rest counted (gaps).
NO_PRICE_NOTE = "The data states no currency, so prices are shown as written, without one."


@dataclass(frozen=True)
class PriceGroup:
    """The priced variants of one currency (None: the data states none)."""

    currency: str | None
    rows: Any  # numpy bool mask over the table's rows
    variants: int


def price_groups(table: pa.Table) -> list[PriceGroup]:
    """Priced variants split by currency, largest group first (a stated currency before none)."""
    import numpy as np

    if table.num_rows == 0:
        return []
    priced = numpy_of(pc.fill_null(pc.greater(table["price"], 0), False)).astype(bool)
    cur = encoded(table["currency"])
    names = as_str(cur.dictionary).to_pylist()
    codes = (
        entry_codes(cur, np.arange(len(names), dtype=np.int32), missing=-1)
        if len(names)
        else np.full(table.num_rows, -1, np.int32)
    )
    found: dict[str | None, Any] = {}
    present = np.bincount(codes[priced] + 1, minlength=len(names) + 1)  # slot 0: no currency
    for code in (np.flatnonzero(present) - 1).tolist():
        name = names[code] if code >= 0 else None
        mask = priced & (codes == code)
        found[name] = mask if name not in found else (found[name] | mask)
    groups = [PriceGroup(name, mask, int(mask.sum())) for name, mask in found.items()]
    groups.sort(key=lambda g: (g.currency is None, -g.variants, g.currency or ""))
    return groups


def price_counts(table: pa.Table) -> dict[str, int]:
    """Variants priced above zero, at exactly zero, below zero, and without a price."""
    if table.num_rows == 0:
        return {"priced_n": 0, "zero_n": 0, "negative_n": 0, "unpriced_n": 0}
    price = table["price"]
    return {
        "priced_n": int(pc.sum(pc.fill_null(pc.greater(price, 0), False)).as_py() or 0),
        "zero_n": int(pc.sum(pc.fill_null(pc.equal(price, 0), False)).as_py() or 0),
        "negative_n": int(pc.sum(pc.fill_null(pc.less(price, 0), False)).as_py() or 0),
        "unpriced_n": price.null_count,
    }


def main_currency_price(table: pa.Table) -> tuple[pa.Array, str | None, dict[str, int]]:
    """Positive prices of the main currency only (others null), the currency, and {code: variants} of
    the currencies left out — for skills with one price column per row (gaps)."""
    import numpy as np

    groups = price_groups(table)
    if not groups:
        return pa.nulls(table.num_rows, pa.float64()), None, {}
    main = groups[0]
    price = numpy_of(table["price"]).astype(np.float64)
    out = np.where(main.rows, price, np.nan)
    return pa.array(out, mask=~main.rows), main.currency, {g.currency or "no currency": g.variants for g in groups[1:]}


def as_of(table: pa.Table, sources: Sequence[Any] = ()) -> Any:
    """The snapshot date sales are judged at: the newest the catalog's sources state, else the newest
    per-row snapshot date; None when the data states none (never the clock)."""
    dates = [
        s.snapshot_date
        for s in sources
        if getattr(s, "snapshot_date", None) is not None and getattr(s, "role", "catalog") == "catalog"
    ]
    if dates:
        return max(dates)
    if table.num_rows and "snapshot_date" in table.column_names:
        return pc.max(table["snapshot_date"]).as_py()
    return None


@dataclass(frozen=True)
class Sales:
    """Per variant row: on sale now, its discount depth (percent, NaN when not on sale), and whether it
    has a scheduled sale price that cannot be checked (no snapshot date)."""

    on_sale: Any  # numpy bool
    depth: Any  # numpy float64
    unchecked: Any  # numpy bool


def sales(table: pa.Table, when: Any) -> Sales:
    """Which variants are discounted at the snapshot date `when`.

    A variant is on sale when its sale price (WooCommerce `Sale price`, Merchant Center `sale_price`,
    Magento `special_price`, BigCommerce `Sale Price`) is above zero and below its price, and the
    sale's schedule, if any, includes `when` (first and last day inclusive); or when its compare-at
    price is above its price (Shopify's "was" price). A sale scheduled to end before, or begin after,
    the snapshot date is not a current sale. Without a snapshot date, a sale price with no schedule is
    current (the file lists it as the price now) and one with a schedule cannot be checked: it is not
    counted as on sale, and counted as `unchecked` so the answer can say so. Depth is
    (was − now) / was, where "was" is the price (sale price) or the compare-at price.
    """
    import numpy as np

    n = table.num_rows

    def col(name):
        if name not in table.column_names or table[name].null_count == n:
            return np.full(n, np.nan)
        values = table[name] if table[name].type == pa.float64() else table[name].cast(pa.float64())
        return np.asarray(numpy_of(values), dtype=np.float64)  # (Arrow gives NaN for null floats)

    price, sale, cap = col("price"), col("sale_price"), col("compare_at_price")
    with np.errstate(invalid="ignore"):
        has_sale = (sale > 0) & (sale < price)
    scheduled = np.zeros(n, dtype=bool)
    in_window = np.ones(n, dtype=bool)
    for name, inside in (("sale_start", "le"), ("sale_end", "ge")):
        if name not in table.column_names or table[name].null_count == n:
            continue
        stated = numpy_of(pc.is_valid(table[name])).astype(bool)
        scheduled |= stated
        if when is not None:
            cmp = pc.less_equal if inside == "le" else pc.greater_equal
            ok = numpy_of(pc.fill_null(cmp(table[name], pa.scalar(when, pa.date32())), True)).astype(bool)
            in_window &= ok
    if when is None:
        current = has_sale & ~scheduled
        unchecked = has_sale & scheduled
    else:
        current = has_sale & in_window
        unchecked = np.zeros(n, dtype=bool)
    with np.errstate(invalid="ignore"):
        by_cap = (cap > price) & (price > 0)
    now = np.where(current, sale, price)
    was = np.where(by_cap, cap, price)
    on_sale = current | by_cap
    with np.errstate(invalid="ignore", divide="ignore"):
        depth = np.where(on_sale & (was > 0), (was - now) / was * 100.0, np.nan)
    return Sales(on_sale, depth, unchecked)


_NICE_STEPS = (1.0, 2.0, 2.5, 5.0)


def nice_number(x: float) -> float:
    """The round number (1, 2, 2.5 or 5 times a power of ten) nearest to x on a log scale."""
    import math

    if x <= 0:
        return 0.0
    exp = math.floor(math.log10(x))
    cands = [s * 10.0**e for e in (exp - 1, exp, exp + 1) for s in _NICE_STEPS]
    return min(cands, key=lambda c: abs(math.log(c / x)))


def price_band_cuts(prices: Any, quantiles: Sequence[float] = (0.25, 0.5, 0.75)) -> list[float]:
    """Band boundaries from the catalog's own prices: round numbers near its quartiles, each strictly
    above the lowest price and at most the highest (so no band is empty by construction at its ends).
    A tenge catalog gets tenge-sized bands, a catalog of 2.50 items small ones."""
    import numpy as np

    p = np.asarray(prices, dtype=np.float64)
    p = p[~np.isnan(p) & (p > 0)]
    if len(p) == 0:
        return []
    lo, hi = float(p.min()), float(p.max())
    cuts = sorted({nice_number(float(q)) for q in np.quantile(p, list(quantiles))})
    return [c for c in cuts if lo < c <= hi]


def amount_label(value: float, currency: str | None) -> str:
    """A band bound in a label: "KZT 200,000", "2.50" (no decimals when whole)."""
    text = f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return f"{currency} {text}" if currency else text


def band_labels(cuts: Sequence[float], currency: str | None) -> list[tuple[str, float, float]]:
    """(label, lower inclusive, upper exclusive) for the bands the cuts make."""
    if not cuts:
        return [("All priced variants", 0.0, float("inf"))]
    out = [(f"Under {amount_label(cuts[0], currency)}", 0.0, cuts[0])]
    for a, b in zip(cuts, cuts[1:]):
        out.append((f"{amount_label(a, currency)} to under {amount_label(b, currency)}", a, b))
    out.append((f"{amount_label(cuts[-1], currency)} and over", cuts[-1], float("inf")))
    return out
