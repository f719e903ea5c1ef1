"""Money across skills (issue 11): current sales and their schedules, bands that fit the catalog's own
prices, one price unit (priced variants) shared by overview, ladder and gaps, zero prices said, and mixed
currencies split, never pooled. Expected figures are recomputed here in plain Python."""

from __future__ import annotations

import datetime as dt
import random
import re
import statistics

import numpy as np
import pytest

from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Scope
from agent.catalog.canonical import from_columns
from agent.catalog.evidence import KIND_ATTACHED, SourceEvidence
from agent.catalog.sources import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.a2ui import build_messages
from agent.render.text import render_skill
from tests.a2ui_check import check_surfaces
from tests.helpers import assert_prose_numbers_in_table

CHAIRS = 6828  # Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs
TABLES = 2684


def canonical(rows: list[dict]):
    cols = {k: [r.get(k) for r in rows] for k in rows[0]}
    return from_columns(cols)


def run(skill: str, table, snapshot: dt.date | None = None, reference=None, scope=Scope()):
    src = (
        SourceEvidence(
            name="c.csv", kind=KIND_ATTACHED, format="generic table", rows_read=table.num_rows, snapshot_date=snapshot
        ),
    )
    return SKILLS[skill].run(SkillInput(own=table, reference=reference, scope=scope, taxonomy=load(), sources=src))


def rows_of(result) -> list[dict]:
    return result.table.to_pylist()


def overview_cell(result, section: str, item: str, column: str = "Count"):
    for r in rows_of(result):
        if r["Section"] == section and r["Item"] == item:
            return r[column]
    raise KeyError((section, item))


def variant(pk: int, price: float | None, **kw) -> dict:
    row = {
        "product_key": pk,
        "product_id": f"p{pk}",
        "title": f"Chair {pk}",
        "status": "active",
        "google_category_id": CHAIRS,
        "category_mapping": "google_category",
        "price": price,
        "compare_at_price": None,
        "sale_price": None,
        "sale_start": None,
        "sale_end": None,
        "currency": "USD",
    }
    row.update(kw)
    return row


# --- sales -------------------------------------------------------------------------------------------------------
def test_five_discounted_products_are_on_sale():
    rows = [variant(i, 100.0, sale_price=80.0 if i < 5 else None) for i in range(12)]
    r = run("price_ladder", canonical(rows))
    total = rows_of(r)[0]
    assert total["On sale"] == pytest.approx(round(100 * 5 / 12, 1))
    assert total["Average discount"] == 20.0
    assert "on sale now" in render_skill(r)


SNAP = dt.date(2026, 11, 28)
SCHEDULES = [  # (start, end, current at SNAP)
    (None, None, True),
    (dt.date(2026, 11, 1), dt.date(2026, 11, 30), True),
    (dt.date(2026, 11, 28), dt.date(2026, 11, 28), True),  # first and last day are inclusive
    (dt.date(2026, 10, 1), dt.date(2026, 11, 27), False),  # ended the day before
    (dt.date(2026, 11, 29), None, False),  # not begun
    (None, dt.date(2026, 12, 31), True),
    (dt.date(2026, 1, 1), None, True),
]


@pytest.mark.parametrize("start, end, current", SCHEDULES)
def test_a_sale_counts_only_inside_its_schedule(start, end, current):
    rows = [variant(0, 100.0, sale_price=75.0, sale_start=start, sale_end=end)] + [
        variant(i, 100.0) for i in range(1, 4)
    ]
    total = rows_of(run("price_ladder", canonical(rows), snapshot=SNAP))[0]
    assert total["On sale"] == (25.0 if current else 0.0)


def test_without_a_snapshot_date_scheduled_sales_are_counted_as_unchecked():
    rows = [variant(i, 100.0, sale_price=75.0, sale_start=s, sale_end=e) for i, (s, e, _) in enumerate(SCHEDULES)]
    rows += [variant(50 + i, 100.0) for i in range(3)]
    r = run("price_ladder", canonical(rows), snapshot=None)
    total = rows_of(r)[0]
    unscheduled = sum(1 for s, e, _ in SCHEDULES if s is None and e is None)
    assert total["On sale"] == pytest.approx(round(100 * unscheduled / len(rows), 1))
    assert total["Scheduled sales not checked"] == len(SCHEDULES) - unscheduled
    md = render_skill(r)
    assert "cannot be checked" in md and "no snapshot date" in md
    assert_prose_numbers_in_table(md)


def test_sale_price_not_below_the_price_is_no_discount():
    rows = [
        variant(0, 100.0, sale_price=100.0),
        variant(1, 100.0, sale_price=120.0),
        variant(2, 100.0, sale_price=0.0),
        variant(3, 100.0, compare_at_price=125.0),
    ]
    total = rows_of(run("price_ladder", canonical(rows)))[0]
    assert total["On sale"] == 25.0 and total["Average discount"] == 20.0


def test_end_to_end_merchant_center_feed_with_sale_schedules_and_snapshot():
    lines = [
        "id\ttitle\tprice\tsale_price\tsale_price_effective_date\tavailability\tgoogle_product_category\tupdated_at"
    ]
    schedule = ["", "2026-11-01T00:00+0500/2026-11-30T23:59+0500", "2026-10-01/2026-11-27", "2026-12-01/2026-12-31"]
    for i in range(20):
        sale = f"{380000 + i}.00 KZT" if i < 8 else ""
        lines.append(
            f"s{i}\tOutdoor chair {i}\t{465000 + 1000 * i}.00 KZT\t{sale}\t{schedule[i % 4] if sale else ''}"
            f"\tin stock\t{CHAIRS}\t2026-11-28"
        )
    table, ev = read_table_bytes(("\n".join(lines) + "\n").encode(), "feed.tsv", KIND_ATTACHED)
    assert ev.snapshot_date == dt.date(2026, 11, 28)
    r = SKILLS["price_ladder"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=load(), sources=(ev,)))
    current = sum(1 for i in range(8) if i % 4 in (0, 1))  # open, and the November window
    total = rows_of(r)[0]
    assert total["On sale"] == pytest.approx(round(100 * current / 20, 1))
    assert r.currency == "KZT"
    md = render_skill(r)
    # every money figure (two decimals) in the answer names its currency
    assert re.findall(r"\d[\d,]*\.\d{2}\b", md) and not re.findall(r"(?<!KZT )(?<![\d,.])\d[\d,]*\.\d{2}\b", md)
    assert_prose_numbers_in_table(md)


# --- bands -------------------------------------------------------------------------------------------------------------
def _bands(result) -> list[dict]:
    return [r for r in rows_of(result) if r["Section"].startswith("Price bands")]


def _nice(x: float) -> bool:
    m = x / 10 ** np.floor(np.log10(x))
    return any(abs(m - s) < 1e-9 for s in (1, 2, 2.5, 5))


@pytest.mark.parametrize("seed", range(5))
def test_bands_fit_a_tenge_catalog(seed):
    rng = random.Random(seed)
    prices = [float(rng.randrange(40_000, 900_000, 500)) for _ in range(84)]
    rows = [variant(i // 3, p, currency="KZT") for i, p in enumerate(prices)]
    r = run("catalog_overview", canonical(rows))
    bands = _bands(r)
    assert len(bands) >= 2
    assert sum(b["Count"] for b in bands) == len(prices)
    assert max(b["Count"] for b in bands) < len(prices)  # no band holds the whole catalog
    bounds = [float(x.replace(",", "")) for b in bands for x in re.findall(r"KZT ([\d,.]+)", b["Item"])]
    assert bounds and all(_nice(x) and min(prices) < x <= max(prices) for x in bounds)
    for b in bands:  # counts recomputed from the stated bounds
        nums = [float(x.replace(",", "")) for x in re.findall(r"KZT ([\d,.]+)", b["Item"])]
        lo = nums[0] if not b["Item"].startswith("Under") else 0.0
        hi = nums[-1] if "under" in b["Item"].lower() else float("inf")
        assert b["Count"] == sum(1 for p in prices if lo <= p < hi)
    assert all("KZT" in b["Item"] for b in bands)
    assert_prose_numbers_in_table(render_skill(r))


def test_bands_fit_a_small_price_catalog():
    prices = [0.5, 0.75, 1.2, 1.5, 1.99, 2.25, 2.5, 2.99, 3.5, 4.0, 4.5, 4.99]
    rows = [variant(i, p, currency="EUR") for i, p in enumerate(prices)]
    bands = _bands(run("catalog_overview", canonical(rows)))
    assert len(bands) >= 2 and sum(b["Count"] for b in bands) == len(prices)
    bounds = [float(x) for b in bands for x in re.findall(r"EUR ([\d.]+)", b["Item"])]
    assert all(_nice(x) and x <= 5 for x in bounds)


def test_one_price_gives_one_band():
    rows = [variant(i, 50.0) for i in range(4)]
    bands = _bands(run("catalog_overview", canonical(rows)))
    assert [(b["Item"], b["Count"]) for b in bands] == [("All priced variants", 4)]


# --- one unit across skills --------------------------------------------------------------------------------------------
def test_overview_ladder_and_gaps_agree_on_the_same_priced_variants():
    rng = random.Random(3)
    rows = []
    for pk in range(30):
        for v in range(rng.randint(1, 4)):
            rows.append(
                variant(
                    pk,
                    float(rng.choice([50, 120, 150, 180, 300, 450])) + v,
                    google_category_id=rng.choice([CHAIRS, TABLES]),
                )
            )
    rows.append(variant(99, 0.0))  # a live variant at 0.00
    rows.append(variant(98, None))  # no price
    table = canonical(rows)
    priced = [r["price"] for r in rows if r["price"] and r["price"] > 0]
    ov, ladder, gaps = (run(s, table) for s in ("catalog_overview", "price_ladder", "assortment_gaps"))
    sec = "Price (priced variants)"
    assert overview_cell(ov, sec, "Priced variants") == len(priced)
    assert overview_cell(ov, sec, "Lowest price", "Price") == min(priced)  # never the 0.00 variant
    assert overview_cell(ov, sec, "Median price", "Price") == pytest.approx(statistics.median(priced), abs=0.006)
    assert overview_cell(ov, "Price", "Priced 0.00 or below (left out of price figures)") == 1
    assert overview_cell(ov, "Price", "No price") == 1
    lt = rows_of(ladder)[0]
    assert lt["Priced variants"] == len(priced)
    assert lt["Median"] == pytest.approx(statistics.median(priced), abs=0.006)
    assert lt["P10"] == pytest.approx(float(np.quantile(priced, 0.1)), abs=0.006)
    assert lt["Priced 0.00 or below (left out)"] == 1
    gt = rows_of(gaps)[0]
    assert (gt["Min price"], gt["Max price"]) == (min(priced), max(priced))
    assert gt["Median price"] == pytest.approx(statistics.median(priced), abs=0.006)
    assert sum(b["Count"] for b in _bands(ov)) == len(priced)
    for result in (ov, ladder):
        md = render_skill(result)
        assert "priced variants" in md and ("0.00 or below" in md)
        assert_prose_numbers_in_table(md)


# --- mixed currencies ------------------------------------------------------------------------------------------------------
def _mixed_rows():
    rng = random.Random(11)
    rows = [variant(i, float(rng.randrange(40_000, 900_000, 1000)), currency="KZT") for i in range(20)]
    rows += [variant(100 + i, float(rng.randrange(500, 9_000, 10)), currency="RUB") for i in range(10)]
    return rows


def test_ladder_splits_currencies_and_never_pools_them():
    rows = _mixed_rows()
    r = run("price_ladder", canonical(rows))
    assert r.currency is None and r.chart is None
    totals = [x for x in rows_of(r) if x["Category"] == "All categories"]
    assert [t["Currency"] for t in totals] == ["KZT", "RUB"]
    for t in totals:
        mine = [x["price"] for x in rows if x["currency"] == t["Currency"]]
        assert t["Priced variants"] == len(mine)
        assert t["Median"] == pytest.approx(statistics.median(mine), abs=0.006)
        assert t["P90"] == pytest.approx(float(np.quantile(mine, 0.9)), abs=0.006)
    md = render_skill(r)
    assert "several currencies" in md
    kzt_median = f"KZT {totals[0]['Median']:,.2f}"
    rub_median = f"RUB {totals[1]['Median']:,.2f}"
    assert kzt_median in md and rub_median in md
    assert_prose_numbers_in_table(md)
    # A2UI cells carry each row's own currency too, and the surface is valid for the official renderer
    messages = build_messages(r, "", "s1")
    text = str(messages)
    assert kzt_median in text and rub_median in text
    ov = build_messages(run("catalog_overview", canonical(rows)), "", "s2")
    assert "RUB " in str(ov) and "KZT " in str(ov)
    check_surfaces([messages, ov])


def test_gaps_price_columns_stay_in_the_main_currency_and_say_so():
    rows = _mixed_rows()
    r = run("assortment_gaps", canonical(rows))
    total = rows_of(r)[0]
    kzt = [x["price"] for x in rows if x["currency"] == "KZT"]
    assert (total["Min price"], total["Max price"]) == (min(kzt), max(kzt))
    assert r.currency == "KZT"
    assert any("RUB" in n and "never pooled" in n for n in r.notes)


def test_reference_in_another_currency_is_not_compared():
    own = canonical([variant(i, 100.0 + i, currency="EUR") for i in range(6)])
    ref = canonical([variant(i, 9000.0 + i, currency="JPY") for i in range(6)])
    ladder = run("price_ladder", own, reference=ref)
    assert all(x.get("Reference P25") is None for x in rows_of(ladder))
    assert any("EUR" in n and "not compared" in n for n in ladder.notes)
    gaps = run("assortment_gaps", own, reference=ref)
    assert all(x.get("Reference P25") is None for x in rows_of(gaps))
    assert any("not compared" in n for n in gaps.notes)


def test_a_table_stored_before_the_sale_schedule_columns_still_answers():
    rows = [variant(i, 100.0, sale_price=80.0 if i < 2 else None) for i in range(4)]
    old = canonical(rows).drop_columns(["sale_start", "sale_end"])
    total = rows_of(run("price_ladder", old))[0]
    assert total["On sale"] == 50.0
