"""demand_gaps (issue 15 item 3): the Best sellers reader, the skill's figures recomputed with pandas from
the report and the demo catalog, assortment_gaps' "missing, and in the top 10% of demand", the answer
without demand data, configured locations, A2UI, and the front door through the official a2a client."""

from __future__ import annotations

import asyncio
import base64
import csv
import datetime as dt
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from agent.analysis import planner
from agent.analysis.registry import SKILLS, SkillInput
from agent.catalog import bestsellers
from agent.catalog.attachments import Attachment
from agent.catalog.sources import load_catalog_inputs, load_demo
from agent.catalog.taxonomy import load
from agent.render import a2ui
from agent.render.footer import render_footer
from agent.render.text import MISSING, render_skill
from tests.helpers import assert_prose_numbers_in_table, bullets

HERE = Path(__file__).resolve().parent
REPORTS = HERE / "bestsellers"
PRODUCTS, BRANDS = REPORTS / "products.csv", REPORTS / "brands.csv"
DEMO = HERE.parent / "data" / "demo" / "catalog.csv"
TAX = load()
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
OUTDOOR_Q = "What are shoppers buying in outdoor furniture that I don't carry?"


def attachments() -> list[Attachment]:
    return [
        Attachment(PRODUCTS.name, PRODUCTS.read_bytes(), "text/csv"),
        Attachment(BRANDS.name, BRANDS.read_bytes(), "text/csv"),
    ]


def answer(question: str, atts: list[Attachment] | None = None, **kw):
    inputs = load_catalog_inputs(attachments() if atts is None else atts, question=question, **kw)
    p = planner.plan(question, inputs.own.table, TAX)
    out = []
    for skill in p.skills:
        result = SKILLS[skill].run(
            SkillInput(
                own=inputs.own.table,
                reference=None,
                scope=p.scope,
                taxonomy=TAX,
                sources=tuple(inputs.own.sources),
                demand=inputs.demand.table if inputs.demand else None,
            )
        )
        out.append((result, render_skill(result), render_footer(inputs, result.taxonomy_note, NOW)))
    return p, inputs, out


# --- the reader ----------------------------------------------------------------------------------------------
def test_headers_are_recognised_as_best_sellers_and_catalogs_are_not():
    assert bestsellers.sniff_bytes(PRODUCTS.read_bytes()) == "products"
    assert bestsellers.sniff_bytes(BRANDS.read_bytes()) == "brands"
    assert bestsellers.sniff_bytes(DEMO.read_bytes()) is None
    for seed in sorted((HERE / "corpus" / "seed").glob("*.csv")):
        assert bestsellers.sniff_bytes(seed.read_bytes()) is None, seed.name


def test_a_table_in_the_transfer_schema_reads_as_the_csv_download_does():
    """The BigQuery path: nested relative_demand / price_range structs, variant_gtins as a list, the
    partition date. The same report built that way normalises to exactly the CSV download's rows."""
    df = pd.read_csv(PRODUCTS, dtype=str, keep_default_na=False)
    path_ids = {n.path: n.id for n in TAX.nodes.values()}

    def micros(text: str, i: int):
        return int(round(float(text.split(" ")[2 * i]) * 1e6))

    levels = [p.split(" > ") for p in df["Category"]]
    table = pa.table(
        {
            "rank": pa.array([int(x) for x in df["Rank"]], pa.int64()),
            "previous_rank": pa.array([int(x) if x else None for x in df["Previous rank"]], pa.int64()),
            "country_code": df["Country"].tolist(),
            "report_category_id": pa.array([int(x) for x in df["Report category ID"]], pa.int64()),
            "title": df["Product title"].tolist(),
            "brand": df["Brand"].tolist(),
            **{f"category_l{i}": [lv[i - 1] if len(lv) >= i else None for lv in levels] for i in range(1, 6)},
            "variant_gtins": [[g.strip() for g in x.split(",") if g.strip()] for x in df["GTINs"]],
            "product_inventory_status": [x or None for x in df["Product inventory status"]],
            "brand_inventory_status": df["Brand inventory status"].tolist(),
            "relative_demand": [
                {"bucket": b.upper().replace(" ", "_"), "min": None, "max": None} for b in df["Relative demand"]
            ],
            "previous_relative_demand": [
                {"bucket": b.upper().replace(" ", "_") if b else None, "min": None, "max": None}
                for b in df["Previous relative demand"]
            ],
            "price_range": [
                {"min_amount_micros": micros(p, 0), "max_amount_micros": micros(p, 1), "currency_code": "USD"}
                for p in df["Price range"]
            ],
            "_PARTITIONDATE": pa.array([dt.date.fromisoformat(d) for d in df["Report date"]], pa.date32()),
        }
    )
    from_bq, ev_bq = bestsellers.from_transfer(table, "BestSellersProductClusterWeekly_123", "BigQuery")
    from_csv, ev_csv = bestsellers.read_csv_bytes(PRODUCTS.read_bytes(), PRODUCTS.name, "attached file")
    assert from_bq.num_rows == from_csv.num_rows == len(df)
    assert from_bq.to_pylist() == from_csv.to_pylist()
    assert ev_bq.snapshot_date == ev_csv.snapshot_date == dt.date(2026, 11, 23)
    assert ev_bq.format == ev_csv.format == bestsellers.FORMAT_PRODUCTS
    # the cluster's own category is its path's node; the report category stays as given
    got = from_csv.to_pandas()
    assert (got["category_id"] == [path_ids[p] for p in df["Category"]]).all()
    assert (got["report_category_id"] == df["Report category ID"].astype(int)).all()


def test_brand_report_in_transfer_column_names_reads_buckets_and_bounds():
    demand, ev = bestsellers.read_csv_bytes(BRANDS.read_bytes(), BRANDS.name, "attached file")
    df = pd.read_csv(BRANDS, dtype=str)
    assert ev.format == bestsellers.FORMAT_BRANDS and ev.rows_read == len(df) == demand.num_rows
    assert demand["demand_max"].to_pylist() == df["relative_demand.max"].astype(int).tolist()
    assert demand["demand_bucket"].to_pylist() == df["relative_demand.bucket"].tolist()
    assert demand["inventory_status"].to_pylist() == df["brand_inventory_status"].tolist()
    assert ev.snapshot_origin == "report date, column _PARTITIONDATE"


def test_generator_writes_the_committed_reports(tmp_path):
    subprocess.run([sys.executable, str(REPORTS / "generate.py"), str(tmp_path)], check=True, capture_output=True)
    for name in ("products.csv", "brands.csv"):
        assert (tmp_path / name).read_bytes() == (REPORTS / name).read_bytes(), name
    assert PRODUCTS.stat().st_size + BRANDS.stat().st_size < 200_000


# --- figures, recomputed -------------------------------------------------------------------------------------
def _demo_gtin_state() -> dict[str, str]:
    demo = pd.read_csv(DEMO, dtype=str, keep_default_na=False)
    demo = demo[demo["status"] == "active"]
    out: dict[str, str] = {}
    for g, a in zip(demo["gtin"], demo["availability"]):
        key = g.lstrip("0")
        if key and out.get(key) != "in stock":
            out[key] = "in stock" if a == "in_stock" else "out of stock"
    return out


def _expected_products(prefixes: tuple[str, ...]) -> pd.DataFrame:
    """The report's US clusters whose category path lies under the scope, one per (title, brand), with
    the report's status, or the GTIN match against the demo catalog where the report leaves it blank."""
    df = pd.read_csv(PRODUCTS, dtype=str, keep_default_na=False)

    def under(p: str) -> bool:
        return any(p == x or p.startswith(x + " > ") for x in prefixes)

    report_path = df["Report category ID"].map(lambda i: TAX.node(int(i)).path)
    # each cluster is ranked under its own category and its top-level one: the scope's own ranking is read
    df = df[(df["Country"] == "US") & df["Category"].apply(under) & report_path.apply(under)]
    assert not df.duplicated(["Product title", "Brand"]).any()
    df = df.copy()
    states = _demo_gtin_state()
    words = {"NOT_IN_INVENTORY": "not carried", "OUT_OF_STOCK": "out of stock", "IN_STOCK": "in stock"}

    def status(row) -> str:
        if row["Product inventory status"]:
            return words[row["Product inventory status"]]
        hits = [states[g.strip().lstrip("0")] for g in row["GTINs"].split(",") if g.strip().lstrip("0") in states]
        return ("in stock" if "in stock" in hits else hits[0]) if hits else "not carried"

    df["status"] = df.apply(status, axis=1)
    return df


def test_outdoor_furniture_figures_match_pandas():
    p, _, [(result, md, footer)] = answer(OUTDOOR_Q)
    assert p.skills == ("demand_gaps",) and p.scope.taxonomy_id == 4299
    rows = result.table.to_pylist()
    expected = _expected_products(("Furniture > Outdoor Furniture", "Furniture > Outdoor Furniture Accessories"))
    products = [r for r in rows if r["Kind"] == "Product"]
    total = next(r for r in rows if r["Kind"] == "All products")
    assert total["Ranked"] == len(products) == len(expected)
    assert {(r["Name"], r["Brand"]) for r in products} == set(zip(expected["Product title"], expected["Brand"]))
    by_name = dict(zip(zip(expected["Product title"], expected["Brand"]), expected["status"]))
    assert all(r["Your status"] == by_name[(r["Name"], r["Brand"])] for r in products)
    assert total["Not carried"] == int((expected["status"] == "not carried").sum())
    assert total["Out of stock"] == int((expected["status"] == "out of stock").sum())
    # the report's blank statuses were decided by the catalog, and say so
    blank = set(
        zip(
            expected[expected["Product inventory status"] == ""]["Product title"],
            expected[expected["Product inventory status"] == ""]["Brand"],
        )
    )
    assert blank and all(
        r["Status from"] == "your catalog (GTIN)" for r in products if (r["Name"], r["Brand"]) in blank
    )
    # top 10%: ceil(10 %) of the ranked clusters, never weaker than a cluster left out of it
    top = [r for r in products if r["Top 10% of demand"] == "yes"]
    assert len(top) == math.ceil(len(products) * 0.1)
    order = [b.upper().replace(" ", "_") for b in (r["Relative demand"] for r in products)]
    score = {r["Name"]: bestsellers.bucket_score(b) for r, b in zip(products, order)}
    assert min(score[r["Name"]] for r in top) >= max(score[r["Name"]] for r in products if r not in top)
    assert total["Top 10% not carried"] == sum(r["Your status"] == "not carried" for r in top)
    # where demand sits: per subcategory (one level under Outdoor Furniture), ranked clusters and own products
    expected["sub"] = expected["Category"].str.split(" > ").str[2].fillna("Outdoor Furniture (general)")
    subs = {r["Name"]: r for r in rows if r["Kind"] == "Subcategory"}
    for sub, group in expected.groupby("sub"):
        assert subs[sub]["Ranked"] == len(group) and subs[sub]["Not carried"] == int(
            (group["status"] == "not carried").sum()
        )
    demo = pd.read_csv(DEMO, dtype=str, keep_default_na=False)
    seating = demo[
        (demo["status"] == "active")
        & demo["category"].str.startswith("Furniture > Outdoor Furniture > Outdoor Seating")
    ]
    assert subs["Outdoor Seating"]["Your products"] == seating["product_id"].nunique()
    assert_prose_numbers_in_table(md)
    assert 1 <= len(bullets(md)) <= 7


def test_brands_figures_match_pandas_and_missing_brands_are_named():
    p, _, [(result, md, _)] = answer("Which popular brands am I missing?")
    assert p.skills == ("demand_gaps",) and p.scope.is_whole_catalog
    df = pd.read_csv(BRANDS, dtype=str)
    demo_brands = {b.lower() for b in pd.read_csv(DEMO, dtype=str, keep_default_na=False)["brand"] if b}
    expected = df.drop_duplicates("brand")
    rows = result.table.to_pylist()
    total = next(r for r in rows if r["Kind"] == "All brands")
    assert total["Ranked"] == len(expected)
    not_carried = expected[expected["brand_inventory_status"] == "NOT_IN_INVENTORY"]["brand"]
    assert total["Not carried"] == len(not_carried)
    assert set(not_carried.str.lower()).isdisjoint(demo_brands)  # the report and the catalog agree here
    brand_rows = [r for r in rows if r["Kind"] == "Brand"]
    assert all(r["Status from"] == "report" for r in brand_rows)
    line = next(b for b in bullets(md) if "popular brands" in b)
    shown = [r["Name"] for r in rows[:20] if r["Kind"] == "Brand" and r["Your status"] == "not carried"]
    assert shown and all(name in line for name in shown)
    assert_prose_numbers_in_table(md)


def test_one_country_is_answered_and_the_others_named():
    _, _, [(result, md, _)] = answer(OUTDOOR_Q)
    assert "Ranks are for US; the report's other countries (CA) are not mixed in." in md


def test_gaps_adds_missing_top_demand_clusters_only_with_demand_data():
    q = "Where are the gaps in outdoor furniture?"
    _, _, [(with_demand, md, _)] = answer(q)
    _, _, [(demand_result, _, _)] = answer(OUTDOOR_Q)
    top_missing = [
        r
        for r in demand_result.table.to_pylist()
        if r["Kind"] == "Product" and r["Top 10% of demand"] == "yes" and r["Your status"] == "not carried"
    ]
    assert top_missing
    line = next(b for b in bullets(md) if b.startswith("Missing, and in the top 10% of demand"))
    assert all(r["Name"] in line for r in top_missing[:5])
    _, _, [(without, md_without, _)] = answer(q, atts=[])
    assert not any(f.code == "gaps.demand_missing" for f in without.findings)
    assert "top 10% of demand" not in md_without
    assert_prose_numbers_in_table(md)


# --- without demand data ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("question", [OUTDOOR_Q, "Which popular brands am I missing?"])
def test_without_demand_data_the_first_line_says_what_to_attach(question):
    _, inputs, [(result, md, _)] = answer(question, atts=[])
    assert inputs.demand is None and result.missing == "demand"
    lines = [x for x in md.splitlines() if x.strip()]
    assert lines[1] == MISSING["demand"]
    assert "Best sellers report" in lines[1] and "attach" in lines[1]
    assert result.table.num_rows >= 1  # still shows where the merchant's own range sits
    assert_prose_numbers_in_table(md)


# --- where the report comes from -----------------------------------------------------------------------------
def test_evidence_footer_names_the_reports_rows_and_report_date():
    _, _, [(_, _, footer)] = answer(OUTDOOR_Q)
    with PRODUCTS.open(encoding="utf-8", newline="") as fh:
        n_products = sum(1 for _ in csv.DictReader(fh))
    with BRANDS.open(encoding="utf-8", newline="") as fh:
        n_brands = sum(1 for _ in csv.DictReader(fh))
    assert (
        f"- products.csv (attached file, Best sellers report (product clusters)): {n_products:,} rows read; "
        "snapshot date 2026-11-23 (report date, column report_date)"
    ) in footer
    assert (
        f"- brands.csv (attached file, Best sellers report (brands)): {n_brands:,} rows read; "
        "snapshot date 2026-11-23 (report date, column _PARTITIONDATE)"
    ) in footer
    assert "- demo-catalog.csv (bundled demo catalog" in footer  # the report never replaces the catalog


def test_a_report_alone_is_not_the_merchants_catalog():
    inputs = load_catalog_inputs(attachments(), question=OUTDOOR_Q)
    assert inputs.own is not None and all(s.role == "catalog" for s in inputs.own.sources)
    assert [s.name for s in inputs.demand.sources] == ["products.csv", "brands.csv"]
    demo_table, _ = load_demo()
    assert inputs.own.table.num_rows == demo_table.num_rows


def test_configured_and_trusted_locations(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "bestsellers.csv").write_bytes(PRODUCTS.read_bytes())
    by_setting = load_catalog_inputs([], question=OUTDOOR_Q, demand_uri=str(folder / "bestsellers.csv"))
    assert by_setting.demand is not None and by_setting.demand.sources[0].kind == "local file"
    # a Best sellers report at the reference location (REFERENCE_URI or a trusted catalog_context's
    # reference_uri) is demand data, not a competitor's catalog
    by_reference = load_catalog_inputs([], question=OUTDOOR_Q, reference_uri=str(folder / "bestsellers.csv"))
    assert by_reference.reference is None and by_reference.demand.table.num_rows == by_setting.demand.table.num_rows
    # a catalog is not taken as a report, and a report is not taken as the catalog
    wrong = load_catalog_inputs([], question=OUTDOOR_Q, demand_uri=str(DEMO))
    assert wrong.demand is None and wrong.problems == ["The configured Best sellers report could not be read."]
    not_catalog = load_catalog_inputs([], question=OUTDOOR_Q, catalog_uri=str(folder / "bestsellers.csv"))
    assert not_catalog.own is None and not_catalog.problems == ["The configured catalog could not be read."]


def test_a_broken_report_is_named_not_dropped():
    bad = Attachment("bestsellers.csv", b'Rank,Relative demand,Product title\n"1,Very high\n', "text/csv")
    inputs = load_catalog_inputs([bad], question=OUTDOOR_Q)
    assert [u.name for u in inputs.unreadable] == ["bestsellers.csv"] and inputs.demand is None


# --- A2UI --------------------------------------------------------------------------------------------------------
def test_a2ui_surfaces_with_and_without_demand_validate():
    from tests.a2ui_check import check_surfaces

    surfaces = []
    for i, atts in enumerate((None, [])):
        _, inputs, [(result, _, _)] = answer(OUTDOOR_Q, atts=atts)
        footer = render_footer(inputs, result.taxonomy_note, NOW, markdown=False)
        surfaces.append(a2ui.build_messages(result, footer, f"demand_gaps-{i}"))
    report = check_surfaces(surfaces)
    texts = " ".join(t["html"] for t in report["demand_gaps-0"]["texts"].values())
    assert "Alder Lane Meadow Deck Box" in texts


# --- the front door --------------------------------------------------------------------------------------------
def _file_part(path: Path):
    from a2a.types import FilePart, FileWithBytes, Part

    return Part(
        root=FilePart(
            file=FileWithBytes(bytes=base64.b64encode(path.read_bytes()).decode(), mime_type="text/csv", name=path.name)
        )
    )


def test_demand_question_through_the_official_client(server):
    from tests.helpers import collect_events

    events = asyncio.run(
        collect_events(server.url, OUTDOOR_Q, streaming=False, parts=[_file_part(PRODUCTS), _file_part(BRANDS)])
    )
    task = events[-1][0]
    assert task.status.state.value == "completed"
    [artifact] = task.artifacts
    assert artifact.name == "demand_gaps"
    text = artifact.parts[0].root.text
    assert text.startswith("## Demand gaps: Outdoor Furniture")
    assert "Best sellers report (product clusters)): 277 rows read" in text
    _, _, [(local, md, _)] = answer(OUTDOOR_Q)
    lines = [x for x in md.splitlines() if x.startswith(("- ", "| "))]
    assert len(lines) > 20 and all(x in text for x in lines)  # the same findings and table as computed here


def test_demand_question_without_data_through_the_official_client(server):
    from tests.helpers import collect_events

    events = asyncio.run(collect_events(server.url, "Which popular brands am I missing?", streaming=True))
    task = events[-1][0]
    text = task.artifacts[0].parts[0].root.text
    assert task.artifacts[0].name == "demand_gaps"
    assert [x for x in text.splitlines() if x.strip()][1] == MISSING["demand"]


def test_card_lists_demand_gaps(server):
    import httpx

    card = httpx.get(server.url.rstrip("/") + "/.well-known/agent-card.json", timeout=30).json()
    skill = next(s for s in card["skills"] if s["id"] == "demand_gaps")
    assert "What are shoppers buying in outdoor furniture that I don't carry?" in skill["examples"]


# --- any catalog ---------------------------------------------------------------------------------------------
SEEDS = sorted((HERE / "corpus" / "seed").glob("*.csv"))


@pytest.mark.parametrize("path", SEEDS, ids=[p.name for p in SEEDS])
def test_report_beside_any_catalog_answers_with_numbers_from_the_table(path):
    """The same report beside each real export: every ranked row gets a status and says where it came
    from; the status is the report's wherever the report states one."""
    atts = [Attachment(path.name, path.read_bytes(), "text/csv")] + attachments()
    for question in (OUTDOOR_Q, "Which popular brands am I missing?"):
        _, inputs, [(result, md, footer)] = answer(question, atts=atts)
        assert inputs.own.sources[0].name == path.name
        ranked = [r for r in result.table.to_pylist() if r["Kind"] in ("Product", "Brand")]
        assert ranked and all(r["Your status"] in ("not carried", "out of stock", "in stock") for r in ranked)
        assert all(r["Status from"].startswith(("report", "your catalog")) for r in ranked)
        assert_prose_numbers_in_table(md)
        assert "Best sellers report (product clusters)" in footer


def test_a_report_attached_in_a_follow_up_keeps_the_earlier_catalog(server):
    """Turn 1 attaches the merchant's catalog; turn 2 attaches only a Best sellers report: the answer is
    about the catalog attached earlier (never the demo), with the report beside it."""
    from tests.helpers import collect_events

    seed = HERE / "corpus" / "seed" / "shopify-garden-solutions.csv"
    first = asyncio.run(collect_events(server.url, "What is in this file?", streaming=False, parts=[_file_part(seed)]))[
        -1
    ][0]
    second = asyncio.run(
        collect_events(
            server.url, OUTDOOR_Q, streaming=False, parts=[_file_part(PRODUCTS)], context_id=first.context_id
        )
    )[-1][0]
    text = second.artifacts[0].parts[0].root.text
    assert second.artifacts[0].name == "demand_gaps"
    assert f"- {seed.name} (attached earlier in this conversation" in text
    assert "demo-catalog.csv" not in text
    assert "- products.csv (attached file, Best sellers report (product clusters))" in text


def test_only_the_newest_report_date_is_ranked():
    """A transfer table holds one partition per day: last week's rows (here: every cluster a week older,
    its "Very high" demand then "Very low") must not change the answer."""
    old = PRODUCTS.read_text(encoding="utf-8").replace("2026-11-23", "2026-11-16").replace(",Very high,", ",Very low,")
    header, *rows = old.splitlines()
    two_weeks = PRODUCTS.read_text(encoding="utf-8") + "\n".join(reversed(rows)) + "\n"
    _, _, [(once, md_once, _)] = answer(OUTDOOR_Q)
    _, _, [(twice, md_twice, footer)] = answer(
        OUTDOOR_Q,
        atts=[
            Attachment("products.csv", two_weeks.encode(), "text/csv"),
            Attachment(BRANDS.name, BRANDS.read_bytes(), "text/csv"),
        ],
    )
    assert twice.table.to_pylist() == once.table.to_pylist()
    assert f"{2 * len(rows):,} rows read; snapshot date 2026-11-23" in footer


def test_own_index_is_the_per_row_rule_without_a_per_row_walk():
    """demand._own_index (Arrow keys, Python only over the variants the report names) gives what the
    plain per-row rule gives: a GTIN is in stock if any variant is, else out of stock if any is, else
    stock unknown; brands count distinct products per trimmed, lower-cased name. Checked on the demo in
    its own order and reversed (the rule must not depend on order: the SQL path has none), with a few
    GTINs shared by an out-of-stock variant and a variant of unknown stock."""
    from collections import defaultdict

    from agent.analysis import common
    from agent.analysis import demand as demand_mod

    demo, _ = load_demo()
    t0 = demo.select(list(demand_mod.READ))
    # rows 0-9: the GTIN of row i+10; even ones out of stock, odd ones of unknown stock
    gtin = t0["gtin"].to_pylist()
    avail = t0["availability"].to_pylist()
    qty = t0["inventory_qty"].to_pylist()
    for i in range(10):
        gtin[i] = gtin[i + 10]
        avail[i] = "out_of_stock" if i % 2 == 0 else None
        qty[i] = None
        avail[i + 10] = None if i % 2 == 0 else "out_of_stock"
        qty[i + 10] = None
    t0 = t0.set_column(t0.schema.get_field_index("gtin"), "gtin", pa.array(gtin, t0["gtin"].type))
    t0 = t0.set_column(t0.schema.get_field_index("availability"), "availability", pa.array(avail, pa.string()))
    t0 = t0.set_column(
        t0.schema.get_field_index("inventory_qty"), "inventory_qty", pa.array(qty, t0["inventory_qty"].type)
    )
    for t in (t0, t0.take(list(range(t0.num_rows - 1, -1, -1)))):
        states = [common.STOCK_STATES[c] for c in common.stock_codes(t).tolist()]
        want_gtin: dict[str, str] = {}
        for g, s in zip(t["gtin"].to_pylist(), states):
            k = demand_mod._gtin_key(g)
            if k is None:
                continue
            now = {"in_stock": "in stock", "out_of_stock": "out of stock"}.get(s, "stock unknown")
            if k not in want_gtin or demand_mod.STATE_ORDER[now] < demand_mod.STATE_ORDER[want_gtin[k]]:
                want_gtin[k] = now
        brands: dict[str, set] = defaultdict(set)
        for b, pk in zip(common.as_str(t["brand"]).to_pylist(), t["product_key"].to_pylist()):
            if b and b.strip():
                brands[b.strip().lower()].add(pk)
        got_gtin, got_brands = demand_mod._own_index(t, set(want_gtin))
        assert len(want_gtin) > 100 and got_gtin == want_gtin
        assert all(got_gtin[demand_mod._gtin_key(gtin[i])] == "out of stock" for i in range(10))
        assert got_brands == {b: len(s) for b, s in brands.items()} and len(got_brands) > 5
        assert demand_mod._own_index(t, set())[0] == {}
