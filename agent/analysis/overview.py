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
    "vehicle_listing": "as a vehicle listing (mileage and model year)",
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


@dataclass
class PriceFigures:
    """One currency's priced variants: how many, lowest/median/highest and the variants per band."""

    currency: str | None
    variants: int
    low: float
    median: float
    high: float
    bands: list[tuple[str, int]]  # (band label, variants), in band order


@dataclass
class Figures:
    """What the overview shows, computed from the Arrow table (`figures`) or aggregated in BigQuery
    (agent.analysis.overview_sql); `answer` turns either into the same table and findings."""

    rows_n: int  # variant rows in scope, whatever their status
    products_all: int  # distinct products of those rows
    analysed: int  # rows with an analysed status
    products_n: int  # distinct products of the analysed rows
    categories_n: int
    brands_n: int
    statuses: dict[str, int]  # rows per canonical status ("unknown": not stated)
    off_store: int | None  # active rows not on the online store (None: no such column)
    excluded: dict[str, int]  # rows left out by status
    mappings: dict[str, int]  # analysed rows per mapping method ("unmapped" included)
    prices: list[PriceFigures]  # the main currency first
    currencies_n: int  # currencies with priced variants (only MAX_CURRENCIES get figures)
    counts: dict[str, int]  # common.price_counts
    top_categories: list[tuple[str, int]]  # (label, products), most first
    top_brands: list[tuple[str, int]]  # (brand, products), most first
    no_currency: bool  # prices are stated but no currency is
    notes: list[str] = field(default_factory=list)  # what the path itself has to say


def run(inp: SkillInput) -> SkillResult:
    """The overview of the scope: in memory, or above BigQuery's size line aggregated where it lies."""
    pushdown = next((s.pushdown for s in inp.sources if getattr(s, "pushdown", None) is not None), None)
    if pushdown is not None:
        from agent.analysis import overview_sql

        return answer(inp, overview_sql.figures(pushdown, inp.scope, inp.taxonomy))
    return answer(inp, figures(inp))


def figures(inp: SkillInput) -> Figures:
    """The overview's figures from the canonical Arrow table (the in-memory path)."""
    own, scope, tax = inp.own, inp.scope, inp.taxonomy
    pop = common.population(own, scope, tax, READ)
    t = pop.table
    # (a catalog kept in a conversation before `online_store` existed lacks the column)
    slim = own.select(
        [
            c
            for c in ("product_key", "status", "google_category_id", "category_path", "online_store")
            if c in own.column_names
        ]
    )
    mask = common.scope_mask(own, scope, tax)  # on the whole table: the turn's cached mask (same rows as slim)
    scoped = slim if mask is None else common.rows_where(slim, mask)
    labels = common.category_labels(t, scope, tax) if t.num_rows else pa.array([], pa.string())
    brand_code, brand_names = (
        common.brand_codes(t["brand"], common.numpy_of(t["product_key"])) if t.num_rows else ((), [])
    )
    statuses = common.value_counts(scoped["status"]) if scoped.num_rows else {}
    statuses["unknown"] = statuses.get("unknown", 0) + (scoped["status"].null_count if scoped.num_rows else 0)
    mappings: dict[str, int] = {}
    if t.num_rows:
        mappings = common.value_counts(t["category_mapping"])
        mappings["unmapped"] = mappings.get("unmapped", 0) + t["category_mapping"].null_count
    groups = common.price_groups(t)
    price_np: Any = common.numpy_of(t["price"]).astype(float) if t.num_rows else None
    prices = []
    for g in groups[:MAX_CURRENCIES]:
        vals = price_np[g.rows]
        bands = [
            (label, int(((vals >= lo) & (vals < hi)).sum()))
            for label, lo, hi in common.band_labels(common.price_band_cuts(vals), g.currency)
        ]
        prices.append(PriceFigures(g.currency, g.variants, float(vals.min()), _median(vals), float(vals.max()), bands))
    return Figures(
        rows_n=scoped.num_rows,
        products_all=common.count_products(scoped),
        analysed=t.num_rows,
        products_n=common.count_products(t) if t.num_rows else 0,
        categories_n=_categories_n(labels) if t.num_rows else 0,
        brands_n=len(brand_names),
        statuses=statuses,
        off_store=_off_store_n(scoped) if "online_store" in scoped.column_names else None,
        excluded=dict(pop.excluded),
        mappings=mappings,
        prices=prices,
        currencies_n=len(groups),
        counts=common.price_counts(t),
        top_categories=_top_categories_of(t, labels) if t.num_rows else [],
        top_brands=_top_brands_of(t, brand_code, brand_names) if t.num_rows else [],
        no_currency=bool(groups) and all(g.currency is None for g in groups),
    )


def answer(inp: SkillInput, fig: Figures) -> SkillResult:
    """The overview table, section by section in the order shown, and its findings (most severe first)."""
    scope, tax = inp.scope, inp.taxonomy
    sheet = _Sheet()
    _summary(sheet, fig, whole=scope.is_whole_catalog)
    _sources(sheet, [s for s in inp.sources if s.role == "catalog"])
    _statuses(sheet, fig)
    _mapping(sheet, fig)
    mixed = fig.currencies_n > 1
    _prices(sheet, fig)
    band_names: list[str] = []
    if fig.analysed:
        _top_categories(sheet, fig)
        band_names = _price_bands(sheet, fig)
        _brands(sheet, fig, whole=scope.is_whole_catalog)
    else:
        sheet.findings.append(Finding("overview.empty", {}, severity=10))

    findings = sorted(sheet.findings, key=lambda f: -f.severity)
    columns = COLUMNS + ((CURRENCY_COLUMN,) if mixed else ())
    table = common.build_table(columns, [r if mixed else r[: len(COLUMNS)] for r in sheet.rows])
    notes = [common.NO_PRICE_NOTE] if fig.no_currency else []
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        notes=[*fig.notes, *notes],
        findings=findings[:7],
        thresholds={
            "top_categories": TOP_CATEGORIES,
            "top_brands": TOP_BRANDS,
            "price_bands": band_names,
            "price_unit": "priced variants (price above zero), per currency",
            "analysed_statuses": list(common.ANALYSED_STATUSES),
        },
        currency=fig.prices[0].currency if fig.currencies_n == 1 else None,
        taxonomy_note=common.taxonomy_note(scope, tax),
    )


def _summary(sheet: _Sheet, fig: Figures, *, whole: bool) -> None:
    """Rows, products, categories and brands of the scope."""
    r_rows = sheet.add("Summary", "Rows (variants)", fig.rows_n)
    r_products = sheet.add("Summary", "Products", fig.products_all)
    r_cats = sheet.add("Summary", "Categories", fig.categories_n)
    r_brands = sheet.add("Summary", "Brands", fig.brands_n)
    sheet.findings.append(
        Finding(
            "overview.size",
            {
                "rows_n": fig.rows_n,
                "products_n": fig.products_all,
                "categories_n": fig.categories_n,
                "brands_n": fig.brands_n,
                "whole": whole,
                # the counts take every row; with drafts among them the sentence says so, since the scope
                # line and "How many … do I have?" mean the active products (overview.excluded says how many)
                "with_excluded": any(fig.excluded.values()),
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


def _statuses(sheet: _Sheet, fig: Figures) -> None:
    """Rows per status, and which of them the analysis leaves out."""
    status_rows: dict[str, int] = {}
    for st in ("active", "unknown", "draft", "archived"):
        if fig.statuses.get(st):
            label = st if st != "unknown" else "status not stated"
            status_rows[st] = sheet.add(
                "Status (rows)", label, fig.statuses[st], common.pct(fig.statuses[st], fig.rows_n)
            )
        if st == "active" and st in status_rows and fig.off_store:
            # on sale elsewhere (Shopify `Published` false), so counted as active — and said, so a
            # merchant expecting them online sees how many are not
            r = sheet.add(
                "Status (rows)",
                "active, of which not on the online store",
                fig.off_store,
                common.pct(fig.off_store, fig.rows_n),
            )
            sheet.findings.append(
                Finding("overview.off_store", {"rows_n": fig.off_store}, cells=((r, "Count"),), severity=6)
            )
    if fig.excluded:
        vals = {f"{k}_n": v for k, v in fig.excluded.items()}
        vals["analysed_n"] = fig.analysed
        r_an = sheet.add(
            "Status (rows)", "analysed (active or not stated)", fig.analysed, common.pct(fig.analysed, fig.rows_n)
        )
        sheet.findings.append(
            Finding(
                "overview.excluded",
                vals,
                cells=tuple((status_rows[k], "Count") for k in fig.excluded) + ((r_an, "Count"),),
                severity=6,
            )
        )


def _off_store_n(scoped: pa.Table) -> int:
    """Active rows that are not on the online store (Shopify `Published` false)."""
    off = pc.and_(pc.equal(scoped["status"].cast(pa.string()), "active"), pc.invert(scoped["online_store"]))
    return int(pc.sum(pc.fill_null(off, False).cast(pa.int64())).as_py() or 0)


def _mapping(sheet: _Sheet, fig: Figures) -> None:
    """How the analysed rows got their Google category (canonical.MAPPING_METHODS), and how many did not."""
    if not fig.analysed:
        return
    mcounts = fig.mappings
    mrows = {}
    for m, label in MAPPING_LABELS.items():
        if mcounts.get(m):
            mrows[m] = sheet.add("Category mapping (rows)", label, mcounts[m], common.pct(mcounts[m], fig.analysed))
    unm = mcounts.get("unmapped", 0)
    if unm:
        sheet.findings.append(
            Finding(
                "overview.unmapped",
                {"unmapped_n": unm, "unmapped_pct": sheet.cell(mrows["unmapped"], "Share")},
                cells=((mrows["unmapped"], "Count"), (mrows["unmapped"], "Share")),
                severity=5,
            )
        )
    else:
        sheet.findings.append(Finding("overview.all_mapped", {}, severity=2))


def _prices(sheet: _Sheet, fig: Figures) -> None:
    """Price figures over priced variants, one set per currency; zero and missing prices counted apart."""
    mixed = fig.currencies_n > 1
    counts = fig.counts
    group_rows: list[int] = []
    for g in fig.prices:
        section = "Price (priced variants" + (f", {g.currency or 'no currency'})" if mixed else ")")
        lo, med, hi = (common.money(x) for x in (g.low, g.median, g.high))
        r_n = sheet.add(section, "Priced variants", g.variants, common.pct(g.variants, fig.analysed), cur=g.currency)
        r_lo = sheet.add(section, "Lowest price", price=lo, cur=g.currency)
        r_med = sheet.add(section, "Median price", price=med, cur=g.currency)
        r_hi = sheet.add(section, "Highest price", price=hi, cur=g.currency)
        group_rows.append(r_n)
        values: dict[str, Any] = {"priced_n": g.variants, "low_price": lo, "median_price": med, "high_price": hi}
        if mixed:
            values["currency"] = g.currency
        sheet.findings.append(
            Finding(
                "overview.price",
                values,
                cells=((r_n, "Count"), (r_lo, "Price"), (r_med, "Price"), (r_hi, "Price")),
                severity=4,
            )
        )
    if mixed:
        items = [{"currency": g.currency or "no currency", "variants_n": g.variants} for g in fig.prices]
        sheet.findings.append(
            Finding(
                "overview.mixed_currency",
                {"items": items, "more": fig.currencies_n > MAX_CURRENCIES},
                cells=tuple((r, "Count") for r in group_rows),
                severity=6,
            )
        )
    if counts["zero_n"] or counts["negative_n"]:
        r_z = sheet.add(
            "Price",
            "Priced 0.00 or below (left out of price figures)",
            counts["zero_n"] + counts["negative_n"],
            common.pct(counts["zero_n"] + counts["negative_n"], fig.analysed),
        )
        sheet.findings.append(
            Finding(
                "overview.zero_price",
                {"zero_n": counts["zero_n"] + counts["negative_n"]},
                cells=((r_z, "Count"),),
                severity=5,
            )
        )
    if counts["unpriced_n"] and fig.analysed:
        sheet.add("Price", "No price", counts["unpriced_n"], common.pct(counts["unpriced_n"], fig.analysed))


def _categories_n(labels: pa.DictionaryArray) -> int:
    """How many categories the rows are in. "Unmapped" (a row with neither a Google category nor one of its
    own) is no category: a Magento export without categories (tests/corpus/magento/btech-water-heater-one-row.csv)
    said "1 category". overview_sql._categories counts the same way."""
    used = labels.dictionary.take(pc.unique(labels.indices)).to_pylist()
    return len(set(used) - {common.UNMAPPED_LABEL})


def _top_categories_of(t: pa.Table, labels: pa.DictionaryArray) -> list[tuple[str, int]]:
    """(label, products) of the categories with the most products, ties by name."""
    per_cat = common.distinct_per_code(
        common.numpy_of(labels.indices), common.numpy_of(t["product_key"]), len(labels.dictionary)
    )
    g = pa.table({"c": labels.dictionary.cast(pa.string()), "k_count_distinct": pa.array(per_cat)})
    g = g.filter(pc.greater(g["k_count_distinct"], 0)).sort_by([("k_count_distinct", "descending"), ("c", "ascending")])
    return [(d["c"], d["k_count_distinct"]) for d in g.slice(0, TOP_CATEGORIES).to_pylist()]


def _top_categories(sheet: _Sheet, fig: Figures) -> None:
    """The categories with the most products."""
    crow = [
        sheet.add("Top categories (products)", name, n, common.pct(n, fig.products_n)) for name, n in fig.top_categories
    ]
    if crow:
        vals = {"top": [{"name": sheet.cell(r, "Item"), "products_n": sheet.cell(r, "Count")} for r in crow[:3]]}
        sheet.findings.append(
            Finding("overview.categories", vals, cells=tuple((r, "Count") for r in crow[:3]), severity=8)
        )


def _price_bands(sheet: _Sheet, fig: Figures) -> list[str]:
    """Price bands of priced variants, cut at round numbers near the catalog's own quartiles; their labels."""
    mixed = fig.currencies_n > 1
    band_names: list[str] = []
    for g in fig.prices:
        section = "Price bands (priced variants" + (f", {g.currency or 'no currency'})" if mixed else ")")
        best = None
        for label, n in g.bands:
            r = sheet.add(section, label, n, common.pct(n, g.variants), cur=g.currency)
            band_names.append(label)
            if best is None or n > sheet.cell(best, "Count"):
                best = r
        if best is not None and g is fig.prices[0] and len(g.bands) > 1:
            sheet.findings.append(
                Finding(
                    "overview.top_band",
                    {
                        "band": sheet.cell(best, "Item"),
                        "variants_n": sheet.cell(best, "Count"),
                        "priced_n": g.variants,
                        "variants_pct": sheet.cell(best, "Share"),
                    },
                    cells=((best, "Count"), (best, "Share")),
                    severity=3,
                )
            )
    return band_names


def _top_brands_of(t: pa.Table, codes, names: list[str]) -> list[tuple[str, int]]:
    """(brand, products) of the brands with the most products, ties by the brand's key (common.brand_key,
    what the SQL twin orders by); a brand is its spellings that differ only in case (common.brand_codes)."""
    keep = codes >= 0
    per = common.distinct_per_code(codes[keep], common.numpy_of(t["product_key"])[keep], len(names))
    ranked = sorted(
        ((names[i], int(n)) for i, n in enumerate(per.tolist()) if n),
        key=lambda bn: (-bn[1], common.brand_key(bn[0]), bn[0]),
    )
    return ranked[:TOP_BRANDS]


def _first_brand(sheet: _Sheet, row: int) -> dict[str, Any]:
    """The brand, product count and share of a brands row, as both brand findings name them."""
    return {
        "brand": sheet.cell(row, "Item"),
        "products_n": sheet.cell(row, "Count"),
        "products_pct": sheet.cell(row, "Share"),
    }


def _count_cells(row: int) -> tuple[tuple[int, str], ...]:
    return ((row, "Count"), (row, "Share"))


def _brands(sheet: _Sheet, fig: Figures, *, whole: bool = True) -> None:
    """The brands with the most products, or that there is one brand, or none."""
    if not fig.top_brands:
        sheet.findings.append(Finding("overview.no_brands", {}, severity=3))
        return
    brow = [sheet.add("Top brands (products)", name, n, common.pct(n, fig.products_n)) for name, n in fig.top_brands]
    if fig.brands_n == 1 and fig.top_brands[0][1] < fig.products_n:
        # one brand, but not on every product: "every product carries one brand" would be false (a held-out
        # synthesizer shop: a brand attribute on 2 of 370 products, the rest none)
        sheet.findings.append(
            Finding("overview.one_brand_on_some", _first_brand(sheet, brow[0]), cells=_count_cells(brow[0]), severity=3)
        )
    elif fig.brands_n == 1:
        sheet.findings.append(
            Finding(
                "overview.single_brand",
                {"brand": sheet.cell(brow[0], "Item"), "whole": whole},
                cells=((brow[0], "Item"),),
                severity=3,
            )
        )
    else:
        # brands with as many products as the first: named with it, never one of them alone as "the
        # largest" (a held-out pet feed: AGATAR and Pets Store, 16 products each)
        tied = [r for (_, n), r in zip(fig.top_brands, brow) if n == fig.top_brands[0][1]][1:]
        sheet.findings.append(
            Finding(
                "overview.top_brand",
                {
                    **_first_brand(sheet, brow[0]),
                    "tied": [sheet.cell(r, "Item") for r in tied],
                    "more": len(tied) + 1 == len(brow) < fig.brands_n,
                },
                # the numbers are the first row's; a tied brand's own row may fall past the rows shown
                cells=_count_cells(brow[0]),
                severity=1,
            )
        )


def _median(values) -> float:
    import numpy as np

    return float(np.quantile(values, 0.5))
