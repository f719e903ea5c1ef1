"""catalog_overview — "What is in this file?": size, statuses, mapping, prices, categories, brands, format.

One long two-level table (Section, Item, Count, Share, Price) ordered so the rows the findings cite come
first: render shows at most 20 rows, and a number in a bullet must be visible in the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult

SKILL_ID = "catalog_overview"
# The canonical columns this skill reads (population() carries only these through its filter).
# How each canonical mapping method is named in the overview, in the order shown (every method of
# canonical.MAPPING_METHODS has a label: a test checks it, so a new method is never silently left out).
MAPPING_LABELS = {
    "google_category": "from a Google category column",
    "shopify_category": "from your Shopify product category",
    "merchant_path": "from your category path",
    "name_match": "by taxonomy names in type or title",
    "own_category": "like the rest of its own category",
    "unmapped": "not mapped",
}
READ = (
    "product_key",
    "google_category_id",
    "category_path",
    "product_type",
    "category_mapping",
    "brand",
    "price",
    "currency",
)
TOP_CATEGORIES = 5
TOP_BRANDS = 3
# Price figures and bands are over priced variants (price above zero), one set per currency; bands are
# cut at round numbers near the catalog's own quartiles (common.price_band_cuts), never fixed amounts.
MAX_CURRENCIES = 3  # currencies given their own price figures; more are counted in the mixed-currency line
COLUMNS = (
    ("Section", "text", pa.string()),
    ("Item", "text", pa.string()),
    ("Count", "count", pa.int64()),
    ("Share", "percent", pa.float64()),
    ("Price", "money", pa.float64()),
)
CURRENCY_COLUMN = ("Currency", "currency", pa.string())  # added when prices come in several currencies
MAX_LISTED_COLUMNS = 8


@dataclass
class _Sheet:
    """The table rows and the findings as the sections build them: a finding cites cells by row index."""

    rows: list[tuple] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(
        self,
        section: str,
        item: str,
        count: int | None = None,
        share: float | None = None,
        price: float | None = None,
        cur: str | None = None,
    ) -> int:
        self.rows.append((section, item, count, share, price, cur))
        return len(self.rows) - 1

    def cell(self, row: int, column: str) -> Any:
        return self.rows[row][[c[0] for c in COLUMNS].index(column)]


def run(inp: SkillInput) -> SkillResult:
    """The overview table, section by section in the order shown, and its findings (most severe first)."""
    own, scope, tax = inp.own, inp.scope, inp.taxonomy
    pop = common.population(own, scope, tax, READ)
    analysed = pop.table
    # (a catalog kept in a conversation before `online_store` existed lacks the column)
    slim = own.select(
        [
            c
            for c in ("product_key", "status", "google_category_id", "category_path", "online_store")
            if c in own.column_names
        ]
    )
    mask = common.scope_mask(own, scope, tax)  # on the whole table: the turn's cached mask (same rows as slim)
    scoped = slim if mask is None else slim.filter(mask)
    sheet = _Sheet()
    labels = common.category_labels(analysed, scope, tax) if analysed.num_rows else pa.array([], pa.string())
    brands = common.as_str(analysed["brand"])
    n_brands = len(pc.unique(brands.drop_null())) if analysed.num_rows else 0

    _summary(sheet, scoped, labels, n_brands, whole=scope.is_whole_catalog, analysed=analysed.num_rows)
    _sources(sheet, [s for s in inp.sources if s.role == "catalog"])
    _statuses(sheet, scoped, pop)
    _mapping(sheet, analysed)
    groups = common.price_groups(analysed)
    mixed = len(groups) > 1
    price_np = common.numpy_of(analysed["price"]).astype(float) if analysed.num_rows else None
    _prices(sheet, analysed, groups, price_np)
    band_names: list[str] = []
    if analysed.num_rows:
        n_products = common.count_products(analysed)
        _top_categories(sheet, analysed, labels, n_products)
        band_names = _price_bands(sheet, groups, price_np)
        _brands(sheet, analysed, brands, n_brands, n_products)
    else:
        sheet.findings.append(Finding("overview.empty", {}, severity=10))

    findings = sorted(sheet.findings, key=lambda f: -f.severity)
    columns = COLUMNS + ((CURRENCY_COLUMN,) if mixed else ())
    table = common.build_table(columns, [r if mixed else r[: len(COLUMNS)] for r in sheet.rows])
    notes = [common.NO_PRICE_NOTE] if groups and all(g.currency is None for g in groups) else []
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        notes=notes,
        findings=findings[:7],
        thresholds={
            "top_categories": TOP_CATEGORIES,
            "top_brands": TOP_BRANDS,
            "price_bands": band_names,
            "price_unit": "priced variants (price above zero), per currency",
            "analysed_statuses": list(common.ANALYSED_STATUSES),
        },
        currency=groups[0].currency if len(groups) == 1 else None,
        taxonomy_note=common.taxonomy_note(scope, tax),
    )


def _summary(
    sheet: _Sheet, scoped: pa.Table, labels: pa.DictionaryArray, n_brands: int, *, whole: bool, analysed: int
) -> None:
    """Rows, products, categories and brands of the scope."""
    products_all = common.count_products(scoped)
    n_categories = len(pc.unique(labels.indices)) if analysed else 0
    r_rows = sheet.add("Summary", "Rows (variants)", scoped.num_rows)
    r_products = sheet.add("Summary", "Products", products_all)
    r_cats = sheet.add("Summary", "Categories", n_categories)
    r_brands = sheet.add("Summary", "Brands", n_brands)
    sheet.findings.append(
        Finding(
            "overview.size",
            {
                "rows_n": scoped.num_rows,
                "products_n": products_all,
                "categories_n": n_categories,
                "brands_n": n_brands,
                "whole": whole,
            },
            cells=((r_rows, "Count"), (r_products, "Count"), (r_cats, "Count"), (r_brands, "Count")),
            severity=9,
        )
    )


def _sources(sheet: _Sheet, catalog_sources: list[Any]) -> None:
    """Source format and columns (from evidence, when the service passes it), at most two sources."""
    for src in catalog_sources[:2]:
        r_fmt = sheet.add("Source", f"{src.name}: {src.format}, columns", len(src.columns))
        values = {
            "source": src.name,
            "format": src.format,
            "columns_n": len(src.columns),
            "unmapped_n": len(src.unmapped_columns),
        }
        cells = [(r_fmt, "Count")]
        if src.unmapped_columns:
            listed = ", ".join(src.unmapped_columns[:MAX_LISTED_COLUMNS]) + (
                " …" if len(src.unmapped_columns) > MAX_LISTED_COLUMNS else ""
            )
            r_un = sheet.add("Source", f"Columns not used: {listed}", len(src.unmapped_columns))
            cells.append((r_un, "Count"))
        if src.date_columns:
            sheet.add(
                "Source", f"Date columns: {', '.join(src.date_columns[:MAX_LISTED_COLUMNS])}", len(src.date_columns)
            )
            values["date_columns"] = ", ".join(src.date_columns[:MAX_LISTED_COLUMNS])
        sheet.findings.append(Finding("overview.format", values, cells=tuple(cells), severity=7))
        if src.rows_overlong:  # said in the answer as well as the footer: these cells were not read
            r_long = sheet.add("Source", f"{src.name}: rows longer than the header", src.rows_overlong)
            r_cells = sheet.add("Source", f"{src.name}: extra cells not read", src.extra_cells)
            sheet.findings.append(
                Finding(
                    "overview.overlong",
                    {"source": src.name, "rows_n": src.rows_overlong, "cells_n": src.extra_cells},
                    cells=((r_long, "Count"), (r_cells, "Count")),
                    severity=7,
                )
            )


def _statuses(sheet: _Sheet, scoped: pa.Table, pop: common.Population) -> None:
    """Rows per status, and which of them the analysis leaves out."""
    analysed = pop.table
    status_counts = common.value_counts(scoped["status"]) if scoped.num_rows else {}
    status_counts["unknown"] = status_counts.get("unknown", 0) + (scoped["status"].null_count if scoped.num_rows else 0)
    status_rows: dict[str, int] = {}
    for status in ("active", "unknown", "draft", "archived"):
        if status_counts.get(status):
            label = status if status != "unknown" else "status not stated"
            status_rows[status] = sheet.add(
                "Status (rows)", label, status_counts[status], common.pct(status_counts[status], scoped.num_rows)
            )
        if status == "active" and status in status_rows and "online_store" in scoped.column_names:
            _off_store(sheet, scoped)
    if pop.excluded:
        vals = {f"{k}_n": v for k, v in pop.excluded.items()}
        vals["analysed_n"] = analysed.num_rows
        analysed_row = sheet.add(
            "Status (rows)",
            "analysed (active or not stated)",
            analysed.num_rows,
            common.pct(analysed.num_rows, scoped.num_rows),
        )
        sheet.findings.append(
            Finding(
                "overview.excluded",
                vals,
                cells=tuple((status_rows[k], "Count") for k in pop.excluded) + ((analysed_row, "Count"),),
                severity=6,
            )
        )


def _off_store(sheet: _Sheet, scoped: pa.Table) -> None:
    """Active rows that are not on the online store (Shopify `Published` false): on sale elsewhere,
    so counted as active — and said, so a merchant expecting them online sees how many are not."""
    off = pc.and_(pc.equal(scoped["status"].cast(pa.string()), "active"), pc.invert(scoped["online_store"]))
    n = pc.sum(pc.fill_null(off, False).cast(pa.int64())).as_py() or 0
    if not n:
        return
    record = sheet.add("Status (rows)", "active, of which not on the online store", n, common.pct(n, scoped.num_rows))
    sheet.findings.append(Finding("overview.off_store", {"rows_n": n}, cells=((record, "Count"),), severity=6))


def _mapping(sheet: _Sheet, analysed: pa.Table) -> None:
    """How the analysed rows got their Google category (canonical.MAPPING_METHODS), and how many did not."""
    if not analysed.num_rows:
        return
    method_counts = common.value_counts(analysed["category_mapping"])
    method_counts["unmapped"] = method_counts.get("unmapped", 0) + analysed["category_mapping"].null_count
    method_rows = {}
    for method, label in MAPPING_LABELS.items():
        if method_counts.get(method):
            method_rows[method] = sheet.add(
                "Category mapping (rows)",
                label,
                method_counts[method],
                common.pct(method_counts[method], analysed.num_rows),
            )
    unmapped = method_counts.get("unmapped", 0)
    if unmapped:
        sheet.findings.append(
            Finding(
                "overview.unmapped",
                {"unmapped_n": unmapped, "unmapped_pct": sheet.cell(method_rows["unmapped"], "Share")},
                cells=((method_rows["unmapped"], "Count"), (method_rows["unmapped"], "Share")),
                severity=5,
            )
        )
    else:
        sheet.findings.append(Finding("overview.all_mapped", {}, severity=2))


def _prices(sheet: _Sheet, analysed: pa.Table, groups: list[Any], price_np: Any) -> None:
    """Price figures over priced variants, one set per currency; zero and missing prices counted apart."""
    mixed = len(groups) > 1
    counts = common.price_counts(analysed)
    group_rows: list[int] = []
    for group in groups[:MAX_CURRENCIES]:
        vals = price_np[group.rows]
        section = "Price (priced variants" + (f", {group.currency or 'no currency'})" if mixed else ")")
        low, med, high = (common.money(float(x)) for x in (vals.min(), _median(vals), vals.max()))
        r_n = sheet.add(
            section,
            "Priced variants",
            group.variants,
            common.pct(group.variants, analysed.num_rows),
            cur=group.currency,
        )
        r_lo = sheet.add(section, "Lowest price", price=low, cur=group.currency)
        r_med = sheet.add(section, "Median price", price=med, cur=group.currency)
        r_hi = sheet.add(section, "Highest price", price=high, cur=group.currency)
        group_rows.append(r_n)
        values = {"priced_n": group.variants, "low_price": low, "median_price": med, "high_price": high}
        if mixed:
            values["currency"] = group.currency
        sheet.findings.append(
            Finding(
                "overview.price",
                values,
                cells=((r_n, "Count"), (r_lo, "Price"), (r_med, "Price"), (r_hi, "Price")),
                severity=4,
            )
        )
    if mixed:
        items = [
            {"currency": group.currency or "no currency", "variants_n": group.variants}
            for group in groups[:MAX_CURRENCIES]
        ]
        sheet.findings.append(
            Finding(
                "overview.mixed_currency",
                {"items": items, "more": len(groups) > MAX_CURRENCIES},
                cells=tuple((r, "Count") for r in group_rows),
                severity=6,
            )
        )
    if counts["zero_n"] or counts["negative_n"]:
        r_z = sheet.add(
            "Price",
            "Priced 0.00 or below (left out of price figures)",
            counts["zero_n"] + counts["negative_n"],
            common.pct(counts["zero_n"] + counts["negative_n"], analysed.num_rows),
        )
        sheet.findings.append(
            Finding(
                "overview.zero_price",
                {"zero_n": counts["zero_n"] + counts["negative_n"]},
                cells=((r_z, "Count"),),
                severity=5,
            )
        )
    if counts["unpriced_n"] and analysed.num_rows:
        sheet.add("Price", "No price", counts["unpriced_n"], common.pct(counts["unpriced_n"], analysed.num_rows))


def _top_categories(sheet: _Sheet, analysed: pa.Table, labels: pa.DictionaryArray, n_products: int) -> None:
    """The categories with the most products."""
    per_cat = common.distinct_per_code(
        common.numpy_of(labels.indices), common.numpy_of(analysed["product_key"]), len(labels.dictionary)
    )
    grouped = pa.table({"c": labels.dictionary.cast(pa.string()), "k_count_distinct": pa.array(per_cat)})
    grouped = grouped.filter(pc.greater(grouped["k_count_distinct"], 0)).sort_by(
        [("k_count_distinct", "descending"), ("c", "ascending")]
    )
    top = grouped.slice(0, TOP_CATEGORIES).to_pylist()
    crow = []
    for counted in top:
        crow.append(
            sheet.add(
                "Top categories (products)",
                counted["c"],
                counted["k_count_distinct"],
                common.pct(counted["k_count_distinct"], n_products),
            )
        )
    if top:
        vals = {"top": [{"name": sheet.cell(r, "Item"), "products_n": sheet.cell(r, "Count")} for r in crow[:3]]}
        sheet.findings.append(
            Finding("overview.categories", vals, cells=tuple((r, "Count") for r in crow[:3]), severity=8)
        )


def _price_bands(sheet: _Sheet, groups: list[Any], price_np: Any) -> list[str]:
    """Price bands of priced variants, cut at round numbers near the catalog's own quartiles; their labels."""
    mixed = len(groups) > 1
    band_names: list[str] = []
    for group in groups[:MAX_CURRENCIES]:
        vals = price_np[group.rows]
        section = "Price bands (priced variants" + (f", {group.currency or 'no currency'})" if mixed else ")")
        best = None
        bands = common.band_labels(common.price_band_cuts(vals), group.currency)
        for label, lo_b, hi_b in bands:
            n = int(((vals >= lo_b) & (vals < hi_b)).sum())
            band = sheet.add(section, label, n, common.pct(n, group.variants), cur=group.currency)
            band_names.append(label)
            if best is None or n > sheet.cell(best, "Count"):
                best = band
        if best is not None and group is groups[0] and len(bands) > 1:
            sheet.findings.append(
                Finding(
                    "overview.top_band",
                    {
                        "band": sheet.cell(best, "Item"),
                        "variants_n": sheet.cell(best, "Count"),
                        "priced_n": group.variants,
                        "variants_pct": sheet.cell(best, "Share"),
                    },
                    cells=((best, "Count"), (best, "Share")),
                    severity=3,
                )
            )
    return band_names


def _brands(sheet: _Sheet, analysed: pa.Table, brands: pa.Array, n_brands: int, n_products: int) -> None:
    """The brands with the most products, or that there is one brand, or none."""
    by_top = pa.table({"b": brands, "k": analysed["product_key"]}).filter(pc.is_valid(brands))
    if not by_top.num_rows:
        sheet.findings.append(Finding("overview.no_brands", {}, severity=3))
        return
    by_group = (
        by_top.group_by("b")
        .aggregate([("k", "count_distinct")])
        .sort_by([("k_count_distinct", "descending"), ("b", "ascending")])
    )
    brow = [
        sheet.add("Top brands (products)", d["b"], d["k_count_distinct"], common.pct(d["k_count_distinct"], n_products))
        for d in by_group.slice(0, TOP_BRANDS).to_pylist()
    ]
    if n_brands == 1:
        sheet.findings.append(
            Finding(
                "overview.single_brand", {"brand": sheet.cell(brow[0], "Item")}, cells=((brow[0], "Item"),), severity=3
            )
        )
    elif brow:
        sheet.findings.append(
            Finding(
                "overview.top_brand",
                {
                    "brand": sheet.cell(brow[0], "Item"),
                    "products_n": sheet.cell(brow[0], "Count"),
                    "products_pct": sheet.cell(brow[0], "Share"),
                },
                cells=((brow[0], "Count"), (brow[0], "Share")),
                severity=1,
            )
        )


def _median(values) -> float:
    import numpy as np

    return float(np.quantile(values, 0.5))
