"""Our A2UI surfaces through the official renderer core, and their Text through markdown-it.

`@a2ui/web_core@0.11.0` (`./v0_8`, A2uiMessageProcessor) runs under Node on every surface at once, as a
chat with several artifacts would: it must process them without error and build exactly as many tree
nodes as we sent components. Each Text is then rendered the way the A2UI web renderers do (usage-hint
prefix, markdown-it defaults), which is how we prove hostile merchant strings stay inside their cells:
the HTML of a cell is one element holding the escaped original characters and nothing else.

Node and npm are required (first run installs the pinned packages from the npm registry into .node/).
"""

from __future__ import annotations

import functools

import pyarrow as pa
import pytest

from agent.analysis.common import build_table
from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Finding, Scope, SkillResult
from agent.catalog.canonical import from_columns
from agent.catalog.taxonomy import load
from agent.render import a2ui, numbers
from agent.render.markdown import clean_text, cut, unescape_markdown
from tests.a2ui_check import check_surfaces, components_of, run_renderer
from tests.helpers import A2UI_FOOTER as FOOTER
from tests.helpers import SHAPES, literal

HOSTILE = [
    "**SALE** _now_ `code` ~~gone~~",
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    "[click](https://evil.example/x) ![i](https://evil.example/i.png)",
    "# Heading",
    "1. ordered",
    "- bullet",
    "> quote",
    "---",
    "| a | b |",
    "line1\nline2\r\n\tline3",
    "&amp; &lt;b&gt; &#x41;",
    "trailing backslash \\",
    "https://www.example.com autolink",
    "🪑🏖️ 👨‍👩‍👧 🇫🇷🇩🇪 Sonnenliege ☀️",
    "كرسي حديقة خارجي",
    "\u202egnp.exe\u202c כיסא גן",
    "a2_root",
    "a2_r0_c0",
    "\x00\x07 control",
    "",
    "x" * 57 + "👨‍👩‍👧" + "tail",
    "W" * 10_000,
]


def html_escape(text: str) -> str:
    """markdown-it's escapeHtml."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def shown(raw: object, limit: int) -> str:
    """What a cell must display for `raw`: cleaned, cut, never empty."""
    return cut(clean_text(raw), limit) or "—"


def hostile_result() -> SkillResult:
    cols = (("Subcategory", "text", pa.string()), ("Brand", "text", pa.string()), ("Products", "count", pa.int64()))
    rows = [(h, HOSTILE[-1 - i], i + 1) for i, h in enumerate(HOSTILE[:20])]
    return SkillResult(
        skill="brand_coverage",
        scope=Scope(label="<b>Patio</b> **" + "Q" * 10_000),
        table=build_table(cols, rows),
        findings=[
            Finding("overview.top_brand", {"brand": "<script>x</script> *b*", "products_n": 3, "products_pct": 50.0})
        ],
        chart=("Subcategory", "Products"),
        notes=["# not a heading <i>x</i>"],
    )


def hostile_columns_result() -> SkillResult:
    cols = tuple((name, "text", pa.string()) for name in ("<th>", "**b**", "a|b"))
    return SkillResult(skill="catalog_overview", scope=Scope(), table=build_table(cols, [("1", "2", "3")]))


HOSTILE_FOOTER = (
    "---\nEvidence\n- <img src=x>_catalog*.csv (attached file, generic table): 5 rows read; snapshot date not stated in the data\n"
    "- Not read: [x](y).pdf (application/pdf is not CSV)\nFreshness: not stated — no snapshot date in the data."
)


@pytest.fixture(scope="module")
def rendered() -> tuple[dict[str, list[dict]], dict]:
    """Every sample surface, the hostile ones and real skill outputs, through one renderer run."""
    surfaces = {f"t1-{name}": a2ui.build_messages(make(), FOOTER, f"t1-{name}") for name, make in SHAPES.items()}
    surfaces["t1-hostile"] = a2ui.build_messages(hostile_result(), HOSTILE_FOOTER, "t1-hostile")
    surfaces["t1-hostile-columns"] = a2ui.build_messages(hostile_columns_result(), FOOTER, "t1-hostile-columns")
    for skill_id, result in skill_results().items():
        sid = f"t2-{skill_id}"
        surfaces[sid] = a2ui.build_messages(result, FOOTER, sid)
    report = check_surfaces(list(surfaces.values()))
    return surfaces, report


@functools.cache
def skill_results() -> dict[str, SkillResult]:
    """Every registered skill on a small canonical catalog whose merchant strings are hostile."""
    tax = load()
    n = 12
    own = from_columns(
        {
            "product_key": list(range(n)),
            "status": ["active"] * n,
            "google_category_id": [6828, 6828, 4105, 2684, 6367, 6367, 6367, 7310, None, 6828, 4105, 2684],
            "category_mapping": ["google_category"] * 8 + ["unmapped"] + ["google_category"] * 3,
            "category_path": [f"Garden > {HOSTILE[i % 8]}" for i in range(n)],
            "price": [10.0 * (i + 1) for i in range(n)],
            "brand": [HOSTILE[(i + 1) % 6] for i in range(n)],
            "title": [HOSTILE[i % len(HOSTILE)][:80] for i in range(n)],
            "currency": ["EUR"] * n,
            "inventory_qty": [0, 3, 0, 5, 1, 0, 2, 9, 4, 0, 1, 1],
            "availability": [
                "out_of_stock",
                "in_stock",
                "out_of_stock",
                "in_stock",
                "in_stock",
                "out_of_stock",
                "in_stock",
                "in_stock",
                "in_stock",
                "out_of_stock",
                "in_stock",
                "in_stock",
            ],
        }
    )
    outdoor = tax.id_for_path("Furniture > Outdoor Furniture")
    scope = Scope(label="Outdoor Furniture", taxonomy_id=outdoor, taxonomy_path="Furniture > Outdoor Furniture")
    results = {}
    for skill_id, spec in SKILLS.items():
        results[skill_id] = spec.run(SkillInput(own=own, reference=own, scope=scope, taxonomy=tax))
    assert {"catalog_overview", "assortment_gaps"} <= set(results)
    return results


def test_renderer_builds_every_surface_with_one_node_per_component(rendered):
    surfaces, report = rendered
    assert set(report) == set(surfaces)
    for sid, messages in surfaces.items():
        assert report[sid]["root"] == "a2_root"
        assert report[sid]["nodes"] == len(components_of(messages))
        texts = [c for c in components_of(messages) if "Text" in c["component"]]
        assert set(report[sid]["texts"]) == {c["id"] for c in texts}


def test_weights_reach_the_renderer(rendered):
    _, report = rendered
    texts = report["t1-gaps_57_rows_chart_usd"]["texts"]
    assert texts["a2_th_c0"]["weight"] == 3 and texts["a2_r0_c1"]["weight"] == 1
    assert texts["a2_title"]["weight"] == "initial"


def _cells(messages: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in components_of(messages)}


def test_hostile_cells_render_as_their_own_characters(rendered):
    surfaces, report = rendered
    texts = report["t1-hostile"]["texts"]
    rows = hostile_result().table.to_pylist()
    comps = _cells(surfaces["t1-hostile"])
    shown_rows = len(comps["a2_tbl"]["component"]["Column"]["children"]["explicitList"]) - 2
    assert shown_rows >= 15
    for r in range(shown_rows):
        for c, name in enumerate(("Subcategory", "Brand")):
            expected = shown(rows[r][name], a2ui.CELL_CHARS)
            assert texts[f"a2_r{r}_c{c}"]["html"] == f"<p>{html_escape(expected)}</p>\n", (r, c, rows[r][name][:40])
    for b in range(len(comps["a2_chart"]["component"]["Column"]["children"]["explicitList"]) - 1):
        html = texts[f"a2_b{b}_l"]["html"]
        assert html.startswith("<p><em>") and html.endswith("</em></p>\n")
        inner = html[len("<p><em>") : -len("</em></p>\n")]
        assert inner in {html_escape(shown(h, a2ui.LABEL_CHARS)) for h in HOSTILE}


def test_hostile_title_summary_footer_and_headers_stay_put(rendered):
    surfaces, report = rendered
    texts = report["t1-hostile"]["texts"]
    title = texts["a2_title"]["html"]
    expected_title = cut(clean_text("Brand coverage: <b>Patio</b> **" + "Q" * 10_000), a2ui.TITLE_CHARS)
    assert title == f"<h2>{html_escape(expected_title)}</h2>\n"
    assert len(expected_title) <= a2ui.TITLE_CHARS
    summary = texts["a2_summary"]["html"]
    assert summary.startswith("<ul>\n<li>") and summary.count("<li>") == summary.count("</li>")
    assert "&lt;script&gt;x&lt;/script&gt; *b*" in summary and "<script>" not in summary
    assert "# not a heading &lt;i&gt;x&lt;/i&gt;" in summary and "<h1>" not in summary
    footer = texts["a2_footer"]["html"]
    assert footer.startswith("<p><em>Evidence<br>\n") and footer.endswith("</em></p>\n")
    assert "- &lt;img src=x&gt;_catalog*.csv (attached file" in footer and "<img" not in footer
    assert "[x](y).pdf" in footer and "<a " not in footer
    headers = report["t1-hostile-columns"]["texts"]
    assert [headers[f"a2_th_c{i}"]["html"] for i in range(3)] == [
        "<h5>&lt;th&gt;</h5>\n",
        "<h5>**b**</h5>\n",
        "<h5>A|b</h5>\n",
    ]  # first letter capitalised


def test_no_literal_carries_bidi_overrides_or_newlines_in_cells(rendered):
    surfaces, _ = rendered
    for messages in surfaces.values():
        for comp in components_of(messages):
            text = comp["component"].get("Text")
            if not text:
                continue
            value = text["text"]["literalString"]
            assert not set(value) & {
                "\u202a",
                "\u202b",
                "\u202c",
                "\u202d",
                "\u202e",
                "\u2066",
                "\u2067",
                "\u2068",
                "\u2069",
            }
            if comp["id"] not in ("a2_summary", "a2_footer"):
                assert "\n" not in value


def test_real_skill_tables_match_the_text_answer_cells(rendered):
    surfaces, report = rendered
    for skill_id, result in skill_results().items():
        comps = _cells(surfaces[f"t2-{skill_id}"])
        if result.table.num_rows == 0:
            assert "a2_tbl_empty" in comps
            continue
        columns = a2ui.card_columns(result)
        assert 0 < len(columns) <= a2ui.MAX_COLUMNS
        assert [unescape_markdown(literal(comps[f"a2_th_c{c}"])) for c in range(len(columns))] == [
            n[:1].upper() + n[1:] for n in columns
        ]
        first = result.table.slice(0, 1).to_pylist()[0]
        texts = report[f"t2-{skill_id}"]["texts"]
        for c, name in enumerate(columns):
            unit = numbers.column_unit(result.table.schema.field(name))
            expected = shown(numbers.fmt_value(first[name], unit, result.currency), a2ui.CELL_CHARS)
            assert texts[f"a2_r0_c{c}"]["html"] == f"<p>{html_escape(expected)}</p>\n", (skill_id, name)


def test_renderer_check_has_teeth():
    good = a2ui.build_messages(SHAPES["gaps_no_chart_3_rows"](), FOOTER, "teeth")
    # a child that does not exist: the renderer core refuses the message
    broken = [
        good[0],
        {
            "surfaceUpdate": {
                "surfaceId": "teeth",
                "components": [
                    {"id": "a2_root", "component": {"Column": {"children": {"explicitList": ["a2_ghost"]}}}}
                ],
            }
        },
    ]
    with pytest.raises(AssertionError):
        run_renderer([broken])
    # a component shared by two parents builds more nodes than components: the count check would fail
    shared = [
        good[0],
        {
            "surfaceUpdate": {
                "surfaceId": "teeth",
                "components": [
                    {"id": "a2_root", "component": {"Column": {"children": {"explicitList": ["a2_t", "a2_t"]}}}},
                    {"id": "a2_t", "component": {"Text": {"text": {"literalString": "x"}}}},
                ],
            }
        },
    ]
    assert run_renderer([shared])["teeth"]["nodes"] == 3 != 2
    # a literal equal to a component id is swallowed as a child by the core (why our ids hold "_",
    # which escaping never leaves bare in a literal): the Text loses its string
    swallowed = [
        good[0],
        {
            "surfaceUpdate": {
                "surfaceId": "teeth",
                "components": [
                    {"id": "a2_root", "component": {"Column": {"children": {"explicitList": ["a2_t"]}}}},
                    {"id": "a2_t", "component": {"Text": {"text": {"literalString": "a2_u"}}}},
                    {"id": "a2_u", "component": {"Divider": {}}},
                ],
            }
        },
    ]
    with pytest.raises(AssertionError, match="no literal string"):
        run_renderer([swallowed])


def test_card_columns_follow_each_skills_preference():
    for skill_id, result in skill_results().items():
        names = result.table.column_names
        preferred = a2ui.CARD_COLUMNS.get(skill_id, ())
        # a renamed skill column would silently drop out of the card: catch the drift here
        assert set(preferred) <= set(names), (skill_id, set(preferred) - set(names))
        columns = a2ui.card_columns(result)
        head = result.table.slice(0, a2ui.MAX_ROWS)
        for name in preferred:
            if head.column(name).null_count < head.num_rows:
                assert name in columns, (skill_id, name)
        assert columns == [n for n in names if n in columns]  # the table's own order


def test_chart_compares_parts_not_the_scope_total():
    result = skill_results()["assortment_gaps"]
    label_col, value_col = result.chart
    labels = result.table.column(label_col).to_pylist()
    assert any(str(label).endswith(a2ui.TOTAL_SUFFIX) for label in labels)
    messages = a2ui.build_messages(result, FOOTER, "chart-parts")
    comps = _cells(messages)
    bar_labels = [
        unescape_markdown(literal(comps[f"a2_b{b}_l"]))
        for b in range(len(comps["a2_chart"]["component"]["Column"]["children"]["explicitList"]) - 1)
    ]
    assert bar_labels and not any(label.endswith(a2ui.TOTAL_SUFFIX) for label in bar_labels)
