"""brand_coverage — "Which brands do competitors carry that I don't?"

Per category: products, brands, the leading brand and its share, products without a brand; with a
reference catalog, the reference's brand count and the brands only the reference carries (with their
product counts). The first row covers the whole scope. A catalog where one brand holds at least
SINGLE_VENDOR_SHARE % of products is flagged single-vendor; categories where one brand holds at least
DOMINANT_SHARE % (with MIN_DOMINANT_PRODUCTS products or more) are flagged as dominated.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult

SKILL_ID = "brand_coverage"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = ("product_key", "google_category_id", "category_path", "brand")
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


def _brand_codes(t: pa.Table) -> tuple[np.ndarray, list[str]]:
    """Brand code per row (-1 = no brand) and the brand names; trimming and blank-checking per distinct value."""
    d = common.encoded(t["brand"])
    names: list[str] = []
    index: dict[str, int] = {}
    per_entry = []
    for v in common.as_str(d.dictionary).to_pylist():
        v = (v or "").strip()
        if not v:
            per_entry.append(-1)
            continue
        if v not in index:
            index[v] = len(names)
            names.append(v)
        per_entry.append(index[v])
    lookup = np.array(per_entry + [-1], dtype=np.int64)
    return lookup[pc.fill_null(d.indices, len(d.dictionary)).to_numpy(zero_copy_only=False)], names


def _brand_counts(t: pa.Table, labels: pa.DictionaryArray) -> tuple[dict[str, dict[str, int]], dict[str, int], dict[str, int]]:
    """({category: {brand: products}}, {category: products}, {category: products without brand})."""
    codes, names = _brand_codes(t)
    cats = labels.dictionary.to_pylist()
    work = pa.table({"c": labels.indices, "b": pa.array(codes), "pk": t["product_key"]})
    g = work.group_by(["c", "b"]).aggregate([("pk", "count_distinct")])
    per: dict[str, dict[str, int]] = defaultdict(dict)
    none: dict[str, int] = defaultdict(int)
    for c, b, n in zip(g["c"].to_pylist(), g["b"].to_pylist(), g["pk_count_distinct"].to_pylist()):
        if b < 0:
            none[cats[c]] += n
        else:
            per[cats[c]][names[b]] = n
    totals = {cats[d["c"]]: d["pk_count_distinct"] for d in work.group_by("c").aggregate([("pk", "count_distinct")]).to_pylist()}
    return per, totals, none


def _scope_brands(t: pa.Table) -> dict[str, int]:
    codes, names = _brand_codes(t)
    g = pa.table({"b": pa.array(codes), "pk": t["product_key"]}).group_by("b").aggregate([("pk", "count_distinct")])
    return {names[b]: n for b, n in zip(g["b"].to_pylist(), g["pk_count_distinct"].to_pylist()) if b >= 0}


def _row(name: str, products: int, brands: dict[str, int], without: int) -> dict:
    top = sorted(brands.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"Category": name, "Products": products, "Brands": len(brands), "Top brand": top[0][0] if top else None,
            "Top brand share": common.pct(top[0][1], products) if top else None, "Products without brand": without}


def _ref_only(own: dict[str, int], ref: dict[str, int]) -> tuple[int, str | None]:
    own_l = {b.lower() for b in own}
    only = sorted(((b, n) for b, n in ref.items() if b.lower() not in own_l), key=lambda kv: (-kv[1], kv[0]))
    return len(only), ", ".join(f"{b} ({n:,})" for b, n in only[:LIST_LIMIT]) or None


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    pop = common.population(inp.own, scope, tax, READ)
    t = pop.table
    with_ref = inp.reference is not None
    rows: list[dict] = []
    if t.num_rows:
        labels = common.category_labels(t, scope, tax)
        per, totals, none = _brand_counts(t, labels)
        ref_per: dict[str, dict[str, int]] = {}
        ref_all: dict[str, int] = {}
        if with_ref:
            rt = common.population(inp.reference, scope, tax, READ).table
            if rt.num_rows:
                ref_per, _, _ = _brand_counts(rt, common.category_labels(rt, scope, tax))
                ref_all = _scope_brands(rt)
        own_all = _scope_brands(t)
        n_products = common.count_products(t)
        total = _row(common.scope_name(scope) + ("" if scope.is_whole_catalog else " (all)"), n_products, own_all,
                     common.count_products(t.filter(pa.array(_brand_codes(t)[0] < 0))))
        if with_ref:
            n_only, text = _ref_only(own_all, ref_all)
            total.update({"Reference brands": len(ref_all), "Brands only in reference": n_only, "Reference-only brands (products)": text})
        cats = []
        for c in ref_per:
            totals.setdefault(c, 0)  # categories only the reference sells still show its brands
        for c, n in totals.items():
            row = _row(c, n, per.get(c, {}), none.get(c, 0))
            if with_ref:
                n_only, text = _ref_only(per.get(c, {}), ref_per.get(c, {}))
                row.update({"Reference brands": len(ref_per.get(c, {})), "Brands only in reference": n_only,
                            "Reference-only brands (products)": text})
            cats.append(row)
        cats.sort(key=lambda r: (-(r.get("Brands only in reference") or 0), -(r["Top brand share"] or 0), -r["Products"], r["Category"]))
        rows = [total] + cats
    columns = COLUMNS + (REF_COLUMNS if with_ref else ())
    columns = common.with_excluded(columns, rows, pop.excluded)
    table = common.build_table(columns, [[r.get(c[0]) for c in columns] for r in rows])
    return SkillResult(
        skill=SKILL_ID, scope=scope, table=table, findings=_findings(rows, with_ref, pop.excluded),
        thresholds={"single_vendor_share_pct": SINGLE_VENDOR_SHARE, "dominant_share_pct": DOMINANT_SHARE,
                    "min_dominant_products": MIN_DOMINANT_PRODUCTS},
        currency=None, chart=("Category", "Brands"), taxonomy_note=common.taxonomy_note(scope, tax),
    )


def _findings(rows: list[dict], with_ref: bool, excluded: dict[str, int]) -> list[Finding]:
    if not rows:
        return [Finding("brands.empty", {}, severity=10)]
    f: list[Finding] = []
    total = rows[0]
    if total["Top brand"] and total["Top brand share"] is not None and total["Top brand share"] >= SINGLE_VENDOR_SHARE:
        f.append(Finding("brands.single_vendor", {"brand": total["Top brand"], "share_pct": total["Top brand share"]},
                         cells=((0, "Top brand"), (0, "Top brand share")), severity=8))
    else:
        f.append(Finding("brands.summary", {"brands_n": total["Brands"], "products_n": total["Products"], "top": total["Top brand"],
                                            "share_pct": total["Top brand share"]},
                         cells=((0, "Brands"), (0, "Products"), (0, "Top brand share")), severity=5))
    if with_ref:
        if total.get("Brands only in reference"):
            f.append(Finding("brands.reference_only", {"only_n": total["Brands only in reference"], "ref_n": total["Reference brands"],
                                                       "brands": total["Reference-only brands (products)"]},
                             cells=((0, "Brands only in reference"), (0, "Reference brands"), (0, "Reference-only brands (products)")),
                             severity=9))
        else:
            f.append(Finding("brands.reference_none", {}, severity=6))
    visible = list(enumerate(rows))[1:20]
    dominated = [(i, r) for i, r in visible if r["Top brand share"] is not None and r["Top brand share"] >= DOMINANT_SHARE
                 and r["Products"] >= MIN_DOMINANT_PRODUCTS and r["Brands"] >= 1][:3]
    if dominated and not f[0].code == "brands.single_vendor":
        items = [{"name": r["Category"], "brand": r["Top brand"], "share_pct": r["Top brand share"]} for _, r in dominated]
        f.append(Finding("brands.dominated", {"items": items}, cells=tuple((i, "Top brand share") for i, _ in dominated), severity=7))
    if total["Products without brand"]:
        f.append(Finding("brands.no_brand", {"products_n": total["Products without brand"]}, cells=((0, "Products without brand"),),
                         severity=4))
    ex = common.excluded_finding(excluded, rows)
    if ex:
        f.append(ex)
    f.sort(key=lambda x: -x.severity)
    return f[:7]
