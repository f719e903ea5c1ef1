"""availability — "What is out of stock in patio furniture?"

Per category of the scope: variants out of stock and the rate, products with every variant out (with
example titles), variants on backorder (sold while out: policy "continue") and preorder, variants whose
stock is unknown. Without any stock information in the data the answer says "stock unknown" — a missing
column is never read as zero stock.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common
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


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    pop = common.population(inp.own, scope, tax, READ)
    scoped = pop.table
    has_stock = common.has_stock_information(scoped)
    rows = _rows(scoped, scope, tax, has_stock) if scoped.num_rows else []
    table = common.records_table(COLUMNS, rows, pop.excluded)
    findings = _findings(rows, has_stock, pop.excluded)
    notes = (
        []
        if has_stock or not scoped.num_rows
        else [
            "Stock is unknown: the data states neither availability nor quantities, so nothing is reported as out of stock."
        ]
    )
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


def _rows(scoped: pa.Table, scope: Scope, tax: Taxonomy, has_stock: bool) -> list[dict]:
    """The table step: the scope's total row, then one row per category, highest out-of-stock rate first."""
    labels = common.category_labels(scoped, scope, tax)
    state = common.stock_codes(scoped)
    code = common.STOCK_STATES.index
    category_codes = labels.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_categories = len(labels.dictionary)
    product_keys = common.numpy_of(scoped["product_key"])
    out_of_stock = (state == code("out_of_stock")).astype(np.int64)

    def per_category(flags) -> np.ndarray:
        return np.bincount(category_codes, weights=flags, minlength=n_categories).astype(np.int64)

    counts = {
        "pk_count_distinct": common.distinct_per_code(category_codes, product_keys, n_categories),
        "pk_count": np.bincount(category_codes, minlength=n_categories),
        "oos_sum": per_category(out_of_stock),
        "bo_sum": per_category(state == code("backorder")),
        "pre_sum": per_category(state == code("preorder")),
        "unk_sum": per_category(state == code("unknown")),
    }
    names = labels.dictionary.to_pylist()
    by_category = [
        {"c": names[i], **{k: int(v[i]) for k, v in counts.items()}}
        for i in range(n_categories)
        if counts["pk_count"][i]
    ]
    # Products with every variant out of stock (label: the product's first category).
    per_product = common.per_product(
        scoped["product_key"], [("oos", pa.array(out_of_stock), "sum"), ("ci", labels.indices, "min")]
    )
    fully_n, fully_by_cat = _fully_out(per_product, labels.dictionary)
    examples = _out_of_stock_examples(scoped, per_product, names)
    rows = []
    for entry in by_category:
        category = entry["c"]
        rows.append(
            {
                "Category": category,
                "Products": entry["pk_count_distinct"],
                "Variants": entry["pk_count"],
                "Out-of-stock variants": entry["oos_sum"] if has_stock else None,
                "Out-of-stock rate": common.pct(entry["oos_sum"], entry["pk_count"] - entry["unk_sum"])
                if has_stock
                else None,
                "Products fully out": fully_by_cat.get(category, 0) if has_stock else None,
                "Backorder variants": entry["bo_sum"] if has_stock else None,
                "Preorder variants": entry["pre_sum"] if has_stock else None,
                "Stock unknown variants": entry["unk_sum"],
                "Out-of-stock products (examples)": "; ".join(examples.get(category, [])) or None,
            }
        )
    rows.sort(key=lambda r: (-(r["Out-of-stock rate"] or 0), -(r["Out-of-stock variants"] or 0), r["Category"]))
    return [_total_row(scoped, scope, rows, fully_n, has_stock), *rows]


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


def _total_row(scoped: pa.Table, scope: Scope, rows: list[dict], fully_n: int, has_stock: bool) -> dict:
    """The scope's total row: the category rows summed, products counted once, the rate over variants
    whose stock is known."""
    total_unknown = sum(r["Stock unknown variants"] for r in rows)
    total_oos = sum(r["Out-of-stock variants"] or 0 for r in rows)
    total = {
        "Category": common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)"),
        "Products": common.count_products(scoped),
        "Variants": scoped.num_rows,
        "Out-of-stock variants": total_oos if has_stock else None,
        "Out-of-stock rate": common.pct(total_oos, scoped.num_rows - total_unknown) if has_stock else None,
        "Products fully out": fully_n if has_stock else None,
        "Backorder variants": sum(r["Backorder variants"] or 0 for r in rows) if has_stock else None,
        "Preorder variants": sum(r["Preorder variants"] or 0 for r in rows) if has_stock else None,
        "Stock unknown variants": total_unknown,
        "Out-of-stock products (examples)": None,
    }
    return total


def _out_of_stock_examples(scoped: pa.Table, per_product: pa.Table, names: list[str]) -> dict[str, list[str]]:
    """Per category label, up to EXAMPLES titles of products with variants out of stock: products fully
    out first, then by out-of-stock variants (product_key breaks ties)."""
    examples: dict[str, list[str]] = {}
    some = per_product.filter(pc.greater(per_product["oos_sum"], 0))
    if some.num_rows:
        some = some.append_column("all_out", pc.cast(pc.equal(some["oos_sum"], some["pk_count"]), pa.int8()))
        # integer keys only (product_key breaks ties): deterministic and cheap on many products
        some = some.sort_by(
            [("ci_min", "ascending"), ("all_out", "descending"), ("oos_sum", "descending"), ("pk", "ascending")]
        )
        codes = some["ci_min"].to_numpy()
        first = np.ones(len(codes), dtype=bool)
        first[1:] = codes[1:] != codes[:-1]
        rank = np.arange(len(codes)) - np.maximum.accumulate(np.where(first, np.arange(len(codes)), 0))
        some = some.filter(pa.array(rank < EXAMPLES * 2))
        # titles only for the few products named (a string aggregate over every row is costly)
        chosen = scoped.select(["product_key", "title"]).filter(pc.is_in(scoped["product_key"], value_set=some["pk"]))
        chosen = chosen.set_column(1, "title", common.as_str(chosen["title"]))  # min() needs plain text
        titles = {
            record["product_key"]: record["title_min"]
            for record in chosen.group_by("product_key").aggregate([("title", "min")]).to_pylist()
        }
        for code, pk in zip(some["ci_min"].to_pylist(), some["pk"].to_pylist()):
            title = titles.get(pk)
            named = examples.setdefault(names[code], [])
            if len(named) < EXAMPLES and title and title not in named:
                named.append(title)
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
    fully = [(i, r) for i, r in visible if r["Products fully out"]]
    if total["Products fully out"]:
        items = [{"name": r["Category"], "products_n": r["Products fully out"]} for _, r in fully[:3]]
        found.append(
            Finding(
                "availability.fully_out",
                {"products_n": total["Products fully out"], "items": items},
                cells=((0, "Products fully out"),) + tuple((i, "Products fully out") for i, _ in fully[:3]),
                severity=8,
            )
        )
    named = [(i, r) for i, r in visible if r["Out-of-stock products (examples)"]][:2]
    if named:
        items = [{"name": r["Category"], "titles": r["Out-of-stock products (examples)"]} for _, r in named]
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
    elif total["Out-of-stock variants"] == 0:
        found.append(Finding("availability.none_out", {}, severity=7))
    return found


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
