"""Markdown rendering of SkillResult: title, scope, bullets, table cut at 20 rows, money and units."""

from __future__ import annotations

import pyarrow as pa

from agent.analysis.common import build_table
from agent.analysis.result import Finding, Scope, SkillResult
from agent.render import numbers
from agent.render.text import render_skill, scope_line
from tests.helpers import assert_prose_numbers_in_table, bullets

COLS = (
    ("Category", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Share", "percent", pa.float64()),
    ("Median price", "money", pa.float64()),
)


def result(n_rows: int, currency: str | None = "USD", findings=None) -> SkillResult:
    rows = [(f"Cat {i} | x", 1000 + i, 12.5, 1299.0 + i) for i in range(n_rows)]
    return SkillResult(
        skill="catalog_overview",
        scope=Scope(),
        table=build_table(COLS, rows),
        findings=findings or [],
        currency=currency,
    )


def test_money_percent_count_formats():
    assert numbers.fmt_money(1299, "USD") == "USD 1,299.00"
    assert numbers.fmt_money(1299.5) == "1,299.50"
    assert numbers.fmt_percent(12.345) == "12.3%"
    assert numbers.fmt_count(1234567) == "1,234,567"
    assert numbers.fmt_value(None, "money") == "–"
    assert numbers.fmt_number(87.0) == "87" and numbers.fmt_number(87.25) == "87.2"
    assert numbers.in_words(3) == "three" and numbers.in_words(42) == "42"


def test_table_is_cut_at_20_rows_and_says_so():
    md = render_skill(result(57))
    assert "Top 20 of 57 rows" in md
    table_lines = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table_lines) == 2 + 20
    assert "Cat 19" in md and "Cat 20 " not in md
    assert "Cat 0 \\| x" in md  # pipes in merchant strings escaped
    assert "USD 1,299.00" in md and "1,000" in md and "12.5%" in md


def test_short_table_has_no_cut_line():
    md = render_skill(result(3, currency=None))
    assert "Top" not in md
    assert "1,299.00" in md and "USD" not in md


def test_findings_citing_hidden_rows_are_dropped_and_severity_orders():
    fs = [
        Finding(
            "overview.top_brand",
            {"brand": "A", "products_n": 1000, "products_pct": 12.5},
            cells=((0, "Products"),),
            severity=1,
        ),
        Finding(
            "overview.price",
            {"priced_n": 1000, "low_price": 1299.0, "median_price": 1300.0, "high_price": 1301.0},
            cells=((0, "Median price"), (1, "Median price"), (2, "Median price")),
            severity=5,
        ),
        Finding(
            "overview.top_brand",
            {"brand": "B", "products_n": 1030, "products_pct": 12.5},
            cells=((30, "Products"),),
            severity=9,
        ),
    ]
    md = render_skill(result(57, findings=fs))
    b = bullets(md)
    assert len(b) == 2
    assert b[0].startswith("Across 1,000 priced variants, prices run from USD 1,299.00")
    assert "B" not in b[1]
    assert_prose_numbers_in_table(md)


def test_scope_line_names_taxonomy_and_merchant_categories():
    s = Scope(
        label="outdoor furniture",
        taxonomy_id=4299,
        taxonomy_path="Furniture > Outdoor Furniture",
        merchant_categories=("Garden > Loungers", "Patio"),
    )
    line = scope_line(s)
    assert "Furniture > Outdoor Furniture (Google taxonomy id 4299)" in line
    assert "“Garden > Loungers” and “Patio”" in line
    md = render_skill(SkillResult(skill="assortment_gaps", scope=s, table=build_table(COLS, [])))
    assert md.startswith("## Assortment gaps: outdoor furniture\n")


def test_merchant_strings_are_markdown_escaped_only_in_markdown():
    from agent.render.text import md_escape, sentence

    cols = (("Category", "text", pa.string()), ("Products", "count", pa.int64()))
    name = "*NEW* [sale](http://x) <b>_Chairs_</b>"
    f = Finding(
        "gaps.thin", {"items": [{"name": name, "products_n": 2}], "threshold": 3}, cells=((0, "Products"),), severity=5
    )
    r = SkillResult(
        skill="assortment_gaps",
        scope=Scope(label=name, merchant_categories=(name,)),
        table=build_table(cols, [(name, 2)]),
        findings=[f],
    )
    md = render_skill(r)
    escaped = md_escape(name)
    assert escaped == "\\*NEW\\* \\[sale\\](http://x) \\<b>\\_Chairs\\_\\</b>"
    assert md_escape("Furniture > Outdoor Furniture") == "Furniture > Outdoor Furniture"
    assert name not in md and md.count(escaped) >= 3  # title, scope line, bullet, table cell
    assert sentence(f, None) == f"Thin — fewer than three products: {name} (2 products)."  # A2UI: plain text


def test_infinite_values_format_instead_of_raising():
    from agent.render.numbers import fmt_value

    assert [
        fmt_value(v, unit) for v, unit in ((float("inf"), "count"), (float("-inf"), "money"), (float("inf"), "ratio"))
    ] == ["∞", "-∞", "∞"]


def test_a_lone_carriage_return_cannot_start_a_markdown_line():
    from agent.render.text import md_escape

    assert md_escape("Chairs\r# OWNED\r\nx\ny") == "Chairs # OWNED x y"


def test_every_sentence_template_is_named_for_its_finding_code():
    """A traceback or a profile names the template ("_gaps_thin" for gaps.thin), never an anonymous `_`."""
    from agent.render.text import TEMPLATES

    assert len(TEMPLATES) >= 70
    misnamed = {code: fn.__name__ for code, fn in TEMPLATES.items() if fn.__name__ != "_" + code.replace(".", "_")}
    assert not misnamed, misnamed
