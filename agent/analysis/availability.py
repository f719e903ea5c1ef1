"""availability — "What is out of stock in patio furniture?"

Per category of the scope: variants out of stock and the rate, products with every variant out (with
example titles), variants on backorder (sold while out: policy "continue") and preorder, variants whose
stock is unknown. Without any stock information in the data the answer says "stock unknown" — a missing
column is never read as zero stock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, Scope, SkillResult
from agent.catalog.taxonomy import Taxonomy

SKILL_ID = "availability"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = (
    "product_key",
    "google_category_id",
    "category_path",
    "product_type",
    "availability",
    "inventory_qty",
    "inventory_policy",
    "title",
)
EXAMPLES = 5  # product titles named per category: every variant out first, then most variants out

COLUMNS = (
    ("Category", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Variants", "count", pa.int64()),
    ("Out-of-stock variants", "count", pa.int64()),
    ("Out-of-stock rate", "percent", pa.float64()),
    ("Products fully out", "count", pa.int64()),
    ("Backorder variants", "count", pa.int64()),
    ("Preorder variants", "count", pa.int64()),
    ("Stock unknown variants", "count", pa.int64()),
    ("Out-of-stock products (examples)", "text", pa.string()),
)


@dataclass
class StockCounts:
    """The own catalog's side of the answer, what `_rows` reads: the seam between where the counting runs
    (`own_counts` here from Arrow, agent.analysis.availability_sql in BigQuery above the size line) and
    what is said about it, so both paths build the same table and findings.

    A product's category, for "fully out" and the examples, is the first (by name) of its variants'
    category labels; the examples are, per category, the first EXAMPLES distinct titles of products with
    a variant out of stock, products fully out first, then most variants out, then by title (a
    product's title: the first of its variants' by value), plus one more when there is one, which is
    not named but makes the answer say "and others". Both orders are ones SQL can produce: before
    they followed the catalog's row order and integer product keys, which a BigQuery table has not.
    """

    by_category: list[dict]  # "c" (label), "products", "variants", "oos", "backorder", "preorder", "unknown"
    fully_n: int  # products with every variant out of stock
    fully_by_cat: dict[str, int]  # … per the product's category
    examples: dict[str, list[str]]  # category label -> example titles (EXAMPLES + 1 at most)
    products: int  # distinct products in the scope
    variants: int  # variant rows in the scope
    has_stock: bool  # any variant states its stock
    notes: list[str] = field(default_factory=list)  # what the path itself has to say (pushdown: unplaced rows)


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    agg, excluded = sql_run.own_side(inp, READ, _counted_in_bigquery, _counted_in_memory)
    has_stock = agg is not None and agg.has_stock
    rows = _rows(agg, scope) if agg is not None and agg.variants else []
    table = common.records_table(COLUMNS, rows, excluded)
    findings = _findings(rows, has_stock, excluded)
    notes = list(agg.notes) if agg is not None else []
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=findings,
        thresholds={"stock_rule": "stated availability, else quantity > 0 in stock; no quantity = unknown"},
        chart=("Category", "Out-of-stock rate") if has_stock else None,
        taxonomy_note=common.taxonomy_note(scope, tax),
        notes=notes,
    )


def _counted_in_bigquery(inp: SkillInput, pushdown: Any) -> StockCounts | None:
    """Above the size line: counted in BigQuery (imported here: availability_sql imports this module)."""
    from agent.analysis import availability_sql

    return availability_sql.own_counts(pushdown, inp.scope, inp.taxonomy)


def _counted_in_memory(inp: SkillInput, scoped: pa.Table) -> StockCounts | None:
    """The in-memory population counted, none when the scope holds no analysed row."""
    return own_counts(scoped, inp.scope, inp.taxonomy) if scoped.num_rows else None


def own_counts(scoped: pa.Table, scope: Scope, tax: Taxonomy) -> StockCounts:
    """The in-memory path: the scope's population counted in numpy and Arrow."""
    labels = common.category_labels(scoped, scope, tax)
    state = common.stock_codes(scoped)
    code = common.STOCK_STATES.index
    category_codes = labels.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_categories = len(labels.dictionary)
    out_of_stock = (state == code("out_of_stock")).astype(np.int64)

    def per_category(flags) -> np.ndarray:
        return np.bincount(category_codes, weights=flags, minlength=n_categories).astype(np.int64)

    counts = {
        "products": common.distinct_per_code(category_codes, common.numpy_of(scoped["product_key"]), n_categories),
        "variants": np.bincount(category_codes, minlength=n_categories),
        "oos": per_category(out_of_stock),
        "backorder": per_category(state == code("backorder")),
        "preorder": per_category(state == code("preorder")),
        "unknown": per_category(state == code("unknown")),
    }
    names = labels.dictionary.to_pylist()
    by_category = [
        {"c": names[i], **{k: int(v[i]) for k, v in counts.items()}}
        for i in range(n_categories)
        if counts["variants"][i]
    ]
    # a product's category: the first by name of its variants' (ranks of the labels, not their codes)
    by_name = pc.sort_indices(labels.dictionary).to_numpy()
    rank = np.empty(n_categories, dtype=np.int64)
    rank[by_name] = np.arange(n_categories)
    sorted_names = [names[i] for i in by_name.tolist()]
    per_product = common.per_product(
        scoped["product_key"], [("oos", pa.array(out_of_stock), "sum"), ("ci", pa.array(rank[category_codes]), "min")]
    )
    fully_n, fully_by_cat = _fully_out(per_product, pa.array(sorted_names, pa.string()))
    return StockCounts(
        by_category=by_category,
        fully_n=fully_n,
        fully_by_cat=fully_by_cat,
        examples=_out_of_stock_examples(scoped, per_product, sorted_names),
        products=common.count_products(scoped),
        variants=scoped.num_rows,
        has_stock=common.has_stock_information(scoped),
    )


def _rows(agg: StockCounts, scope: Scope) -> list[dict]:
    """The table step: the scope's total row, then one row per category, highest out-of-stock rate first."""
    has_stock = agg.has_stock
    rows = []
    for entry in agg.by_category:
        category = entry["c"]
        rows.append(
            {
                "Category": category,
                "Products": entry["products"],
                "Variants": entry["variants"],
                "Out-of-stock variants": entry["oos"] if has_stock else None,
                "Out-of-stock rate": common.pct(entry["oos"], entry["variants"] - entry["unknown"])
                if has_stock
                else None,
                "Products fully out": agg.fully_by_cat.get(category, 0) if has_stock else None,
                "Backorder variants": entry["backorder"] if has_stock else None,
                "Preorder variants": entry["preorder"] if has_stock else None,
                "Stock unknown variants": entry["unknown"],
                "Out-of-stock products (examples)": "; ".join(agg.examples.get(category, [])[:EXAMPLES]) or None,
                "_more_examples": len(agg.examples.get(category, [])) > EXAMPLES,
            }
        )
    rows.sort(key=lambda r: (-(r["Out-of-stock rate"] or 0), -(r["Out-of-stock variants"] or 0), r["Category"]))
    return [_total_row(agg, scope, rows), *rows]


def _fully_out(per_product: pa.Table, categories: pa.Array) -> tuple[int, dict[str, int]]:
    """Products with every variant out of stock: how many, and per category (a product's first one)."""
    fully = per_product.filter(
        pc.and_(pc.equal(per_product["oos_sum"], per_product["pk_count"]), pc.greater(per_product["oos_sum"], 0))
    )
    fully = fully.append_column("c_min", pc.take(categories, fully["ci_min"]))
    fully_by_cat: dict[str, int] = {}
    if fully.num_rows:
        for counted in fully.group_by("c_min").aggregate([("pk", "count")]).to_pylist():
            fully_by_cat[counted["c_min"]] = counted["pk_count"]
    return fully.num_rows, fully_by_cat


def _total_row(agg: StockCounts, scope: Scope, rows: list[dict]) -> dict:
    """The scope's total row: the category rows summed, products counted once, the rate over variants
    whose stock is known."""
    has_stock = agg.has_stock
    total_unknown = sum(r["Stock unknown variants"] for r in rows)
    total_oos = sum(r["Out-of-stock variants"] or 0 for r in rows)
    return {
        "Category": common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)"),
        "Products": agg.products,
        "Variants": agg.variants,
        "Out-of-stock variants": total_oos if has_stock else None,
        "Out-of-stock rate": common.pct(total_oos, agg.variants - total_unknown) if has_stock else None,
        "Products fully out": agg.fully_n if has_stock else None,
        "Backorder variants": sum(r["Backorder variants"] or 0 for r in rows) if has_stock else None,
        "Preorder variants": sum(r["Preorder variants"] or 0 for r in rows) if has_stock else None,
        "Stock unknown variants": total_unknown,
        "Out-of-stock products (examples)": None,
    }


def _out_of_stock_examples(scoped: pa.Table, per_product: pa.Table, names: list[str]) -> dict[str, list[str]]:
    """Per category label (`names`, indexed by the products' `ci_min`), the first EXAMPLES distinct titles
    of products with variants out of stock: fully out first, then most variants out, then by title (see
    StockCounts). Sorted and de-duplicated in Arrow (a Python sort of titles was 2× the skill at 1M rows)."""
    some = per_product.filter(pc.greater(per_product["oos_sum"], 0))
    if not some.num_rows:
        return {}
    # titles only for the products with something out (a string aggregate over every row is costly)
    chosen = scoped.select(["product_key", "title"]).filter(pc.is_in(scoped["product_key"], value_set=some["pk"]))
    chosen = chosen.set_column(1, "title", common.as_str(chosen["title"]))  # min() needs plain text
    titles = chosen.group_by("product_key").aggregate([("title", "min")])
    some = some.join(titles, keys="pk", right_keys="product_key").filter(pc.is_valid(pc.field("title_min")))
    if not some.num_rows:
        return {}
    all_out = pc.cast(pc.equal(some["oos_sum"], some["pk_count"]), pa.int64())
    some = some.append_column("key", pc.add(pc.multiply(all_out, 1 << 40), pc.cast(some["oos_sum"], pa.int64())))
    # a title once per category, at its best key; then per category by key (descending), then title
    best = some.group_by(["ci_min", "title_min"]).aggregate([("key", "max")])
    best = best.sort_by([("ci_min", "ascending"), ("key_max", "descending"), ("title_min", "ascending")])
    codes = best["ci_min"].to_numpy()
    first = np.ones(len(codes), dtype=bool)
    first[1:] = codes[1:] != codes[:-1]
    position = np.arange(len(codes)) - np.maximum.accumulate(np.where(first, np.arange(len(codes)), 0))
    best = best.filter(pa.array(position <= EXAMPLES))  # one more than named: it says there are others
    examples: dict[str, list[str]] = {}
    for code, title in zip(best["ci_min"].to_pylist(), best["title_min"].to_pylist()):
        examples.setdefault(names[code], []).append(title)
    return examples


def _findings(rows: list[dict], has_stock: bool, excluded: dict[str, int]) -> list[Finding]:
    """The availability findings, most severe first (at most seven): the summary, the categories worst
    off (`_category_findings`), the stock states beside in/out (`_state_findings`), rows excluded."""
    if not rows:
        return [Finding("availability.empty", {}, severity=10)]
    total = rows[0]
    if not has_stock:
        return [
            Finding("availability.unknown", {"variants_n": total["Variants"]}, cells=((0, "Variants"),), severity=9)
        ]
    found = [
        Finding(
            "availability.summary",
            {
                "oos_n": total["Out-of-stock variants"],
                "variants_n": total["Variants"],
                "rate_pct": total["Out-of-stock rate"],
                "unknown_n": total["Stock unknown variants"],
            },
            cells=((0, "Out-of-stock variants"), (0, "Variants"), (0, "Out-of-stock rate")),
            severity=9,
        )
    ]
    found += _category_findings(rows)
    found += _state_findings(total)
    ex = common.excluded_finding(excluded, rows)
    if ex:
        found.append(ex)
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _category_findings(rows: list[dict]) -> list[Finding]:
    """Among the first categories shown: where products are fully out, which out-of-stock products they
    name, and the worst out-of-stock rates (or that nothing is out)."""
    total, found = rows[0], []
    visible = list(enumerate(rows))[1:20]
    fully = _most_fully_out(visible)[:3]
    if total["Products fully out"]:
        items = [{"name": r["Category"], "products_n": r["Products fully out"]} for _, r in fully]
        listed = sum(r["Products fully out"] for _, r in fully)
        found.append(
            Finding(
                "availability.fully_out",
                {
                    "products_n": total["Products fully out"],
                    "items": items,
                    "more": listed < total["Products fully out"],
                },
                cells=((0, "Products fully out"),) + tuple((i, "Products fully out") for i, _ in fully),
                severity=8,
            )
        )
    # categories with a product fully out first (a shopper can buy none of its variants: what "what's
    # out of stock?" must name), most fully out first, then by the table's order (a held-out jewellery
    # shop's answer named a half-out handbag and left its two fully-out products unnamed in the prose)
    named = sorted(
        ((i, r) for i, r in visible if r["Out-of-stock products (examples)"]),
        key=lambda ir: (-(ir[1]["Products fully out"] or 0), ir[0]),
    )[:2]
    if named:
        items = [
            {"name": r["Category"], "titles": r["Out-of-stock products (examples)"], "more": r.get("_more_examples")}
            for _, r in named
        ]
        found.append(
            Finding(
                "availability.examples",
                {"items": items},
                cells=tuple((i, "Out-of-stock products (examples)") for i, _ in named),
                severity=7,
            )
        )
    worst = [(i, r) for i, r in visible if r["Out-of-stock variants"]][:3]
    if worst:
        items = [
            {"name": r["Category"], "rate_pct": r["Out-of-stock rate"], "oos_n": r["Out-of-stock variants"]}
            for _, r in worst
        ]
        found.append(
            Finding(
                "availability.worst",
                {"items": items},
                cells=tuple((i, c) for i, _ in worst for c in ("Out-of-stock rate", "Out-of-stock variants")),
                severity=7,
            )
        )
    return found


def _most_fully_out(visible: list[tuple[int, dict]]) -> list[tuple[int, dict]]:
    """The shown categories holding a product with every variant out, the most such products first, then
    in the table's order (which is by out-of-stock rate).

    By rate alone, a held-out print-on-demand shop's 58 fully-out products were said to be "in" a
    one-product category (1), Unmapped (27) and a watch-band category (1), leaving out Shirts & Tops,
    which held 28 of them: the sentence named where 29 of the 58 are as if it were all of them."""
    fully = [(i, r) for i, r in visible if r["Products fully out"]]
    return sorted(fully, key=lambda ir: (-ir[1]["Products fully out"], ir[0]))


# (total row column, finding, its count parameter, severity): the stock states beside in and out
_STATES = (
    ("Backorder variants", "availability.backorder", "backorder_n", 4),
    ("Preorder variants", "availability.preorder", "preorder_n", 3),
    ("Stock unknown variants", "availability.partly_unknown", "unknown_n", 5),
)


def _state_findings(total: dict) -> list[Finding]:
    """One finding per stock state the total row counts variants in (backorder, preorder, unknown)."""
    return [
        Finding(kind, {param: total[column]}, cells=((0, column),), severity=severity)
        for column, kind, param, severity in _STATES
        if total[column]
    ]
