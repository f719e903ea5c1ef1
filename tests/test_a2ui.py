"""A2UI builder: schema validity, structure, layout, sizes, formatting, and the checker's own teeth.

Results are built by hand in several shapes (chart or not, money with and without currency, 57 rows,
a wide table, an empty table, odd value types). The official renderer core and Markdown rendering are
exercised in test_a2ui_renderer.py.
"""

from __future__ import annotations

import copy
import json

import pytest

from agent.analysis.common import build_table
from agent.analysis.result import SkillResult
from agent.render import a2ui, numbers, text
from agent.render.a2ui_structure import validate_structure
from agent.render.markdown import clean_text, continues_grapheme, cut, escape_markdown, unescape_markdown
from tests.a2ui_check import assert_parts, components_of, schema_errors
from tests.helpers import A2UI_FOOTER as FOOTER
from tests.helpers import GAP_COLS, SHAPES, empty_result, gaps_result, literal, odd_types_result, wide_result


def build(result: SkillResult, sid: str = "task1-assortment_gaps", footer: str = FOOTER) -> list[dict]:
    return a2ui.build_messages(result, footer, sid)


def by_id(messages: list[dict]) -> dict[str, dict]:
    return {c["id"]: c for c in components_of(messages)}


def kids(comp: dict) -> list[str]:
    body = next(iter(comp["component"].values()))
    return body["children"]["explicitList"]


# --- contract ----------------------------------------------------------------------------------------


def test_card_extension_is_exactly_the_negotiated_entry():
    ext = a2ui.card_extension()
    assert set(ext) == {"uri", "description", "required", "params"}
    assert ext["uri"] == "https://a2ui.org/a2a-extension/a2ui/v0.8" == a2ui.EXTENSION_URI
    assert ext["required"] is False
    assert ext["params"] == {
        "supportedCatalogIds": ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]
    }
    assert isinstance(ext["description"], str) and ext["description"]


def test_parts_one_datapart_per_message_in_order():
    messages = build(gaps_result())
    parts = a2ui.to_parts(messages)
    assert len(parts) == 2
    assert assert_parts(parts) == messages
    assert list(parts[0]["data"]) == ["beginRendering"] and list(parts[1]["data"]) == ["surfaceUpdate"]
    assert all(p["metadata"]["mimeType"] == "application/json+a2ui" for p in parts)
    json.dumps(parts, allow_nan=False)  # strict JSON: no NaN/Infinity anywhere


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_validates_and_is_a_sound_tree(shape):
    messages = build(SHAPES[shape]())
    for message in messages:
        assert schema_errors(message) == []
    assert validate_structure(messages) == []
    begin, update = messages
    assert begin == {"beginRendering": {"surfaceId": "task1-assortment_gaps", "root": "a2_root"}}
    assert update["surfaceUpdate"]["surfaceId"] == "task1-assortment_gaps"
    comps = components_of(messages)
    assert 1 < len(comps) <= 150
    json.dumps(messages, allow_nan=False)
    # literalString everywhere, never empty
    for comp in comps:
        if "Text" in comp["component"]:
            assert set(comp["component"]["Text"]["text"]) == {"literalString"}
            assert literal(comp).strip()


def test_layout_title_summary_divider_table_chart_footer():
    messages = build(gaps_result())
    comps = by_id(messages)
    assert components_of(messages)[0]["id"] == "a2_root"
    assert kids(comps["a2_root"]) == [
        "a2_title",
        "a2_summary",
        "a2_div",
        "a2_tbl",
        "a2_chart",
        "a2_div_end",
        "a2_footer",
        "a2_next",
    ]
    assert comps["a2_title"]["component"]["Text"]["usageHint"] == "h2"
    assert literal(comps["a2_title"]) == "Assortment gaps: Outdoor Furniture"
    assert comps["a2_summary"]["component"]["Text"]["usageHint"] == "body"
    assert "Divider" in comps["a2_div"]["component"] and "Divider" in comps["a2_div_end"]["component"]
    assert comps["a2_footer"]["component"]["Text"]["usageHint"] == "caption"
    summary = literal(comps["a2_summary"]).split("\n")
    assert all(line.startswith("- ") for line in summary)
    assert any("Stock is unknown for 3 products" in unescape_markdown(line) for line in summary)
    assert any(
        unescape_markdown(line) == "- Scope: Furniture > Outdoor Furniture (Google taxonomy id 4299)."
        for line in summary
    )


def test_table_rows_cells_weights_and_top_n_note():
    result = gaps_result()
    comps = by_id(build(result))
    table = kids(comps["a2_tbl"])
    assert table[0] == "a2_th" and table[-1] == "a2_tbl_note"
    rows = table[1:-1]
    assert 1 <= len(rows) <= 20
    assert literal(comps["a2_tbl_note"]) == f"Top {len(rows)} of 57 {text.ROW_NOUNS['assortment_gaps']}."
    header = kids(comps["a2_th"])
    assert [unescape_markdown(literal(comps[h])) for h in header] == [c[0] for c in GAP_COLS]
    assert all(comps[h]["component"]["Text"]["usageHint"] == "h5" for h in header)
    header_weights = [comps[h]["weight"] for h in header]
    assert header_weights[0] > max(header_weights[1:])
    source = result.table.to_pylist()
    for r, row_id in enumerate(rows):
        assert "Row" in comps[row_id]["component"] and "weight" not in comps[row_id]
        cells = kids(comps[row_id])
        assert [comps[c]["weight"] for c in cells] == header_weights
        for c, (name, unit, _) in zip(cells, GAP_COLS):
            # the same formatting as the Markdown table (agent.render.numbers), money with currency
            expected = numbers.fmt_value(source[r][name], unit, "USD")
            assert unescape_markdown(literal(comps[c])) == expected
    assert unescape_markdown(literal(comps[kids(comps[rows[0]])[3]])) == "USD 99.50"
    assert unescape_markdown(literal(comps[kids(comps[rows[0]])[4]])) == numbers.EMPTY


def test_money_without_currency_is_plain():
    comps = by_id(build(gaps_result(currency=None)))
    assert unescape_markdown(literal(comps["a2_r1_c3"])) == "100.50"
    assert unescape_markdown(literal(comps["a2_th_c3"])) == "Median price"


def test_bar_chart_scaled_to_max_sorted_and_valued():
    result = gaps_result()
    comps = by_id(build(result))
    chart = kids(comps["a2_chart"])
    assert chart[0] == "a2_chart_title"
    title = unescape_markdown(literal(comps["a2_chart_title"]))
    bars = chart[1:]
    assert title == f"Products by subcategory (top {len(bars)} of 57)"
    values = sorted(((r["Products"], r["Subcategory"]) for r in result.table.to_pylist()), key=lambda p: -p[0])
    lengths = []
    for bar_id, (value, label) in zip(bars, values):
        label_id, bar_text_id = kids(comps[bar_id])
        assert comps[label_id]["component"]["Text"]["usageHint"] == "caption"
        assert unescape_markdown(literal(comps[label_id])) == label
        blocks, _, printed = literal(comps[bar_text_id]).rpartition(" ")
        assert printed == numbers.fmt_count(value)
        assert set(blocks) <= set("█▏▎▍▌▋▊▉")
        lengths.append(blocks.count("█") * 8 + (" ▏▎▍▌▋▊▉".index(blocks[-1]) if blocks[-1] != "█" else 0))
    assert lengths[0] == a2ui.BAR_WIDTH * 8  # the maximum fills the bar
    assert lengths == sorted(lengths, reverse=True)
    peak = values[0][0]
    for length, (value, _) in zip(lengths, values):
        assert abs(length - value / peak * a2ui.BAR_WIDTH * 8) <= 1


def test_no_chart_when_not_asked_or_nothing_to_draw():
    assert "a2_chart" not in by_id(build(gaps_result(chart=False)))
    zero = gaps_result()
    zero.table = build_table(GAP_COLS, [("a", 0, 0.0, 1.0, None), ("b", None, 0.0, 1.0, None)])
    assert "a2_chart" not in by_id(build(zero))
    missing = gaps_result()
    missing.chart = ("Subcategory", "No such column")
    assert "a2_chart" not in by_id(build(missing))


def test_wide_table_is_trimmed_to_budget_and_says_so():
    messages = build(wide_result())
    comps = by_id(messages)
    assert len(comps) <= 150
    header = kids(comps["a2_th"])
    assert len(header) == a2ui.MAX_COLUMNS
    rows = kids(comps["a2_tbl"])[1:-1]
    assert a2ui.MIN_ROWS <= len(rows) <= 20
    note = unescape_markdown(literal(comps["a2_tbl_note"]))
    noun = text.ROW_NOUNS.get("content_quality", "rows")
    assert note == f"Top {len(rows)} of 57 {noun}. 6 more columns in the text answer."
    # bars gave way to rows but did not all vanish
    assert "a2_chart" in comps


def test_empty_table_says_so_and_draws_no_chart():
    comps = by_id(build(empty_result()))
    assert literal(comps["a2_tbl_empty"]) == "No rows to show."
    assert "a2_tbl" not in comps and "a2_chart" not in comps
    assert "nothing to count" in literal(comps["a2_summary"])


def test_odd_value_types_are_formatted_never_empty():
    comps = by_id(build(odd_types_result()))
    cells = {
        (int(cid[4:].split("_")[0]), int(cid.rsplit("c", 1)[1])): unescape_markdown(literal(c))
        for cid, c in comps.items()
        if cid.startswith("a2_r") and "_c" in cid
    }
    assert cells[(0, 0)] == "a" and cells[(1, 0)] == numbers.EMPTY and cells[(2, 0)] == "—"
    assert cells[(0, 1)] == "1,234.5" and cells[(2, 1)] == "-2"
    assert cells[(0, 2)] == "yes" and cells[(1, 2)] == "no"
    assert cells[(0, 3)] == "2026-11-28"
    assert cells[(0, 4)] == "x, y"
    assert cells[(0, 5)] == "∞" and cells[(1, 5)] == numbers.EMPTY and cells[(2, 5)] == "-0.5"
    assert literal(comps["a2_r2_c1"]).startswith("\\-")  # a leading "-" is not a list bullet


def test_footer_is_one_caption_paragraph_with_escaped_lines():
    comps = by_id(build(gaps_result()))
    footer = literal(comps["a2_footer"])
    lines = footer.split("\\\n")  # hard line breaks
    assert lines[0] == "Evidence"
    assert lines[1].startswith("\\- catalog.csv (attached file")
    assert unescape_markdown(lines[-1]) == "Freshness: not stated — no snapshot date in the data."
    assert "---" not in footer
    no_footer = by_id(build(gaps_result(), footer=""))
    assert "a2_footer" not in no_footer and "a2_div_end" not in no_footer


def test_surface_id_is_the_callers_and_output_is_deterministic():
    a = build(gaps_result(), sid="t-1_x")
    assert a == build(gaps_result(), sid="t-1_x")
    assert {next(iter(m.values()))["surfaceId"] for m in a} == {"t-1_x"}
    with pytest.raises(ValueError):
        a2ui.build_messages(gaps_result(), FOOTER, "")


# --- Markdown escaping -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "**bold** _em_ `code` ~~strike~~",
        "<script>alert(1)</script>",
        "[x](https://e.example) ![i](y.png)",
        "# head",
        "1. one",
        "2) two",
        "- item",
        "+ item",
        "> quote",
        "---",
        "| a | b |",
        "&amp; &#x41;",
        "back\\slash\\",
        "a\nb\r\nc\td",
        "ok. fine - yes",
        "#hashtag!",
    ],
)
def test_escape_round_trips_to_the_literal_characters(raw):
    escaped = escape_markdown(raw, 500)
    assert "\n" not in escaped and "\r" not in escaped and "\t" not in escaped
    assert unescape_markdown(escaped) == clean_text(raw)
    for i, ch in enumerate(escaped):  # every special character is preceded by an odd run of backslashes
        if ch in "*_`[]<>|~&!#":
            before = escaped[:i]
            assert (len(before) - len(before.rstrip("\\"))) % 2 == 1, (escaped, i)


def test_escape_leading_markers_only_where_they_open_blocks():
    assert escape_markdown("1. one", 50) == "1\\. one"
    assert escape_markdown("12.50", 50) == "12.50"
    assert escape_markdown("-5", 50) == "\\-5"
    assert escape_markdown("a-b.c", 50) == "a-b.c"
    assert escape_markdown("", 50) == "—" and escape_markdown(None, 50) == "—"


def test_clean_drops_controls_and_bidi_overrides_keeps_rtl_and_emoji():
    raw = "\u202eabc\u202c \u2066x\u2069 \x00\x07 مرحبا שלום 👨‍👩‍👧 🇫🇷"
    cleaned = clean_text(raw)
    assert cleaned == "abc x مرحبا שלום 👨‍👩‍👧 🇫🇷"
    assert not set(cleaned) & {"\u202e", "\u202c", "\u2066", "\u2069", "\x00", "\x07"}


@pytest.mark.parametrize(
    "text",
    [
        "ab👨\u200d👩\u200d👧cd" * 3,
        "🇫🇷🇩🇪🇮🇹🇪🇸xyz",
        "e\u0301" * 10,
        "👍🏽👍🏽👍🏽👍🏽",
        "1\ufe0f\u20e32\ufe0f\u20e3",
        "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f🏴",
        "plain text here",
    ],
)
def test_cut_lands_on_a_grapheme_boundary(text):
    for n in range(2, len(text) + 2):
        out = cut(text, n)
        assert len(out) <= n
        if out == text:
            continue
        head = out[:-1].rstrip()
        assert out.endswith("…") and text.startswith(head)
        rest = text[len(head) :].lstrip()
        if head and rest:
            assert not continues_grapheme(rest[0]) and not head.endswith("\u200d"), (n, out)
            flags = len(head) - len(head.rstrip("".join(chr(c) for c in range(0x1F1E6, 0x1F200))))
            assert flags % 2 == 0


# --- the structural checker must catch each defect ---------------------------------------------------


def _good() -> list[dict]:
    return build(gaps_result(n=3))


def _comp(messages, cid):
    return next(c for c in messages[1]["surfaceUpdate"]["components"] if c["id"] == cid)


MUTATIONS = {
    "two actions in one message": (lambda m: m[0].update(m[1]), "exactly one of"),
    "version key": (lambda m: m[0]["beginRendering"].update(version="0.8"), "'version' key"),
    "duplicate id": (
        lambda m: m[1]["surfaceUpdate"]["components"].append(copy.deepcopy(_comp(m, "a2_title"))),
        "not unique",
    ),
    "missing child": (lambda m: kids(_comp(m, "a2_root")).append("a2_ghost"), "does not exist"),
    "cycle": (lambda m: kids(_comp(m, "a2_tbl")).append("a2_root"), "cycle"),
    "shared child": (lambda m: kids(_comp(m, "a2_root")).append("a2_th"), "two parents"),
    "unreachable": (lambda m: kids(_comp(m, "a2_root")).remove("a2_chart"), "unreachable"),
    "weight on the root": (lambda m: _comp(m, "a2_root").update(weight=2), "weight outside"),
    "bad id": (lambda m: _comp(m, "a2_title").update(id="a2 title!"), "is not [A-Za-z0-9_-]+"),
    "two types": (
        lambda m: _comp(m, "a2_div")["component"].update(Text={"text": {"literalString": "x"}}),
        "exactly one type",
    ),
    "data binding": (lambda m: _comp(m, "a2_title")["component"]["Text"].update(text={"path": "/x"}), "data binding"),
    "literal equals id": (
        lambda m: _comp(m, "a2_title")["component"]["Text"].update(text={"literalString": "a2_div"}),
        "equals a component id",
    ),
    "empty literal": (
        lambda m: _comp(m, "a2_title")["component"]["Text"].update(text={"literalString": ""}),
        "empty literalString",
    ),
    "surface ids differ": (lambda m: m[1]["surfaceUpdate"].update(surfaceId="other"), "surfaceId differs"),
    "root missing": (lambda m: m[0]["beginRendering"].update(root="nope"), "root 'nope' does not exist"),
    "update before begin": (lambda m: m.reverse(), "must come before"),
    "data model message": (
        lambda m: m.append({"dataModelUpdate": {"surfaceId": m[0]["beginRendering"]["surfaceId"], "contents": []}}),
        "unexpected dataModelUpdate",
    ),
    "too many components": (
        lambda m: m[1]["surfaceUpdate"]["components"].extend(
            {"id": f"a2_x{i}", "component": {"Divider": {}}} for i in range(150)
        ),
        "exceed the limit",
    ),
}


def test_good_surface_passes():
    assert validate_structure(_good()) == []


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_structural_checker_catches(name):
    messages = _good()
    mutate, expected = MUTATIONS[name]
    mutate(messages)
    problems = validate_structure(messages)
    assert any(expected in p for p in problems), problems


def test_schema_catches_what_it_should():
    messages = _good()
    _comp(messages, "a2_title")["component"]["Text"]["usageHint"] = "h6"
    assert schema_errors(messages[1])
    assert schema_errors({"beginRendering": {"surfaceId": "s"}})  # no root
    assert schema_errors(
        {"surfaceUpdate": {"surfaceId": "s", "components": [{"id": "a", "component": {"Chart": {}}}]}}
    )  # not in the standard catalog
