"""assortment_gaps (headline) — "Where are the gaps in outdoor furniture?"

One row per subcategory of the scope: every leaf of the scope's taxonomy subtree (so "Sunloungers" is
named, with "Outdoor Seating" as its group), plus any intermediate node products are mapped to directly,
plus a row for in-scope products that only matched through a merchant category. Gap types:

- ``missing``: no products; ``thin``: fewer than THIN_PRODUCTS products; ``out of stock only``: every
  variant out of stock;
- with a reference catalog: ``under-indexed`` (reference share ≥ UNDER_INDEX_MIN_REF_SHARE % and share
  index < UNDER_INDEX_MAX), ``price floor`` (own cheapest above the reference P25: no entry price) and
  ``price ceiling`` (own dearest below the reference P75: no premium option).

Rows are ordered by severity; a first "all" row carries the scope totals the findings quote. When
there are more subcategories than a table shows (SPEC §6), the rows shown still hold the subcategories
that have products (`_held_rows_shown`), so a broad scope's answer shows what the merchant sells beside
its gaps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, Scope, SkillResult
from agent.catalog.taxonomy import Taxonomy

SKILL_ID = "assortment_gaps"
SHOWN_SUBCATEGORIES = 19  # SPEC §6: a table shows at most 20 rows, the totals row one of them
MIN_GAPS_SHOWN = 5  # of those, the gaps kept in view however many subcategories hold products
# The canonical columns this skill reads (population() carries only these through its filter).
READ = (
    "product_key",
    "google_category_id",
    "availability",
    "inventory_qty",
    "inventory_policy",
    "price",
    "currency",
)
THIN_PRODUCTS = 3  # a subcategory with fewer products than this is "thin"
UNDER_INDEX_MIN_REF_SHARE = 5.0  # percent of the reference's products in scope
UNDER_INDEX_MAX = 50.0  # share index below this is under-indexed
OTHER_KEY = -1  # in scope through a merchant category only, not mapped to a subcategory
LIST_LIMIT = 5

SEVERITY = {"missing": 6, "out of stock only": 5, "thin": 4, "under-indexed": 3, "price floor": 2, "price ceiling": 1}

BASE_COLUMNS = (
    ("Group", "text", pa.string()),
    ("Subcategory", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Variants", "count", pa.int64()),
    ("In-stock variants", "count", pa.int64()),
    ("Min price", "money", pa.float64()),
    ("Median price", "money", pa.float64()),
    ("Max price", "money", pa.float64()),
    ("Gap", "text", pa.string()),
    ("Left out (draft/archived products)", "count", pa.int64()),
)
REF_COLUMNS = (
    ("Reference products", "count", pa.int64()),
    ("Own share", "percent", pa.float64()),
    ("Reference share", "percent", pa.float64()),
    ("Share index", "number", pa.float64()),
    ("Reference P25", "money", pa.float64()),
    ("Reference P75", "money", pa.float64()),
)


def _keys(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> pa.ChunkedArray:
    """Subcategory key per row: its taxonomy id when inside the scope's subtree, else OTHER_KEY."""
    ids = pc.cast(table["google_category_id"], pa.int64())
    if scope.taxonomy_id is None:
        return pc.fill_null(ids, OTHER_KEY)
    inside = pc.fill_null(pc.is_in(ids, value_set=pa.array(common.scope_ids(scope, taxonomy), pa.int64())), False)
    return pc.if_else(inside, ids, pa.scalar(OTHER_KEY, pa.int64()))


def _aggregate(table: pa.Table, scope: Scope, taxonomy: Taxonomy, price: pa.Array | None = None) -> dict[int, dict]:
    """Per key: products, variants, in-stock / out-of-stock variants, min/P25/median/P75/max price.

    All in numpy over dense key codes: counts by bincount, distinct products by one ordered pass (hash
    fallback), and the five price statistics from one composite sort (common.quantiles_by_code).
    """
    import numpy as np

    if table.num_rows == 0:
        return {}
    keys = _keys(table, scope, taxonomy)
    key_np = (keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys).to_numpy(zero_copy_only=False)
    codes, uniq = _dense_codes(np.asarray(key_np, dtype=np.int64))
    n = len(uniq)
    state = common.stock_codes(table)
    price = common.positive_price(table) if price is None else price
    price_np = (price.combine_chunks() if isinstance(price, pa.ChunkedArray) else price).to_numpy(zero_copy_only=False)
    pk = table["product_key"]
    pk_np = (pk.combine_chunks() if isinstance(pk, pa.ChunkedArray) else pk).to_numpy(zero_copy_only=False)
    # one bincount over (group, stock state) pairs gives variants, in stock and out of stock at once
    k = len(common.STOCK_STATES)
    by_state = np.bincount(codes * k + state, minlength=n * k).reshape(n, k)
    variants = by_state.sum(axis=1).tolist()
    in_stock = by_state[:, common.STOCK_STATES.index("in_stock")].tolist()
    oos = by_state[:, common.STOCK_STATES.index("out_of_stock")].tolist()
    products = common.distinct_per_code(codes, pk_np, n).tolist()
    quantiles = common.quantiles_by_code(codes, n, np.asarray(price_np, dtype=np.float64), (0.0, 0.25, 0.5, 0.75, 1.0))
    boxed = quantiles.astype(object)
    boxed[np.isnan(quantiles)] = None  # one conversion for every group: NaN → None
    stats = boxed.tolist()
    return {
        key: {
            "products": int(products[i]),
            "variants": variants[i],
            "in": in_stock[i],
            "oos": oos[i],
            "min": stats[i][0],
            "p25": stats[i][1],
            "median": stats[i][2],
            "p75": stats[i][3],
            "max": stats[i][4],
        }
        for i, key in enumerate(uniq)
    }


def _dense_codes(keys):
    """(code per row, key per code) for small non-negative integer keys plus OTHER_KEY, without hashing.

    Taxonomy ids are below a million, so a presence table and a running count number the keys in one
    vectorised pass — cheaper than a hash-based dictionary encode of a million rows.
    """
    import numpy as np

    shifted = keys - OTHER_KEY  # OTHER_KEY (-1) becomes 0; ids stay non-negative
    top = int(shifted.max()) + 1 if len(shifted) else 1
    if len(shifted) * 16 < top:  # few rows against the id range (the demo: 3k rows, ids up to ~500k): sort them
        uniq, codes = np.unique(shifted, return_inverse=True)
        return codes.astype(np.int64, copy=False), (uniq + OTHER_KEY).tolist()
    present = np.zeros(top, dtype=bool)
    present[shifted] = True
    uniq = np.flatnonzero(present)
    slot = np.cumsum(present, dtype=np.int64) - 1
    return np.take(slot, shifted), (uniq + OTHER_KEY).tolist()


def _excluded_products(scoped: pa.Table, scope: Scope, taxonomy: Taxonomy) -> dict[int | str, int]:
    """Products left out by status (draft, archived) per subcategory key, and "total", from the scope's
    rows of every status — population()'s own filtered table, so the scope mask is applied once a turn."""
    if not set(common.value_counts(scoped["status"])) & set(common.EXCLUDED_STATUSES):
        return {}
    excluded = common.rows_where(
        scoped,
        pc.fill_null(
            common.map_values(
                scoped["status"],
                lambda d: pc.is_in(common.as_str(d), value_set=pa.array(list(common.EXCLUDED_STATUSES))),
            ),
            False,
        ),
    )
    if excluded.num_rows == 0:
        return {}
    work = pa.table({"key": _keys(excluded, scope, taxonomy), "pk": excluded["product_key"]})
    grouped = work.group_by("key").aggregate([("pk", "count_distinct")])
    total = common.count_products(excluded)
    res = {d["key"]: d["pk_count_distinct"] for d in grouped.to_pylist()}
    res["total"] = total
    return res


def _names(key: int, scope: Scope, taxonomy: Taxonomy) -> tuple[str | None, str]:
    """(group, subcategory) display names relative to the scope."""
    if key == OTHER_KEY:
        return None, "Not mapped to a subcategory"
    node = taxonomy.node(key)
    if node is None:
        return None, f"Category {key}"
    base = taxonomy.node(scope.taxonomy_id) if scope.taxonomy_id is not None else None
    for extra in scope.extra_taxonomy_ids:  # a further root: named from its own level down
        if taxonomy.is_within(key, extra) and not (base is not None and taxonomy.is_within(key, base.id)):
            root = taxonomy.node(extra)
            base = taxonomy.node(root.parent_id) if root is not None and root.parent_id is not None else root
            break
    levels = node.path.split(" > ")
    if base is not None:
        rel = levels[base.depth :]
        if not rel:
            return None, f"{node.name} (not further classified)"
        if taxonomy.children_of(key) and key != base.id:
            return " > ".join(rel[:-1]) or None, f"{node.name} (not further classified)"
        return " > ".join(rel[:-1]) or None, rel[-1]
    return " > ".join(levels[:-1]) or None, node.name


@dataclass
class OwnAggregates:
    """The own catalog's side of the answer: everything the table, findings and notes read from it.

    The seam between where the aggregation runs and what is said about it: `own_aggregates` computes it
    from the canonical Arrow table (the in-memory path), `agent.analysis.gaps_sql.own_aggregates` from
    SQL rows aggregated in BigQuery (the pushdown path above BIGQUERY_IN_MEMORY_BYTES). `answer` turns
    either into the same SkillResult, so both paths say the same thing about the same numbers.
    """

    by_key: dict[int, dict]  # per subcategory key: products, variants, in, oos, min, p25, median, p75, max
    total: dict  # the scope: products, variants, in, min, median, max
    currency: str | None  # the main currency of the price columns
    other_currencies: dict[str, int]  # {currency: priced variants} left out of the price columns
    has_stock: bool
    prices: dict[str, int]  # common.price_counts of the analysed rows
    rows: int  # analysed variant rows
    excluded: dict = field(default_factory=dict)  # draft/archived products per key, and "total"
    unmapped_by: dict = field(default_factory=dict)  # how the products not mapped to a subcategory came in
    notes: list[str] = field(default_factory=list)  # what the path itself has to say (pushdown: unplaced rows)


def own_aggregates(table: pa.Table, scope: Scope, tax: Taxonomy) -> OwnAggregates:
    """The in-memory path: the scope's population of the canonical table, aggregated in numpy."""
    pop = common.population(table, scope, tax, READ)
    # price columns: priced variants of the main currency only; other currencies are counted, not pooled
    own_price, currency, other_currencies = common.main_currency_price(pop.table)
    by_key = _aggregate(pop.table, scope, tax, own_price)
    has_stock = common.has_stock_information(pop.table)
    return OwnAggregates(
        by_key=by_key,
        total=_total_stats(pop.table, has_stock, own_price),
        currency=currency,
        other_currencies=other_currencies,
        has_stock=has_stock,
        prices=common.price_counts(pop.table),
        rows=pop.table.num_rows,
        excluded=_excluded_products(pop.scoped, scope, tax),
        unmapped_by=_unmapped_by(table, scope, tax) if by_key.get(OTHER_KEY, {}).get("products") else {},
    )


def run(inp: SkillInput) -> SkillResult:
    pushdown = next((s.pushdown for s in inp.sources if getattr(s, "pushdown", None) is not None), None)
    if pushdown is not None:  # above the size line: the aggregation runs in BigQuery
        from agent.analysis import gaps_sql

        return answer(inp, gaps_sql.own_aggregates(pushdown, inp.scope, inp.taxonomy))
    return answer(inp, own_aggregates(inp.own, inp.scope, inp.taxonomy))


def answer(inp: SkillInput, agg: OwnAggregates) -> SkillResult:
    """The table, findings and notes from the own aggregates (and the reference, aggregated in memory)."""
    scope, tax = inp.scope, inp.taxonomy
    ref, ref_total, notes = _reference(inp, agg)
    leaves = _scope_leaves(scope, tax)
    keys: set[int] = set(agg.by_key)
    keys |= set(leaves)
    if ref:
        keys |= {k for k in ref if k != OTHER_KEY}
    ordered = _ordered_rows(agg, keys, ref, ref_total, scope, tax)
    table = common.records_table(BASE_COLUMNS + (REF_COLUMNS if ref is not None else ()), ordered)
    findings = _findings(ordered, ref is not None, agg.rows, agg.unmapped_by)
    demand_finding = _demand_missing(inp)
    if demand_finding is not None:
        findings = [demand_finding] + findings[:6]
    notes += _price_and_stock_notes(agg.prices, agg.rows, agg.currency, agg.other_currencies, agg.has_stock)
    notes += agg.notes
    n_sub = len(leaves) if leaves else len([k for k in keys if k != OTHER_KEY])
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=findings,
        thresholds=dict(THRESHOLDS),
        currency=agg.currency,
        chart=("Subcategory", "Products"),
        taxonomy_note=common.taxonomy_note(scope, tax, n_sub),
        notes=notes,
        missing="reference" if scope.wants_reference and ref is None else None,  # shares need a reference
    )


# the thresholds the answer states (SkillResult.thresholds)
THRESHOLDS = {
    "thin_products": THIN_PRODUCTS,
    "under_index_min_reference_share_pct": UNDER_INDEX_MIN_REF_SHARE,
    "under_index_max": UNDER_INDEX_MAX,
    "price_floor": "own min > reference P25",
    "price_ceiling": "own max < reference P75",
    "price": "priced variants (price above zero) in the main currency",
}


def _reference(inp: SkillInput, agg: OwnAggregates) -> tuple[dict | None, int, list[str]]:
    """The reference catalog aggregated in memory like the own one, its product count, and the note when
    its currency differs (its quartiles then left blank: never compared across currencies)."""
    notes: list[str] = []
    if inp.reference is None:
        return None, 0, notes
    ref_pop = common.population(inp.reference, inp.scope, inp.taxonomy, READ)
    ref_price, ref_currency, _ = common.main_currency_price(ref_pop.table)
    if ref_currency != agg.currency and ref_pop.table.num_rows and agg.rows:
        ref_price = pa.nulls(ref_pop.table.num_rows, pa.float64())
        notes.append(
            f"The reference is priced in {ref_currency or 'no stated currency'} and this catalog in "
            f"{agg.currency or 'no stated currency'}, so prices are not compared (currencies are never converted)."
        )
    ref = _aggregate(ref_pop.table, inp.scope, inp.taxonomy, ref_price)
    return ref, common.count_products(ref_pop.table), notes


def _scope_leaves(scope: Scope, tax: Taxonomy) -> list[int]:
    """The taxonomy leaves under the scope's node and its extra nodes ("Outdoor Furniture Accessories"
    beside "Outdoor Furniture"), each once: the subcategories a row is shown for even when empty."""
    if scope.taxonomy_id is None:
        return []
    leaves = tax.leaves_under(scope.taxonomy_id)
    for extra in scope.extra_taxonomy_ids:
        leaves += [leaf for leaf in tax.leaves_under(extra) if leaf not in leaves]
    return leaves


def _ordered_rows(
    agg: OwnAggregates, keys: set[int], ref: dict | None, ref_total: int, scope: Scope, tax: Taxonomy
) -> list[dict]:
    """Totals first (the row every summary number comes from), then one row per subcategory key, the most
    severe gap first."""
    own, excluded, own_total = agg.by_key, agg.excluded, agg.total["products"]
    rows = []
    for key in keys:
        group, name = _names(key, scope, tax)
        row, sev_key = _subcategory_row(
            key,
            group,
            name,
            own.get(key, {}),
            None if ref is None else ref.get(key, {}),
            excluded.get(key, 0),
            agg.has_stock,
            own_total,
            ref_total,
        )
        rows.append((sev_key, row, key))
    rows.sort(key=_severity_order)
    label = common.scope_name(scope)
    total_row = _total_row(agg.total, label, excluded.get("total", 0), agg.has_stock, ref is not None, ref_total)
    return [total_row] + [r for _, r, _ in _held_rows_shown(rows)]


def _severity_order(entry: tuple) -> tuple:
    sev_key, row, _ = entry
    return (-sev_key[0], -sev_key[1], row["Products"], row["Group"] or "", row["Subcategory"])


def _held_rows_shown(rows: list[tuple]) -> list[tuple]:
    """The severity-ordered rows with those holding products moved into the rows a table shows.

    A broad scope has many empty leaves ("gaps in clothing" on a swimwear shop: 162 of 163), and they
    are the most severe rows, so the 48 swimsuits' own row came 150th: the table showed only what the
    shop does not sell. Now the first SHOWN_SUBCATEGORIES rows take the subcategories holding products
    (at most all but MIN_GAPS_SHOWN of them; the worst first, then the largest), the rest of the window
    the worst gaps, and the window keeps the severity order; the rows after it follow in it too."""
    if len(rows) <= SHOWN_SUBCATEGORIES:
        return rows
    held = sorted((r for r in rows if r[1]["Products"]), key=lambda x: (-x[0][0], -x[0][1], -x[1]["Products"]))
    empty = [r for r in rows if not r[1]["Products"]]
    take = min(len(held), max(SHOWN_SUBCATEGORIES - MIN_GAPS_SHOWN, SHOWN_SUBCATEGORIES - len(empty)))
    window = held[:take] + empty[: SHOWN_SUBCATEGORIES - take]
    chosen = {id(r) for r in window}
    return sorted(window, key=_severity_order) + [r for r in rows if id(r) not in chosen]


def _subcategory_row(
    key: int,
    group: str | None,
    name: str,
    o: dict,
    r: dict | None,
    excluded: int,
    has_stock: bool,
    own_total: int,
    ref_total: int,
) -> tuple[dict, tuple[float, int]]:
    """One subcategory's row with its gap judgement, and the key that orders the rows (worst gaps first).

    `o` and `r` are the own and reference aggregates of the subcategory (`r` None without a reference)."""
    products = o.get("products", 0)
    gaps: list[str] = []
    if key != OTHER_KEY:
        if products == 0:
            gaps.append("missing")
        elif products < THIN_PRODUCTS:
            gaps.append("thin")
        if products and has_stock and o.get("oos", 0) == o.get("variants", 0):
            gaps.append("out of stock only")
    row = {
        "Group": group,
        "Subcategory": name,
        "Products": products,
        "Variants": o.get("variants", 0),
        "In-stock variants": o.get("in", 0) if has_stock else None,
        "Min price": common.money(o.get("min")),
        "Median price": common.money(o.get("median")),
        "Max price": common.money(o.get("max")),
        "Left out (draft/archived products)": excluded,
    }
    if r is not None:
        columns, ref_gaps = _against_reference(key, o, r, own_total, ref_total)
        row.update(columns)
        gaps += ref_gaps
    r = r or {}
    row["Gap"] = ", ".join(gaps) or None
    sev = max((SEVERITY[g] for g in gaps), default=0)
    # a missing subcategory the reference sells is more urgent than one nobody sells
    sev_key = (sev + (0.5 if "missing" in gaps and r.get("products") else 0), r.get("products", 0))
    if key == OTHER_KEY and products:
        sev_key = (0.5, 0)  # unmapped products: after the gaps, before the healthy subcategories
    return row, sev_key


def _against_reference(key: int, o: dict, r: dict, own_total: int, ref_total: int) -> tuple[dict, list[str]]:
    """A subcategory row's reference columns (shares, share index, the reference's quartiles) and the gaps
    they show: under-indexed against the reference, own prices starting above its P25 or ending below its
    P75. `o` and `r` are the own and reference aggregates of the subcategory."""
    products = o.get("products", 0)
    own_share = common.pct(products, own_total)
    ref_share = common.pct(r.get("products", 0), ref_total)
    index = round(own_share / ref_share * 100.0, 0) if own_share is not None and ref_share else None
    columns = {
        "Reference products": r.get("products", 0),
        "Own share": own_share,
        "Reference share": ref_share,
        "Share index": index,
        "Reference P25": common.money(r.get("p25")),
        "Reference P75": common.money(r.get("p75")),
    }
    gaps: list[str] = []
    if key != OTHER_KEY and products:
        if (
            ref_share is not None
            and ref_share >= UNDER_INDEX_MIN_REF_SHARE
            and index is not None
            and index < UNDER_INDEX_MAX
        ):
            gaps.append("under-indexed")
        if r.get("p25") is not None and o.get("min") is not None and o["min"] > r["p25"]:
            gaps.append("price floor")
        if r.get("p75") is not None and o.get("max") is not None and o["max"] < r["p75"]:
            gaps.append("price ceiling")
    return columns, gaps


def _price_and_stock_notes(
    zero: dict[str, int], n_rows: int, currency: str | None, other_currencies: dict[str, int], has_stock: bool
) -> list[str]:
    """What the price and stock columns leave out, said under the table."""
    notes: list[str] = []
    if other_currencies:
        listed = ", ".join(f"{n:,} in {c}" for c, n in other_currencies.items())
        notes.append(
            f"Prices in this table are in {currency or 'no stated currency'} only; priced variants in other "
            f"currencies ({listed}) are left out of the price columns, since currencies are never pooled."
        )
    if zero["zero_n"] + zero["negative_n"]:
        n_zero = zero["zero_n"] + zero["negative_n"]
        notes.append(
            f"{n_zero:,} {'variant' if n_zero == 1 else 'variants'} priced at 0.00 or below "
            f"{'is' if n_zero == 1 else 'are'} left out of the price columns."
        )
    if n_rows and currency is None and not other_currencies and zero["priced_n"]:
        notes.append(common.NO_PRICE_NOTE)
    if not has_stock and n_rows:
        notes.append(
            "Stock is not stated in the data, so in-stock counts are unknown and no subcategory is judged out of stock."
        )
    return notes


def _total_stats(table: pa.Table, has_stock: bool, price: pa.Array | None = None) -> dict:
    """The scope's totals from the analysed rows: products, variants, in stock, min/median/max price."""
    if price is None or not table.num_rows:
        price = common.positive_price(table) if table.num_rows else pa.chunked_array([], pa.float64())
    valid = price.drop_null()
    state = common.stock_codes(table) if table.num_rows else None
    return {
        "products": common.count_products(table),
        "variants": table.num_rows,
        "in": int((state == common.STOCK_STATES.index("in_stock")).sum()) if has_stock and state is not None else None,
        "min": pc.min(valid).as_py() if len(valid) else None,
        "median": pc.quantile(valid, q=0.5)[0].as_py() if len(valid) else None,
        "max": pc.max(valid).as_py() if len(valid) else None,
    }


def _total_row(total: dict, label: str, excluded: int, has_stock: bool, with_ref: bool, ref_total: int) -> dict:
    row = {
        "Group": "All",
        "Subcategory": label if label == "All categories" else f"{label} (all)",
        "Products": total["products"],
        "Variants": total["variants"],
        "In-stock variants": total["in"] if has_stock else None,
        "Min price": common.money(total["min"]),
        "Median price": common.money(total["median"]),
        "Max price": common.money(total["max"]),
        "Gap": None,
        "Left out (draft/archived products)": excluded,
    }
    if with_ref:
        row.update(
            {
                "Reference products": ref_total,
                "Own share": 100.0 if total["products"] else None,
                "Reference share": 100.0 if ref_total else None,
                "Share index": None,
                "Reference P25": None,
                "Reference P75": None,
            }
        )
    return row


def _unmapped_by(table: pa.Table, scope: Scope, taxonomy: Taxonomy) -> dict[str, int]:
    """How the scope's products that are not mapped to a subcategory came into it: {"own_n", "title_n"}.

    From the scope's own per-place counts (scoping.found), narrowed to those rows. A row outside the
    taxonomy subtree that the taxonomy place holds came through an own category named like one of its
    subcategories (or a primary path that maps into it), so it counts as "by your category"."""
    if scope.is_whole_catalog:
        return {}
    import numpy as np

    from agent.analysis import scoping

    keys = _keys(table.select(["google_category_id"]), scope, taxonomy)
    other = np.asarray(
        (keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys).to_numpy(zero_copy_only=False)
        == OTHER_KEY,
        dtype=bool,
    )
    by = dict(scoping.found(table, scope, taxonomy, within=other))
    return {"own_n": by["own"] + by["taxonomy"], "title_n": by["title"]}


def _findings(
    rows: list[dict], with_ref: bool, analysed_rows: int, unmapped_by: dict[str, int] | None = None
) -> list[Finding]:
    """Structured findings from the ordered display rows (index 0 is the totals row); `unmapped_by`
    says how the products not mapped to a subcategory came into the scope (own category / title)."""
    found: list[Finding] = []
    total = rows[0]
    found.append(
        Finding(
            "gaps.summary",
            {
                "scope": total["Subcategory"].removesuffix(" (all)"),
                "whole": total["Subcategory"] == "All categories",
                "products_n": total["Products"],
                "variants_n": total["Variants"],
                "in_stock_n": total["In-stock variants"],
            },
            cells=((0, "Products"), (0, "Variants"), (0, "In-stock variants")),
            severity=1,
        )
    )
    visible = list(enumerate(rows))[1:20]
    found += _own_gap_findings(visible)
    if with_ref:
        found += _reference_gap_findings(visible)
    other = [(i, row) for i, row in visible if row["Subcategory"] == "Not mapped to a subcategory" and row["Products"]]
    if other:
        i, row = other[0]
        whole = total["Subcategory"] == "All categories"
        # Most of a scope unmapped: its missing and thin subcategories may be among those products (a bags
        # shop's "Thin: Handbags (1)" beside 7 bags mapped to no subcategory), so the answer says so first.
        most = not whole and row["Products"] * 2 >= total["Products"]
        found.append(
            Finding(
                "gaps.unmapped",
                {
                    "products_n": row["Products"],
                    "whole": whole,
                    "scope_n": total["Products"],
                    "most": most,
                    **(unmapped_by or {}),
                },
                cells=((i, "Products"), (0, "Products")) if most else ((i, "Products"),),
                severity=9 if most else 5,
            )
        )
    if total["Left out (draft/archived products)"]:
        found.append(
            Finding(
                "gaps.excluded",
                {"excluded_n": total["Left out (draft/archived products)"]},
                cells=((0, "Left out (draft/archived products)"),),
                severity=2,
            )
        )
    if not any(row["Gap"] for _, row in visible) and analysed_rows:
        found.append(Finding("gaps.none", {"threshold": THIN_PRODUCTS}, severity=6))
    if not analysed_rows:
        found.append(Finding("gaps.empty", {}, severity=10))
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _with_gap(visible: list[tuple[int, dict]], gap: str) -> list[tuple[int, dict]]:
    """The shown subcategory rows whose Gap column names `gap`."""
    return [(i, row) for i, row in visible if row["Gap"] and gap in row["Gap"].split(", ")]


def _own_gap_findings(visible: list[tuple[int, dict]]) -> list[Finding]:
    """Subcategories missing, out of stock throughout, or thin, among the rows shown."""
    found: list[Finding] = []
    missing = _with_gap(visible, "missing")
    if missing:
        items = [
            {"name": row["Subcategory"], "ref_products_n": row.get("Reference products") or None}
            for _, row in missing[:LIST_LIMIT]
        ]
        found.append(
            Finding(
                "gaps.missing",
                {"items": items, "more": len(missing) > LIST_LIMIT},
                cells=tuple((i, "Products") for i, _ in missing[:LIST_LIMIT]),
                severity=9,
            )
        )
    oos = _with_gap(visible, "out of stock only")
    if oos:
        items = [
            {"name": row["Subcategory"], "products_n": row["Products"], "variants_n": row["Variants"]}
            for _, row in oos[:LIST_LIMIT]
        ]
        found.append(
            Finding(
                "gaps.out_of_stock_only",
                {"items": items},
                cells=tuple((i, c) for i, _ in oos[:LIST_LIMIT] for c in ("Products", "Variants")),
                severity=8,
            )
        )
    thin = _with_gap(visible, "thin")
    if thin:
        items = [{"name": row["Subcategory"], "products_n": row["Products"]} for _, row in thin[:LIST_LIMIT]]
        found.append(
            Finding(
                "gaps.thin",
                {"items": items, "threshold": THIN_PRODUCTS},
                cells=tuple((i, "Products") for i, _ in thin[:LIST_LIMIT]),
                severity=7,
            )
        )
    return found


def _reference_gap_findings(visible: list[tuple[int, dict]]) -> list[Finding]:
    """Against the reference: under-indexed subcategories, and no entry-level or premium price point."""
    found: list[Finding] = []
    under = _with_gap(visible, "under-indexed")
    if under:
        items = [
            {
                "name": row["Subcategory"],
                "own_pct": row["Own share"],
                "ref_pct": row["Reference share"],
                "index_num": row["Share index"],
            }
            for _, row in under[:3]
        ]
        found.append(
            Finding(
                "gaps.under_indexed",
                {"items": items},
                cells=tuple((i, c) for i, _ in under[:3] for c in ("Own share", "Reference share", "Share index")),
                severity=6,
            )
        )
    floor = _with_gap(visible, "price floor")
    if floor:
        items = [
            {"name": row["Subcategory"], "min_price": row["Min price"], "ref_p25_price": row["Reference P25"]}
            for _, row in floor[:3]
        ]
        found.append(
            Finding(
                "gaps.price_floor",
                {"items": items},
                cells=tuple((i, c) for i, _ in floor[:3] for c in ("Min price", "Reference P25")),
                severity=4,
            )
        )
    ceiling = _with_gap(visible, "price ceiling")
    if ceiling:
        items = [
            {"name": row["Subcategory"], "max_price": row["Max price"], "ref_p75_price": row["Reference P75"]}
            for _, row in ceiling[:3]
        ]
        found.append(
            Finding(
                "gaps.price_ceiling",
                {"items": items},
                cells=tuple((i, c) for i, _ in ceiling[:3] for c in ("Max price", "Reference P75")),
                severity=3,
            )
        )
    return found


def _demand_missing(inp: SkillInput) -> Finding | None:
    """With Best sellers data: the scope's product clusters you do not carry that are in its top 10% of
    demand (ranked and judged exactly as demand_gaps does), "missing, and in the top 10% of demand"."""
    if inp.demand is None:
        return None
    from agent.analysis import demand

    top = demand.top_missing(inp)
    if not top:
        return None
    names = ", ".join(f"{r['Name']} ({r['Subcategory']})" if r["Subcategory"] else str(r["Name"]) for r in top[:5])
    return Finding("gaps.demand_missing", {"names": names + (" and others" if len(top) > 5 else "")}, severity=9)
