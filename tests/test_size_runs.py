""" "What sizes am I missing in <category>?" without a reference catalog: the broken size runs
(agent.analysis.size_runs), routed by the planner, and the fill-rate answer kept for coverage questions.

Found by asking a held-out apparel export "Which sizes are missing?": the answer was fill rates (size
94.4 % filled), which says nothing about which sizes which products lack."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from agent.analysis import planner, size_runs
from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.size_runs import Cell, runs, size_key
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill
from tests.helpers import csv_bytes

TAX = load()
HEADER = [
    "Handle",
    "Title",
    "Type",
    "Option1 Name",
    "Option1 Value",
    "Variant SKU",
    "Variant Price",
    "Variant Inventory Tracker",
    "Variant Inventory Qty",
    "Variant Inventory Policy",
    "Status",
]
# (handle, sizes, sizes sold out): a dress run XS–XL; "d3" skips L inside its own run, "d4" stops at L
# (XL is carried by most), "d5" alone offers XXL (carried by few: nobody misses it); "d6" is one size
DRESSES = (
    ("d1", ("XS", "S", "M", "L", "XL"), ()),
    ("d2", ("Small", "Medium", "Large", "X-Large"), ("Medium",)),
    ("d3", ("S", "M", "XL"), ()),
    ("d4", ("S", "M", "L"), ()),
    ("d5", ("S", "M", "L", "XL", "XXL"), ("XXL",)),
    ("d6", ("One Size",), ()),
)


def _table(products=DRESSES):
    rows = []
    for handle, sizes, sold in products:
        for i, size in enumerate(sizes):
            first = i == 0
            rows.append(
                [
                    handle,
                    f"Dress {handle}" if first else "",
                    "Dresses" if first else "",
                    "Size" if first else "",
                    size,
                    f"{handle}-{i}",
                    "40.00",
                    "shopify",
                    "0" if size in sold else "5",
                    "deny",
                    "active" if first else "",
                ]
            )
    table, _ = read_table_bytes(csv_bytes(HEADER, rows), "products_export_1.csv", "attached file")
    return table


def _ask(question: str, table):
    plan = planner.plan(question, table, TAX, None)
    result = SKILLS[plan.skills[0]].run(SkillInput(own=table, reference=None, scope=plan.scope, taxonomy=TAX))
    return plan, result


def test_size_words_are_one_key_per_size():
    assert [size_key(k) for k in ("small", "medium", "large", "x-small", "extra small", "xxl", "xx-large")] == [
        "s",
        "m",
        "l",
        "xs",
        "xs",
        "2xl",
        "2xl",
    ]
    assert size_key("newborn") == "0m" and size_key("us 7.5") == "us 7.5"


def test_runs_order_letters_and_numbers_and_count_gaps_by_the_rule():
    """Letter sizes in size order, numbers numerically; a product misses a size most carry or one inside
    its own run, never an extended size few carry that it stops short of."""
    cells = [
        Cell(p, k, k.upper(), 1, 0, 0)
        for p, ks in (("a", "s m l xl"), ("b", "s m l"), ("c", "s l"))
        for k in ks.split()
    ]
    cells += [Cell("d", k, k, 1, 0, 0) for k in ("10", "8", "12")] + [Cell("e", k, k, 1, 0, 0) for k in ("8", "10")]
    letters, numbers = runs(cells)
    assert letters.sizes == ["s", "m", "l", "xl"] and numbers.sizes == ["8", "10", "12"]
    assert letters.core == {"s", "m", "l"}  # XL on 1 of 3: carried by few
    assert letters.missing == {"s": 0, "m": 1, "l": 0, "xl": 0}  # "c" skips M inside S–L
    assert letters.with_gaps == 1 and letters.sold_out is None  # no stock stated
    assert numbers.missing == {"8": 0, "10": 0, "12": 1}  # 12 on 1 of 2 is "most" (at least half)


def test_fractions_order_by_their_value():
    """A fabric shop's "1/4 Yard" and "1/2 Yard" (a BigCommerce corpus export) were ordered by their digits
    (1/2 before 1/4); a fraction is one number."""
    cells = [Cell(p, k, k, 1, 0, 0) for p in "ab" for k in ("1/2 yard", "1/4 yard", "1 yard")]
    (system,) = runs(cells)
    assert system.sizes == ["1/4 yard", "1/2 yard", "1 yard"]


def test_a_dimension_written_by_or_x_is_one_size():
    """A held-out canvas-print shop wrote its sizes '12" by 16"' on six products and '12" x 16"' on two:
    two runs of one set of sizes, so the two were compared with each other only (and "missed" nothing
    the six carry). Width by height is one size however the "by" is written; "2xl" stays a letter size."""
    assert size_key('4" by 6"') == size_key('4" x 6"') == size_key('4"x6"')
    assert size_key("30 × 40 cm") == size_key("30x40 cm") and size_key("2xl") == "2xl"
    cells = [Cell(p, k, k, 1, 0, 0) for p in "abc" for k in ('4" by 6"', '5" by 7"', '8" by 10"')]
    cells += [Cell("d", k, k, 1, 0, 0) for k in ('5" x 7"', '8" x 10"')]
    (system,) = runs(cells)
    assert system.products == 4 and system.missing[size_key('4" x 6"')] == 1  # "d" lacks what most carry


def test_brazilian_grades_are_one_letter_run():
    """A Brazilian T-shirt shop's P, M, G, GG (Portuguese corpus exports) were split: M in the letter
    run, P, G and GG among the other sizes, so the run was never read whole."""
    cells = [Cell(p, k, k.upper(), 1, 0, 0) for p, ks in (("a", "p m g gg"), ("b", "p m gg")) for k in ks.split()]
    (system,) = runs(cells)
    assert system.sizes == ["p", "m", "g", "gg"] and system.missing["g"] == 1


def test_one_product_is_said_in_the_singular():
    products = (("d1", ("S", "M", "L"), ("M",)), ("d2", ("S", "L"), ()), ("d3", ("S", "M", "L"), ()))
    plan, result = _ask("What sizes am I missing in dresses?", _table(products))
    text = render_skill(result, plan.notes)
    assert "1 of the 3 products sized S–L misses a size most of them carry or one inside its own run" in text
    assert "1 of the 3 products sized S–L is sold out in a size it offers: M (1 product)" in text


def test_what_sizes_am_i_missing_answers_with_the_broken_runs():
    plan, result = _ask("What sizes am I missing in dresses?", _table())
    assert plan.skills == ("attribute_coverage",) and plan.scope.wants_missing_sizes
    rows = {r["Size"]: r for r in result.table.to_pylist()}
    assert rows["XS–XXL (all)"]["Products"] == 5  # d6's one size is no run
    # d3 (L inside S–XL), d4 (XL, carried by most); d2 lacks XS, which few carry and lies outside its run
    assert rows["XS–XXL (all)"]["Products missing it"] == 2
    assert {s: rows[s]["Products missing it"] for s in ("XS", "S", "M", "L", "XL", "XXL")} == {
        "XS": 0,  # on 1 of 5: few carry it, inside nobody's run but d1's
        "S": 0,
        "M": 0,
        "L": 1,
        "XL": 1,
        "XXL": 0,
    }
    assert rows["M"]["Products"] == 5  # "Medium" is M
    assert rows["M"]["Products sold out in it"] == 1 and rows["XXL"]["Products sold out in it"] == 1
    text = render_skill(result, plan.notes)
    assert "2 of the 5 products sized XS–XXL miss a size" in text
    assert "out of stock in every product offering it: XXL" in text
    assert "Fill rate" not in text


def test_coverage_questions_keep_the_fill_rates():
    _, result = _ask("How well are sizes filled in?", _table())
    assert "Fill rate" in result.table.column_names
    assert not any(f.code.startswith("sizes.") for f in result.findings)


def test_no_run_to_compare_says_so_and_gives_the_fill_rates():
    plan, result = _ask("Which sizes are missing?", _table((("d6", ("One Size",), ()), ("d1", ("S", "M"), ()))))
    assert result.findings[0].code == "sizes.none"
    assert "Fill rate" in result.table.column_names


def test_an_empty_scope_says_only_that():
    """ "What sizes am I missing in shoes?" in a dress shop said both "No active products are in this
    scope." and that no two products come in two sizes (a corpus apparel export): the second is moot."""
    _, result = _ask("What sizes am I missing in shoes?", _table())
    assert [f.code for f in result.findings] == ["attributes.empty"]


def test_planner_routes_missing_size_questions():
    table = _table()
    for question in ("What sizes am I missing in dresses?", "Which sizes are missing?", "missing sizes in tops"):
        plan = planner.plan(question, table, TAX, None)
        assert "attribute_coverage" in plan.skills and plan.scope.wants_missing_sizes, question
    for question in ("What sizes do I offer in dresses?", "Which materials am I missing?"):
        assert not planner.plan(question, table, TAX, None).scope.wants_missing_sizes, question


def test_with_a_reference_the_values_only_the_reference_has_stay():
    table = _table()
    plan = planner.plan("What sizes am I missing in dresses?", table, TAX, None)
    result = SKILLS["attribute_coverage"].run(SkillInput(own=table, reference=table, scope=plan.scope, taxonomy=TAX))
    assert "Values only in reference" in result.table.column_names


def test_every_number_in_the_sentences_is_a_cited_cell():
    _, result = _ask("What sizes am I missing in dresses?", _table())
    table = result.table.to_pylist()
    for finding in result.findings:
        cited = {table[row][column] for row, column in finding.cells}
        numbers = [v for k, v in finding.values.items() if k.endswith("_n")]
        numbers += [i["products_n"] for i in finding.values.get("items", ())]
        assert set(numbers) <= cited, (finding.code, numbers, cited)
    assert size_runs.TOTAL == " (all)"


def test_the_size_runs_card_is_valid_a2ui_and_charts_the_sizes_not_the_run_rows():
    from agent.render import a2ui
    from tests.a2ui_check import schema_errors

    _, result = _ask("What sizes am I missing in dresses?", _table())
    assert not [e for m in a2ui.build_messages(result, "footer", "s1") for e in schema_errors(m)]
    assert [label for label, _ in a2ui._bars(result)][:2] == ["L", "XL"]


def test_every_product_of_a_run_is_said_all_of_them():
    """ "7 of the 7 products sized S–L miss…" read as a slip: when every product of a run misses a size
    (or is sold out in one), the sentence says "All 7" ("Both" for two)."""
    products = tuple((f"d{i}", ("S", "L"), ("L",)) for i in range(4)) + (("d9", ("S", "M", "L"), ()),)
    plan, result = _ask("What sizes am I missing in dresses?", _table(products))
    text = render_skill(result, plan.notes)
    assert "4 of the 5 products sized S–L miss a size" in text
    assert "4 of the 5 products sized S–L are sold out in a size they offer" in text
    every = tuple((f"d{i}", ("S", "M", "L"), ("M",)) for i in range(3))
    plan, result = _ask("What sizes am I missing in dresses?", _table(every))
    text = render_skill(result, plan.notes)
    assert "All 3 products sized S–L are sold out in a size they offer: M (3 products)" in text
    assert "of the 3" not in text
    both = (("d1", ("S", "M", "L"), ("M",)), ("d2", ("S", "M", "L"), ("L",)))
    plan, result = _ask("What sizes am I missing in dresses?", _table(both))
    assert "Both products sized S–L are sold out in a size they offer" in render_skill(result, plan.notes)


def test_the_products_missing_a_size_are_named_with_the_sizes_they_miss():
    """A held-out helmet shop (85 AGV helmets sized XS–XXL) was told "1 of the 85 products … misses a
    size …; most missed: XS" and never which helmet: the answer and the table now name them by title."""
    plan, result = _ask("What sizes am I missing in dresses?", _table())
    text = render_skill(result, plan.notes)
    assert "own run: Dress d3 (L) and Dress d4 (XL); most missed:" in text
    rows = {r["Size"]: r for r in result.table.to_pylist()}
    assert rows["XS–XXL (all)"]["Products missing it (examples)"] == "Dress d3 (L); Dress d4 (XL)"
    assert rows["L"]["Products missing it (examples)"] == "Dress d3"
    assert rows["S"]["Products missing it (examples)"] is None


def test_more_products_missing_a_size_than_are_named_end_with_and_others():
    """Those missing most sizes come first; one missing four sizes or more is named without them, and a
    list cut at LIST_LIMIT says "and others" (no count: every number in prose is a table cell)."""
    full = ("XS", "S", "M", "L", "XL", "XXL")
    products = tuple((f"f{i}", full, ()) for i in range(6)) + (
        ("a", ("S", "M", "L", "XL", "XXL"), ()),
        ("b", ("XS", "S", "M", "L"), ()),
        ("c", ("XS", "XXL"), ()),
        ("d", ("XS", "S", "M", "L", "XL"), ()),
    )
    plan, result = _ask("What sizes am I missing in dresses?", _table(products))
    text = render_skill(result, plan.notes)
    assert "own run: Dress c, Dress b (XL, XXL), Dress a (XS) and others; most missed:" in text
    assert size_runs.LIST_LIMIT == 3


def _oracle(path: Path) -> tuple[dict[str, list[set[str]]], set[str]]:
    """Per title (csv module) the option values of each product so titled, and every value in the file."""
    by_handle: dict[str, tuple[list[str], set[str]]] = {}
    for row in csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8-sig"))):
        titles, values = by_handle.setdefault(row["Handle"], ([], set()))
        if (row.get("Title") or "").strip():
            titles.append(row["Title"].strip())
        values |= {" ".join(row[f"Option{i} Value"].lower().split()) for i in "123" if row.get(f"Option{i} Value")}
    per: dict[str, list[set[str]]] = {}
    for titles, values in by_handle.values():
        if titles:
            per.setdefault(min(titles), []).append(values)
    return per, set().union(*(v for _, v in by_handle.values()))


SHOPIFY = sorted(
    p
    for p in (Path(__file__).parent / "corpus").glob("*/*.csv")
    if p.read_bytes()[:300].decode("utf-8-sig", "replace").startswith("Handle,Title,Body (HTML),Vendor")
)


@pytest.mark.parametrize("path", SHOPIFY, ids=lambda p: p.name)
def test_every_product_named_really_misses_the_sizes_named(path):
    """Property over the corpus's Shopify exports: each product the answer names is a product of the file
    offering two sizes or more, lacking every size named for it, which another product offers."""
    table, _ = read_table_bytes(path.read_bytes(), "products_export_1.csv", "attached file")
    plan, result = _ask("Which sizes am I missing?", table)
    per, every = _oracle(path)
    for finding in (f for f in result.findings if f.code == "sizes.gaps"):
        named = finding.values["named"]
        assert len(named) <= size_runs.LIST_LIMIT and finding.values["more"] == (finding.values["gaps_n"] > len(named))
        for entry in named:
            title, sizes = entry, []
            if title not in per:
                title, _, inside = entry[:-1].rpartition(" (")
                sizes = [" ".join(s.lower().split()) for s in inside.split(", ")]
            assert title in per, (path.name, entry)
            assert any(len(v) >= 2 and not set(sizes) & v for v in per[title]), (path.name, entry)
            assert set(sizes) <= every, (path.name, entry)
        if named:
            assert ", ".join(named[:-1]) in render_skill(result, plan.notes).replace("\\|", "|")  # Markdown escapes |
