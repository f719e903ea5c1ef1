"""brand_coverage — "Which brands do competitors carry that I don't?"

Per category: products, brands, the leading brand and its share, products without a brand; with a
reference catalog, the reference's brand count and the brands only the reference carries (with their
product counts). The first row covers the whole scope. A catalog where one brand holds at least
SINGLE_VENDOR_SHARE % of products is flagged single-vendor; categories where one brand holds at least
DOMINANT_SHARE % (with MIN_DOMINANT_PRODUCTS products or more) are flagged as dominated.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult

SKILL_ID = "brand_coverage"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = ("product_key", "google_category_id", "category_path", "product_type", "brand")
SINGLE_VENDOR_SHARE = 90.0
DOMINANT_SHARE = 80.0
MIN_DOMINANT_PRODUCTS = 5
LIST_LIMIT = 5

COLUMNS = (
    ("Category", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Brands", "count", pa.int64()),
    ("Top brand", "text", pa.string()),
    ("Top brand share", "percent", pa.float64()),
    ("Products without brand", "count", pa.int64()),
)
REF_COLUMNS = (
    ("Reference brands", "count", pa.int64()),
    ("Brands only in reference", "count", pa.int64()),
    ("Reference-only brands (products)", "text", pa.string()),
)


def _brand_codes(table: pa.Table) -> tuple[np.ndarray, list[str]]:
    """Brand code per row (-1 = no brand) and the brand names: spellings that differ only in case are
    one brand, shown in its spelling on most products (common.brand_codes)."""
    return common.brand_codes(table["brand"], common.numpy_of(table["product_key"]))


@dataclass
class BrandCounts:
    """Distinct products per category and per (category, brand), as numpy arrays over pairs."""

    cats: list[str]
    brands: list[str]
    totals: np.ndarray  # per category index: products
    pair_cat: np.ndarray  # per (category, brand) pair: category index
    pair_brand: np.ndarray  # brand index, -1 = no brand
    pair_products: np.ndarray

    @classmethod
    def from_pairs(cls, totals: dict[str, int], pairs: list[tuple[str, str | None, int]]) -> "BrandCounts":
        """From aggregated rows: products per category, and per (category, brand or None) pair (the
        pushdown path, agent.analysis.brands_sql)."""
        cats = list(totals)
        brands = sorted({brand for _, brand, _ in pairs if brand is not None})
        cat_index, brand_index = {c: i for i, c in enumerate(cats)}, {b: i for i, b in enumerate(brands)}
        return cls(
            cats,
            brands,
            np.array([totals[c] for c in cats], dtype=np.int64),
            np.array([cat_index[c] for c, _, _ in pairs], dtype=np.int64),
            np.array([-1 if b is None else brand_index[b] for _, b, _ in pairs], dtype=np.int64),
            np.array([n for _, _, n in pairs], dtype=np.int64),
        )

    def summary(self) -> dict[str, tuple[int, str | None, int, int]]:
        """category -> (brands, top brand, its products, products without brand); ties go to the name."""
        out: dict[str, tuple[int, str | None, int, int]] = {}
        has = self.pair_brand >= 0
        n_brands = np.bincount(self.pair_cat[has], minlength=len(self.cats))
        none = np.bincount(self.pair_cat[~has], weights=self.pair_products[~has], minlength=len(self.cats))
        rank = (
            np.argsort(np.argsort(np.array(self.brands, dtype=object))) if self.brands else np.zeros(0, dtype=np.int64)
        )
        category, brand, n = self.pair_cat[has], self.pair_brand[has], self.pair_products[has]
        order = np.lexsort((rank[brand] if len(brand) else brand, -n, category))
        first = order[np.concatenate(([True], category[order][1:] != category[order][:-1]))] if len(order) else order
        top = {int(category[i]): (self.brands[int(brand[i])], int(n[i])) for i in first}
        for i, name in enumerate(self.cats):
            if self.totals[i] or n_brands[i] or none[i]:
                t_name, t_n = top.get(i, (None, 0))
                out[name] = (int(n_brands[i]), t_name, t_n, int(none[i]))
        return out

    def per_category(self) -> dict[str, dict[str, int]]:
        per: dict[str, dict[str, int]] = defaultdict(dict)
        for category, brand, n in zip(self.pair_cat.tolist(), self.pair_brand.tolist(), self.pair_products.tolist()):
            if brand >= 0:
                per[self.cats[category]][self.brands[brand]] = n
        return per


def _brand_counts(scoped: pa.Table, labels: pa.DictionaryArray) -> BrandCounts:
    """Distinct products per (category, brand) and per category with common.distinct_per_code: one
    ordered pass on the catalog layer's layout (hash fallback otherwise), dense pair codes when they fit."""
    codes, names = _brand_codes(scoped)
    cats = labels.dictionary.to_pylist()
    ci = common.numpy_of(labels.indices).astype(np.int64)
    pk = common.numpy_of(scoped["product_key"])
    width = len(names) + 1
    combined = ci * width + (codes + 1)
    if len(cats) * width <= 5_000_000:
        counts = common.distinct_per_code(combined, pk, len(cats) * width)
        keys = np.flatnonzero(counts)
        products = counts[keys]
    else:
        pair = pc.dictionary_encode(pa.array(combined))
        keys = pair.dictionary.to_numpy(zero_copy_only=False)
        products = common.distinct_per_code(common.numpy_of(pair.indices).astype(np.int64), pk, len(keys))
    totals = common.distinct_per_code(ci, pk, len(cats))
    return BrandCounts(cats, names, totals, keys // width, keys % width - 1, products)


@dataclass
class BrandAggregates:
    """The own catalog's side of the answer, what `_rows` reads: the seam between where the counting
    runs (`own_aggregates` here from Arrow, agent.analysis.brands_sql in BigQuery above the size line)
    and what is said about it, so both paths build the same table and findings."""

    counts: BrandCounts  # distinct products per category and per (category, brand)
    scope_brands: dict[str, int]  # brand -> distinct products in the whole scope
    products: int  # distinct products in the scope
    without: int  # distinct products with a variant that names no brand
    notes: list[str] = field(default_factory=list)  # what the path itself has to say (pushdown: unplaced rows)


def _counted_in_bigquery(inp: SkillInput, pushdown: Any) -> BrandAggregates | None:
    """Above the size line: counted in BigQuery (imported here: brands_sql imports this module)."""
    from agent.analysis import brands_sql

    return brands_sql.own_aggregates(pushdown, inp.scope, inp.taxonomy)


def _counted_in_memory(inp: SkillInput, scoped: pa.Table) -> BrandAggregates | None:
    """The in-memory population counted, none when the scope holds no analysed row."""
    return own_aggregates(scoped, inp.scope, inp.taxonomy) if scoped.num_rows else None


def own_aggregates(scoped: pa.Table, scope, tax) -> BrandAggregates:
    """The in-memory path: the scope's population counted in numpy."""
    labels = common.category_labels(scoped, scope, tax)
    no_brand = pa.array(_brand_codes(scoped)[0] < 0)
    return BrandAggregates(
        _brand_counts(scoped, labels),
        _scope_brands(scoped),
        common.count_products(scoped),
        common.count_products(scoped.filter(no_brand)),
    )


def _scope_brands(table: pa.Table) -> dict[str, int]:
    codes, names = _brand_codes(table)
    keep = codes >= 0
    per = common.distinct_per_code(codes[keep], common.numpy_of(table["product_key"])[keep], len(names))
    return {names[i]: int(n) for i, n in enumerate(per.tolist()) if n}


def _row(name: str, products: int, brands: dict[str, int], without: int) -> dict:
    top = min(brands.items(), key=lambda kv: (-kv[1], kv[0])) if brands else None
    row = _summary_row(name, products, len(brands), top[0] if top else None, top[1] if top else 0, without)
    row["_tied"] = _tied_with_top(brands, top)
    return row


def _tied_with_top(brands: dict[str, int], top: tuple[str, int] | None) -> list[str]:
    """The other brands with as many products as the top one, by name: the "Top brand" cell holds one
    brand (ties go to the name), but the sentence must not call it the largest alone.

    A held-out pet shop's feed had AGATAR and Pets Store at 16 products each; the answer read "the
    largest is AGATAR with 4.2%", a claim the data does not make."""
    if top is None:
        return []
    return sorted(b for b, n in brands.items() if n == top[1] and b != top[0])


def _summary_row(name: str, products: int, n_brands: int, top: str | None, top_n: int, without: int) -> dict:
    return {
        "Category": name,
        "Products": products,
        "Brands": n_brands,
        "Top brand": top,
        "Top brand share": common.pct(top_n, products) if top else None,
        "Products without brand": without,
    }


def _ref_only(own: dict[str, int], ref: dict[str, int]) -> tuple[int, str | None]:
    own_l = {common.brand_key(b) for b in own}
    only = sorted(((b, n) for b, n in ref.items() if common.brand_key(b) not in own_l), key=lambda kv: (-kv[1], kv[0]))
    return len(only), ", ".join(f"{b} ({n:,})" for b, n in only[:LIST_LIMIT]) or None


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    with_ref = inp.reference is not None
    agg, excluded = sql_run.own_side(inp, READ, _counted_in_bigquery, _counted_in_memory)
    rows = _rows(inp, agg) if agg is not None and agg.products else []
    table = common.records_table(COLUMNS + (REF_COLUMNS if with_ref else ()), rows, excluded)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=_findings(rows, with_ref, excluded, whole=scope.is_whole_catalog),
        missing="reference" if scope.wants_reference and not with_ref else None,
        thresholds={
            "single_vendor_share_pct": SINGLE_VENDOR_SHARE,
            "dominant_share_pct": DOMINANT_SHARE,
            "min_dominant_products": MIN_DOMINANT_PRODUCTS,
        },
        currency=None,
        chart=("Category", "Brands"),
        taxonomy_note=common.taxonomy_note(scope, tax),
        notes=agg.notes if agg is not None else [],
    )


def _reference_columns(own: dict[str, int], ref: dict[str, int]) -> dict:
    """The reference's brand count and the brands only it carries, for one row."""
    n_only, text = _ref_only(own, ref)
    return {"Reference brands": len(ref), "Brands only in reference": n_only, "Reference-only brands (products)": text}


def _rows(inp: SkillInput, agg: BrandAggregates) -> list[dict]:
    """The table step: the scope's total row, then one row per category (own and, with a reference, the
    categories only it sells), those with most reference-only brands and the most dominant brand first."""
    scope, tax = inp.scope, inp.taxonomy
    with_ref = inp.reference is not None
    counts = agg.counts
    summary = counts.summary()
    totals = {category: int(n) for category, n in zip(counts.cats, counts.totals.tolist()) if n}
    per: dict[str, dict[str, int]] = {}
    ref_per: dict[str, dict[str, int]] = {}
    ref_all: dict[str, int] = {}
    if with_ref:
        per = counts.per_category()  # brand sets per category: only needed to compare with the reference
        reference = common.population(inp.reference, scope, tax, READ).table
        if reference.num_rows:
            ref_per = _brand_counts(reference, common.category_labels(reference, scope, tax)).per_category()
            ref_all = _scope_brands(reference)
    own_all = agg.scope_brands
    total = _row(
        common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)"), agg.products, own_all, agg.without
    )
    if with_ref:
        total.update(_reference_columns(own_all, ref_all))
    for category in ref_per:
        totals.setdefault(category, 0)  # categories only the reference sells still show its brands
    by_category = []
    for category, n in totals.items():
        n_brands, top, top_n, without = summary.get(category, (0, None, 0, 0))
        row = _summary_row(category, n, n_brands, top, top_n, without)
        if with_ref:
            row.update(_reference_columns(per.get(category, {}), ref_per.get(category, {})))
        by_category.append(row)
    by_category.sort(
        key=lambda r: (
            -(r.get("Brands only in reference") or 0),
            -(r["Top brand share"] or 0),
            -r["Products"],
            r["Category"],
        )
    )
    return [total, *by_category]


def _findings(rows: list[dict], with_ref: bool, excluded: dict[str, int], whole: bool = True) -> list[Finding]:
    """The brand findings, most severe first (at most seven): one vendor or the summary, the reference's
    brands this catalog lacks, categories one brand dominates (not when one vendor has it all anyway),
    products without a brand, rows excluded."""
    if not rows:
        return [Finding("brands.empty", {}, severity=10)]
    total = rows[0]
    found = [_headline(total, whole)]
    if with_ref:
        found.append(_reference_finding(total))
    dominated = _dominated(rows) if found[0].code != "brands.single_vendor" else None
    if dominated is not None:
        found.append(dominated)
    if total["Products without brand"]:
        found.append(
            Finding(
                "brands.no_brand",
                {"products_n": total["Products without brand"]},
                cells=((0, "Products without brand"),),
                severity=4,
            )
        )
    example = common.excluded_finding(excluded, rows)
    if example:
        found.append(example)
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _headline(total: dict, whole: bool = True) -> Finding:
    """One vendor holding SINGLE_VENDOR_SHARE or more of the products, else the brand summary. `whole`:
    the scope is the whole catalog (one brand in a scope says nothing of the catalog's other brands)."""
    if total["Top brand"] and total["Top brand share"] is not None and total["Top brand share"] >= SINGLE_VENDOR_SHARE:
        return Finding(
            "brands.single_vendor",
            {
                "brand": total["Top brand"],
                "share_pct": total["Top brand share"],
                "brands_n": total["Brands"],
                "whole": whole,
            },
            cells=((0, "Top brand"), (0, "Top brand share"), (0, "Brands")),
            severity=8,
        )
    return Finding(
        "brands.summary",
        {
            "brands_n": total["Brands"],
            "products_n": total["Products"],
            "top": total["Top brand"],
            "share_pct": total["Top brand share"],
            "tied": total.get("_tied") or [],
        },
        cells=((0, "Brands"), (0, "Products"), (0, "Top brand share")),
        severity=5,
    )


def _reference_finding(total: dict) -> Finding:
    """The brands only the reference carries (with their products), or that there are none."""
    if not total.get("Brands only in reference"):
        return Finding("brands.reference_none", {}, severity=6)
    return Finding(
        "brands.reference_only",
        {
            "only_n": total["Brands only in reference"],
            "ref_n": total["Reference brands"],
            "brands": total["Reference-only brands (products)"],
        },
        cells=((0, "Brands only in reference"), (0, "Reference brands"), (0, "Reference-only brands (products)")),
        severity=9,
    )


def _dominated(rows: list[dict]) -> Finding | None:
    """Up to three of the first categories shown where one brand holds DOMINANT_SHARE of at least
    MIN_DOMINANT_PRODUCTS products."""
    dominated = [
        (i, r)
        for i, r in list(enumerate(rows))[1:20]
        if r["Top brand share"] is not None
        and r["Top brand share"] >= DOMINANT_SHARE
        and r["Products"] >= MIN_DOMINANT_PRODUCTS
        and r["Brands"] >= 1
    ][:3]
    if not dominated:
        return None
    items = [{"name": r["Category"], "brand": r["Top brand"], "share_pct": r["Top brand share"]} for _, r in dominated]
    return Finding(
        "brands.dominated", {"items": items}, cells=tuple((i, "Top brand share") for i, _ in dominated), severity=7
    )
