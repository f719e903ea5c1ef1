"""demand_gaps — "What are shoppers buying in outdoor furniture that I don't carry?"

From Merchant Center's Best sellers report (agent.catalog.bestsellers): the product clusters and brands
whose Google category lies in the scope (the scope's taxonomy roots and every node under them; the
whole catalog takes every row), ranked by relative demand, each with the merchant's inventory status.

Decisions, as a merchant would expect them:
- **One country.** Ranks and demand are per country; a report holding several is answered for the
  country with the most rows, and the others are named, never mixed.
- **One row per cluster or brand.** A cluster is listed under its own category and under each
  ancestor report category; it is shown once, with its strongest demand (then its best rank).
- **Ranked by relative demand**: bucket (Very high … Very low), then the bucket's upper bound, then the
  report's rank. "Top 10% of demand" is the first ceil(10 %) of that order in the scope.
- **Status.** The report's own `product_inventory_status` / `brand_inventory_status` (Merchant Center
  matched your feed) says not carried / out of stock / in stock. It is cross-checked against the
  attached catalog: a cluster's GTINs against your GTINs (leading zeros ignored), a brand against
  your brand names (case-insensitive). The "Status from" column says which decided: "report" when the
  report states it, "your catalog (GTIN)" / "your catalog (brand)" when it does not; where both exist
  and disagree, the report's wins and the row says "catalog disagrees".
- **Where demand sits.** Per subcategory of the scope (one level below it): clusters ranked there,
  how many of them you do not carry, and your own active products there.
- **A GTIN matched by several variants** is "in stock" if any of them is, else "out of stock" if any
  is, else "stock unknown" (a stated state wins over an unknown one, whatever the row order: the same
  rule can then run as SQL).

Where the own side comes from (`OwnSide`): the canonical table in memory, or, for a `bq://` Products_
table above the size line, aggregates computed in BigQuery (agent.analysis.demand_sql) — the GTIN
states and brand counts of the report's own GTINs and brands only, and the scope's products per
subcategory. The report itself is small and always read into memory. Both give the same OwnSide on a
table whose offers all carry a Google category (tests/test_bigquery_demand.py).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, Scope, SkillResult
from agent.catalog.bestsellers import bucket_label, bucket_score

SKILL_ID = "demand_gaps"
READ = (
    "product_key",
    "google_category_id",
    "category_path",
    "brand",
    "gtin",
    "availability",
    "inventory_qty",
    "inventory_policy",
)
TOP_SHARE = 0.10  # "top 10% of demand"
LIST_LIMIT = 5

STATUS_TEXT = {"NOT_IN_INVENTORY": "not carried", "OUT_OF_STOCK": "out of stock", "IN_STOCK": "in stock"}
# a matched variant's stock state as the status column says it, and which of several variants' states wins
GTIN_STATE = {"in_stock": "in stock", "out_of_stock": "out of stock"}
STATE_ORDER = {"in stock": 0, "out of stock": 1, "stock unknown": 2}

COLUMNS = (
    ("Demand rank", "count", pa.int64()),
    ("Kind", "text", pa.string()),
    ("Name", "text", pa.string()),
    ("Brand", "text", pa.string()),
    ("Subcategory", "text", pa.string()),
    ("Relative demand", "text", pa.string()),
    ("Report rank", "count", pa.int64()),
    ("Previous rank", "count", pa.int64()),
    ("Your status", "text", pa.string()),
    ("Status from", "text", pa.string()),
    ("Top 10% of demand", "text", pa.string()),
    # on the summary rows ("All products", "All brands") and the "Subcategory" rows only
    ("Ranked", "count", pa.int64()),
    ("Not carried", "count", pa.int64()),
    ("Top 10% not carried", "count", pa.int64()),
    ("Out of stock", "count", pa.int64()),
    ("Your products", "count", pa.int64()),
)
# Rows shown before the rest (the text shows 20): the summaries, then the subcategories, then the
# strongest products and brands; everything else follows in the same order.
SHOWN_SUBCATEGORIES = 5
SHOWN_PRODUCTS = 8
SHOWN_BRANDS = 4


def _gtin_key(g: str | None) -> str | None:
    """A GTIN as compared: its ASCII digits, leading zeros dropped (a GTIN-12 and its GTIN-14 match)."""
    digits = "".join(ch for ch in (g or "") if "0" <= ch <= "9").lstrip("0")
    return digits or None


def _gtin_keys(gtin: pa.ChunkedArray) -> pa.ChunkedArray:
    """_gtin_key for a whole column, in Arrow (no Python per row)."""
    digits = pc.utf8_ltrim(pc.replace_substring_regex(common.as_str(gtin), pattern="[^0-9]", replacement=""), "0")
    return pc.if_else(pc.equal(digits, ""), pa.scalar(None, pa.string()), digits)


def _own_index(own: pa.Table, wanted_gtins: set[str]) -> tuple[dict[str, str], dict[str, int]]:
    """GTIN -> "in stock" / "out of stock" (in stock if any matching variant is), and brand -> products.

    Why vectorised: a demand turn on a million-variant catalog must not walk every row in Python. GTIN
    keys are made in Arrow and only the variants whose GTIN the Best sellers rows name are looked at
    (a few thousand at most); brands are keyed once per distinct spelling and counted per key in Arrow."""
    import numpy as np

    t = own.select(list(READ))
    if not t.num_rows:
        return {}, {}
    keys = _gtin_keys(t["gtin"])
    hit = pc.fill_null(pc.is_in(keys, value_set=pa.array(sorted(wanted_gtins), pa.string())), False)
    rows = np.flatnonzero(common.numpy_of(hit).astype(bool))
    state = common.stock_codes(t)[rows] if len(rows) else []
    by_gtin: dict[str, str] = {}
    for k, code in zip(pc.take(keys, pa.array(rows, pa.int64())).to_pylist(), np.asarray(state).tolist()):
        now = GTIN_STATE.get(common.STOCK_STATES[code], "stock unknown")
        if k not in by_gtin or STATE_ORDER[now] < STATE_ORDER[by_gtin[k]]:  # in stock > out of stock > unknown
            by_gtin[k] = now
    enc = common.encoded(t["brand"])
    names = [(b or "").strip().lower() for b in common.as_str(enc.dictionary).to_pylist()]
    distinct = sorted({n for n in names if n})
    if not distinct:
        return by_gtin, {}
    slot = {n: i for i, n in enumerate(distinct)}
    code_of = np.array([slot.get(n, -1) for n in names], dtype=np.int64)
    brand_code = common.entry_codes(enc, code_of, missing=-1)
    per = common.distinct_per_code(
        np.where(brand_code >= 0, brand_code, len(distinct)), common.numpy_of(t["product_key"]), len(distinct) + 1
    )
    return by_gtin, {n: int(per[i]) for i, n in enumerate(distinct) if per[i]}


def _in_scope(demand: pa.Table, ids: list[int] | None) -> pa.Table:
    if ids is None:
        return demand
    values = pa.array(ids, pa.int64())
    mask = pc.or_(
        pc.fill_null(pc.is_in(demand["category_id"], value_set=values), False),
        pc.fill_null(pc.is_in(demand["report_category_id"], value_set=values), False),
    )
    return demand.filter(mask)


def _newest(demand: pa.Table) -> pa.Table:
    """Each report (product clusters, brands) at its newest report date only: a transfer table holds a
    partition per day, and last week's ranks are not this week's. Rows without a date are kept."""
    keep = None
    for entity in ("product", "brand"):
        is_entity = pc.equal(demand["entity"], entity)
        dates = demand.filter(is_entity)["report_date"]
        newest = pc.max(dates).as_py() if len(dates) else None
        part = pc.and_(is_entity, pc.fill_null(pc.equal(demand["report_date"], newest), True)) if newest else is_entity
        keep = part if keep is None else pc.or_(keep, part)
    return demand.filter(keep) if keep is not None else demand


def _subcategory(cat: int | None, scope, tax) -> str | None:
    """The scope's child (or, for the whole catalog, the second taxonomy level) holding `cat`."""
    node = tax.node(cat) if cat is not None else None
    if node is None:
        return None
    levels = node.path.split(" > ")
    roots = [root for root in (scope.taxonomy_id, *scope.extra_taxonomy_ids) if root is not None]
    for root in roots:
        base = tax.node(root)
        if base is not None and tax.is_within(cat, root):
            return levels[base.depth] if len(levels) > base.depth else f"{base.name} (general)"
    return " > ".join(levels[:2])


def _status(row: dict, by_gtin: dict[str, str], brands: dict[str, int]) -> tuple[str, str]:
    report = STATUS_TEXT.get(row["inventory_status"] or "")
    if row["entity"] == "product":
        hits = [by_gtin[k] for k in (_gtin_key(g) for g in row["variant_gtins"] or ()) if k in by_gtin]
        catalog = ("in stock" if "in stock" in hits else hits[0]) if hits else None
        basis = "your catalog (GTIN)"
        if catalog is None and row["variant_gtins"]:
            catalog, basis = "not carried", "your catalog (GTIN)"
    else:
        n = brands.get((row["brand"] or "").strip().lower(), 0)
        catalog, basis = ("carried" if n else "not carried"), "your catalog (brand)"
    if report is not None:
        agree = (
            catalog is None
            or catalog == report
            or (catalog == "carried" and report != "not carried")
            or catalog == "stock unknown"
        )
        return report, "report" if agree else "report (catalog disagrees)"
    if catalog is not None:
        return ("in stock" if catalog == "carried" else catalog), basis
    return "not stated", "neither"


def _ranked(rows: list[dict], ids: set[int] | None, tax) -> list[dict]:
    """One row per cluster/brand, in demand order.

    A cluster is ranked under its own category and again under each ancestor report category; the row
    kept is the one whose report category is the broadest inside the scope (the scope's own ranking
    when the report has it; for the whole catalog, the top-level categories'), then the strongest demand.
    """

    def order(entry: dict) -> tuple:
        return (
            -bucket_score(entry["demand_bucket"]),
            -(entry["demand_max"] or 0),
            -(entry["demand_min"] or 0),
            entry["rank"],
        )

    def breadth(entry: dict) -> tuple:
        report_category = entry["report_category_id"]
        node = tax.node(report_category) if report_category is not None else None
        inside = ids is None or report_category in ids
        return (not inside, node.depth if node is not None else 99)

    best: dict[tuple, dict] = {}
    for entry in rows:
        key = (entry["entity"], entry["entity_id"] or ((entry["title"] or "").lower(), (entry["brand"] or "").lower()))
        if key not in best or (breadth(entry), order(entry)) < (breadth(best[key]), order(best[key])):
            best[key] = entry
    return sorted(
        best.values(), key=lambda entry: (*order(entry), entry["entity"], entry["title"] or entry["brand"] or "")
    )


@dataclass
class OwnSide:
    """What demand_gaps reads of the merchant's own catalog, wherever it was aggregated.

    `by_gtin`: GTIN key -> "in stock" / "out of stock" / "stock unknown" (the module's rule), for the
    GTINs looked up; `brands`: lower-cased brand -> distinct products, for the brands looked up (the
    in-memory path gives every brand; only the looked-up ones are read); `per_subcategory` and
    `products`: the scope's active products per subcategory (by Google category) and in all."""

    by_gtin: dict[str, str]
    brands: dict[str, int]
    per_subcategory: Counter
    products: int
    notes: list[str] = field(default_factory=list)


def own_side(inp: SkillInput, gtins: set[str], brands: set[str]) -> OwnSide:
    """The own side for these report GTIN keys and brand keys: from the Arrow table, or above the
    BigQuery size line as SQL aggregates (agent.analysis.demand_sql)."""
    scope, tax = inp.scope, inp.taxonomy
    pushdown = sql_run.pushdown_of(inp.sources)
    if pushdown is not None:
        from agent.analysis import demand_sql

        return demand_sql.own_side(pushdown, scope, tax, gtins, brands, subcategories(scope, tax))
    by_gtin, by_brand = _own_index(common.population(inp.own, Scope(), tax, READ).table, gtins)
    per, products = _own_per_subcategory(inp, scope, tax)
    return OwnSide(by_gtin, by_brand, per, products)


def subcategories(scope: Scope, tax) -> dict[int, str]:
    """Every Google category the scope holds -> its subcategory row's name (`_subcategory`): the
    mapping the SQL path joins offers with (the whole catalog: every taxonomy node)."""
    ids = tax.nodes if scope.taxonomy_id is None and not scope.extra_taxonomy_ids else common.scope_ids(scope, tax)
    out = {}
    for gid in ids:
        name = _subcategory(gid, scope, tax)
        if name is not None:
            out[int(gid)] = name
    return out


def run(inp: SkillInput) -> SkillResult:
    scope, tax = inp.scope, inp.taxonomy
    taxonomy_note = common.taxonomy_note(scope, tax)
    if inp.demand is None:  # say what is needed; show where your own range sits meanwhile
        own = own_side(inp, set(), set())
        rows = _arrange([], _where([], own.per_subcategory), own.products, common.scope_name(scope))
        return SkillResult(
            skill=SKILL_ID,
            scope=scope,
            table=common.records_table(COLUMNS, rows, {}),
            findings=[Finding("demand.none", {}, severity=10)],
            missing="demand",
            taxonomy_note=taxonomy_note,
            notes=own.notes,
        )
    ids = None if scope.taxonomy_id is None and not scope.extra_taxonomy_ids else common.scope_ids(scope, tax)
    demand = _in_scope(_newest(inp.demand), ids)
    countries = Counter(code for code in demand["country_code"].to_pylist() if code)
    country = min(countries.items(), key=lambda kv: (-kv[1], kv[0]))[0] if countries else None
    entries = [r for r in demand.to_pylist() if country is None or r["country_code"] in (country, None)]
    ranked = _ranked(entries, set(ids) if ids is not None else None, tax)
    gtins = {k for r in ranked for k in (_gtin_key(g) for g in r["variant_gtins"] or ()) if k}
    brands = {(r["brand"] or "").strip().lower() for r in ranked if r["entity"] == "brand"} - {""}
    own = own_side(inp, gtins, brands)
    listed = _listed(inp, ranked, own)
    out = _arrange(listed, _where(listed, own.per_subcategory), own.products, common.scope_name(scope))
    table = common.records_table(COLUMNS, out, {})
    findings = _findings(out, countries, country)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=findings,
        thresholds={"top_share_pct": TOP_SHARE * 100},
        taxonomy_note=taxonomy_note,
        chart=None,
        notes=own.notes,
    )


def _listed(inp: SkillInput, ranked: list[dict], own: OwnSide) -> list[dict]:
    """The table step's list: each ranked product and brand with its demand rank within its kind, what
    the merchant has of it (status and what that is read from), and whether it is in the top share."""
    scope, tax = inp.scope, inp.taxonomy
    n_products = sum(1 for r in ranked if r["entity"] == "product")
    n_brands = len(ranked) - n_products
    top_n = {"product": math.ceil(n_products * TOP_SHARE), "brand": math.ceil(n_brands * TOP_SHARE)}
    seen: Counter = Counter()
    listed: list[dict] = []
    for entry in ranked:
        kind = entry["entity"]
        seen[kind] += 1
        status, basis = _status(entry, own.by_gtin, own.brands)
        listed.append(
            {
                "Demand rank": seen[kind],
                "Kind": "Product" if kind == "product" else "Brand",
                "Name": entry["title"] if kind == "product" else entry["brand"],
                "Brand": entry["brand"],
                "Subcategory": _subcategory(entry["category_id"], scope, tax) if kind == "product" else None,
                "Relative demand": bucket_label(entry["demand_bucket"]),
                "Report rank": entry["rank"],
                "Previous rank": entry["previous_rank"],
                "Your status": status,
                "Status from": basis,
                "Top 10% of demand": "yes" if seen[kind] <= top_n[kind] else "no",
            }
        )
    return listed


def _summary(kind: str, name: str, rows: list[dict], own: int | None) -> dict:
    return {
        "Kind": kind,
        "Name": name,
        "Ranked": len(rows),
        "Not carried": sum(r["Your status"] == "not carried" for r in rows),
        "Top 10% not carried": sum(r["Your status"] == "not carried" and r["Top 10% of demand"] == "yes" for r in rows),
        "Out of stock": sum(r["Your status"] == "out of stock" for r in rows),
        "Your products": own,
    }


def _arrange(listed: list[dict], where: list[dict], own_total: int, scope_label: str) -> list[dict]:
    prods = [r for r in listed if r["Kind"] == "Product"]
    brands = [r for r in listed if r["Kind"] == "Brand"]
    head = [_summary("All products", f"{scope_label} (all)", prods, own_total)] if prods or not brands else []
    if brands:
        head.append(_summary("All brands", f"{scope_label} (all)", brands, None))
    # brands: the strongest you do not carry come first ("which popular brands am I missing?"), then the rest
    missing = [r for r in brands if r["Your status"] == "not carried"]
    brands_first = (missing + [r for r in brands if r["Your status"] != "not carried"])[:SHOWN_BRANDS]
    brands_first.sort(key=lambda r: r["Demand rank"])
    rest_brands = [r for r in brands if r not in brands_first]
    shown = head + where[:SHOWN_SUBCATEGORIES] + prods[:SHOWN_PRODUCTS] + brands_first
    return shown + where[SHOWN_SUBCATEGORIES:] + prods[SHOWN_PRODUCTS:] + rest_brands


def _own_per_subcategory(inp: SkillInput, scope, tax) -> tuple[Counter, int]:
    """Your active products per subcategory of the scope (by Google category), and in the scope."""
    pop = common.population(inp.own, scope, tax, ("product_key", "google_category_id"))
    own_per: Counter = Counter()
    scoped = pop.table
    seen: set = set()
    for cat, pk in zip(scoped["google_category_id"].to_pylist(), scoped["product_key"].to_pylist()):
        sub = _subcategory(cat, scope, tax)
        if sub is not None and (sub, pk) not in seen:
            seen.add((sub, pk))
            own_per[sub] += 1
    return own_per, common.count_products(scoped) if scoped.num_rows else 0


def _where(listed: list[dict], own_per: Counter) -> list[dict]:
    """ "Subcategory" rows: per subcategory of the scope, the products ranked there, of them not carried
    and out of stock, and your own active products there; most ranked first."""
    per: dict[str, list[dict]] = defaultdict(list)
    for row in listed:
        if row["Kind"] == "Product" and row["Subcategory"]:
            per[row["Subcategory"]].append(row)
    rows = [_summary("Subcategory", name, rs, own_per.get(name, 0)) for name, rs in per.items()]
    for name, n in own_per.items():
        if name not in per:  # where you sell and shoppers' best sellers do not rank
            rows.append(_summary("Subcategory", name, [], n))
    rows.sort(key=lambda row: (-row["Ranked"], -row["Not carried"], row["Name"]))
    return rows


def _findings(out: list[dict], countries: Counter, country: str | None) -> list[Finding]:
    """The demand findings, most severe first (at most seven): per products and brands what shoppers rank
    that you do not carry or have out of stock, where in the taxonomy, and which country's report."""
    found: list[Finding] = []
    visible = list(enumerate(out))[:20]
    for kind, code in (("All products", "demand.missing_products"), ("All brands", "demand.missing_brands")):
        found += _entity_findings(visible, kind, code)
    found += _subcategory_findings(visible)
    if not any(r["Kind"] in ("Product", "Brand") for r in out):
        found.insert(0, Finding("demand.empty", {}, severity=10))
    if len(countries) > 1 and country:
        others = sorted(c for c in countries if c != country)
        found.append(Finding("demand.country", {"country": country, "others": ", ".join(others)}, severity=3))
    elif country:
        found.append(Finding("demand.country_one", {"country": country}, severity=2))
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _named(rows: list[tuple[int, dict]], count: int) -> str | None:
    """The rows' names as a list, "and others" when `count` is more than the rows shown."""
    if not rows:
        return None
    return ", ".join(r["Name"] or "?" for _, r in rows) + (" and others" if count > len(rows) else "")


def _entity_findings(visible: list[tuple[int, dict]], kind: str, code: str) -> list[Finding]:
    """For one summary row ("All products" or "All brands"): the ranked ones not carried, and those
    carried but out of stock, named from the rows shown."""
    summary_row = next((i for i, r in visible if r["Kind"] == kind), None)
    if summary_row is None:
        return []
    entity = "Product" if kind == "All products" else "Brand"
    total = visible[summary_row][1]
    if not total["Ranked"]:
        return []
    names = [(i, r) for i, r in visible if r["Kind"] == entity and r["Your status"] == "not carried"][:LIST_LIMIT]
    found = [
        Finding(
            code,
            {
                "missing_n": total["Not carried"],
                "total_n": total["Ranked"],
                "top_n": total["Top 10% not carried"],
                "names": _named(names, total["Not carried"]),
            },
            cells=((summary_row, "Not carried"), (summary_row, "Ranked"), (summary_row, "Top 10% not carried"))
            + tuple((i, "Name") for i, _ in names),
            severity=9 if total["Top 10% not carried"] else 7,
        )
    ]
    oos = [(i, r) for i, r in visible if r["Kind"] == entity and r["Your status"] == "out of stock"][:LIST_LIMIT]
    if total["Out of stock"]:
        found.append(
            Finding(
                "demand.out_of_stock",
                {
                    "kind": entity.lower(),
                    "n": total["Out of stock"],
                    "names": _named(oos, total["Out of stock"]) or "not among the rows shown",
                },
                cells=((summary_row, "Out of stock"),),
                severity=8,
            )
        )
    return found


def _subcategory_findings(visible: list[tuple[int, dict]]) -> list[Finding]:
    """Where the ranked clusters are (subcategory rows), and the subcategories where you sell nothing."""
    subs = [(i, r) for i, r in visible if r["Kind"] == "Subcategory" and r["Ranked"]]
    if not subs:
        return []
    items = [
        {"name": r["Name"], "clusters_n": r["Ranked"], "missing_n": r["Not carried"], "own_n": r["Your products"]}
        for _, r in subs
    ]
    found = [Finding("demand.where", {"items": items}, cells=tuple((i, "Ranked") for i, _ in subs), severity=6)]
    empty = [(i, r) for i, r in subs if r["Your products"] == 0 and r["Ranked"]]
    if empty:
        found.append(
            Finding(
                "demand.uncovered",
                {"items": [{"name": r["Name"]} for _, r in empty]},
                cells=tuple((i, "Your products") for i, _ in empty),
                severity=8,
            )
        )
    return found


def top_missing(inp: SkillInput) -> list[dict]:
    """Product clusters in the scope that you do not carry and that are in its top 10% of demand,
    for assortment_gaps (same ranking and status rule as the skill; above the BigQuery size line the
    own side is aggregated in BigQuery, as for the skill)."""
    if inp.demand is None:
        return []
    result = run(
        SkillInput(
            own=inp.own, reference=None, scope=inp.scope, taxonomy=inp.taxonomy, sources=inp.sources, demand=inp.demand
        )
    )
    rows = [
        r
        for r in result.table.to_pylist()
        if r["Kind"] == "Product" and r["Your status"] == "not carried" and r["Top 10% of demand"] == "yes"
    ]
    return sorted(rows, key=lambda r: r["Demand rank"])
