"""A2UI v0.8 surfaces for skill results: one titled card per skill, standard catalog only (SPEC §8).

Pure functions: a SkillResult (plus the evidence footer text and a surface id chosen by the caller) goes
in, a list of A2UI server-to-client messages comes out; `to_parts` wraps them as A2A DataParts. The
protocol layer decides whether a request gets them (negotiation) and where they travel (artifact,
status copy); nothing here knows about HTTP.

Layout, top to bottom, inside one Column: h2 title (skill and scope), body summary of the key findings,
Divider, the table (a Column of Rows of weighted Text cells, header cells h5, at most 20 rows), a bar
chart when the result names one (a Row per bar: caption label and a Text bar of block characters scaled
to the largest value, value printed after it), Divider, the evidence footer as caption, then a Row of up to three follow-up Buttons (a2ui_followups).

Everything is inline (`literalString`). Findings are the text answer's own sentences and numbers use
the text answer's formats (agent.render.text, agent.render.numbers), so card and text agree; merchant
strings are escaped for Markdown and cut (see agent.render.markdown). The surface stays within 150 components:
at most six columns (CARD_COLUMNS per skill, then label, chart and cited columns), bars give way to rows,
and the table says what it left out. Component ids are fixed and all contain `_`, which escaping never
leaves bare in a literal — the renderer core would otherwise read a literal equal to an id as a child.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from agent.analysis.result import SkillResult
from agent.render import a2ui_followups, numbers, text
from agent.render.a2ui_ids import EXTENSION_URI, MIME_TYPE, STANDARD_CATALOG_ID, card_extension
from agent.render.a2ui_structure import MAX_COMPONENTS, validate_structure
from agent.render.markdown import clean_text, escape_markdown

__all__ = [
    "EXTENSION_URI",
    "STANDARD_CATALOG_ID",
    "MIME_TYPE",
    "card_extension",
    "build_messages",
    "to_parts",
    "validate_structure",
    "summary_lines",
    "card_columns",
    "plan",
]


MAX_ROWS = 20  # SPEC §6: tables show at most 20 rows
MAX_COLUMNS = 6  # wider tables do not fit a chat card; the text answer has every column
MAX_BARS = 10
MIN_ROWS = 8  # bars give way to table rows below this
BAR_WIDTH = 16  # block characters for the largest value
MAX_SUMMARY_LINES = 7
TITLE_CHARS = 120
CELL_CHARS = 60
LABEL_CHARS = 40
SENTENCE_CHARS = 300
FOOTER_LINE_CHARS = 300
FOOTER_LINES = 16
# Columns a card shows first, per skill (a chat card fits about six; the text answer has them all).
# Names that a skill does not produce, or that are empty in the rows shown, are skipped; remaining
# places go to the label column, the chart's columns, columns the findings cite, then table order.
CARD_COLUMNS: dict[str, tuple[str, ...]] = {
    "assortment_gaps": ("Subcategory", "Products", "In-stock variants", "Median price", "Gap", "Share index"),
    "price_ladder": ("Category", "Priced variants", "P10", "Median", "P90", "Step"),
    "availability": ("Category", "Variants", "Out-of-stock variants", "Out-of-stock rate", "Products fully out"),
    "content_quality": ("Item", "Severity", "Affected rows", "Affected products", "Share of rows", "Complete"),
    "attribute_coverage": (
        "Attribute",
        "Fill rate",
        "Distinct values",
        "Top values (rows)",
        "Reference fill rate",
        "Values only in reference",
    ),
    "demand_gaps": ("Demand rank", "Name", "Brand", "Relative demand", "Your status", "Top 10% of demand"),
}
# Skills label the scope's aggregate row "<scope> (all)"; a bar chart compares the parts, not the whole.
TOTAL_SUFFIX = " (all)"
_EIGHTHS = " ▏▎▍▌▋▊▉"
_FULL = "█"
_DASH = "—"


def to_parts(messages: list[dict]) -> list[dict]:
    """One A2A DataPart per A2UI message, in order (a message is never split or merged)."""
    return [{"kind": "data", "data": msg, "metadata": {"mimeType": MIME_TYPE}} for msg in messages]


def build_messages(result: SkillResult, footer: str, surface_id: str) -> list[dict]:
    """`beginRendering` then one `surfaceUpdate` holding the whole card for `result`.

    `footer` is the evidence footer exactly as the text part carries it (SPEC §6); `surface_id` must be
    unique per task and skill — the caller owns that. Raises ValueError if the result cannot be drawn as
    a sound surface (a bug, never user input: every merchant string is escaped).
    """
    if not surface_id:
        raise ValueError("surface_id must be a non-empty string")
    footer_text = _footer_markdown(footer)
    # root, title, summary, divider; closing divider and footer; follow-up buttons
    fixed = 4 + (2 if footer_text else 0) + a2ui_followups.button_count(result)
    n_rows, n_bars = plan(result, budget=MAX_COMPONENTS - fixed)
    card = _Card()
    root_children = [card.text("a2_title", _title(result), "h2")]
    summary = summary_lines(result, shown_rows=n_rows)
    if summary:
        body = "\n".join("- " + escape_markdown(line, SENTENCE_CHARS) for line in summary)
        root_children.append(card.text("a2_summary", body, "body"))
    root_children.append(card.add("a2_div", {"Divider": {}}))
    root_children.extend(_table_and_chart(card, result, n_rows, n_bars))
    if footer_text:
        root_children.append(card.add("a2_div_end", {"Divider": {}}))
        root_children.append(card.text("a2_footer", footer_text, "caption"))
    root_children.extend(a2ui_followups.add_buttons(card, result))
    card.add("a2_root", {"Column": {"children": {"explicitList": root_children}}})
    components = card.components[-1:] + card.components[:-1]  # root first, for readers of the JSON
    messages: list[dict] = [
        {"beginRendering": {"surfaceId": surface_id, "root": "a2_root"}},
        {"surfaceUpdate": {"surfaceId": surface_id, "components": components}},
    ]
    problems = validate_structure(messages)
    if problems:
        raise ValueError("A2UI surface is malformed: " + "; ".join(problems[:5]))
    return messages


# --- summary ---------------------------------------------------------------------------------------


def summary_lines(result: SkillResult, shown_rows: int = MAX_ROWS) -> list[str]:
    """The key findings as plain (unescaped) one-line sentences, most severe first, at most seven.

    The sentences are the text answer's own (agent.render.text), so card and text say the same thing;
    findings that cite rows the card's table does not show are left out, as the text answer does.
    Then the result's fixed notes and the scope line.
    """
    lines: list[str] = []
    scope = result.scope
    if missing := text.missing_line(result):  # what is missing to answer as asked comes first, as in the text
        lines.append(missing.replace("`", ""))
    if scope.unmatched:
        nearest = ", ".join(scope.nearest[:5])
        line = f"Nothing in the catalog matched “{scope.unmatched}”"
        lines.append(line + (f"; nearest categories: {nearest}." if nearest else "."))
    lines.extend(text.sentence(finding, result.currency) for finding in text.visible_findings(result, limit=shown_rows))
    lines.extend(result.notes)
    lines.append(text.scope_line(scope))
    cleaned = [clean_text(line) for line in lines]
    return [line for line in cleaned if line][:MAX_SUMMARY_LINES]


# --- title and footer ------------------------------------------------------------------------------


def _title(result: SkillResult) -> str:
    name = text.SKILL_TITLES.get(result.skill) or _humanize(result.skill)
    return escape_markdown(f"{name}: {result.scope.label or 'whole catalog'}", TITLE_CHARS)


def _footer_markdown(footer: str) -> str:
    """The evidence footer as one caption paragraph: lines kept apart by hard breaks, each escaped.

    Renderers wrap a caption in `*…*`, so it must stay one paragraph: no list syntax (bullets are
    escaped and show as "- "), no thematic break (the leading `---` becomes our Divider).
    """
    lines = [clean_text(line) for line in (footer or "").splitlines()]
    lines = [line for line in lines if line and set(line) != {"-"}][:FOOTER_LINES]
    return "\\\n".join(escape_markdown(line, FOOTER_LINE_CHARS) for line in lines)


# --- table and chart -------------------------------------------------------------------------------


class _Card:
    """Collects components; ids are fixed strings that all contain `_` (see agent.render.markdown)."""

    def __init__(self) -> None:
        self.components: list[dict] = []

    def add(self, cid: str, component: dict, weight: float | None = None) -> str:
        entry: dict[str, Any] = {"id": cid, "component": component}
        if weight is not None:
            entry["weight"] = weight
        self.components.append(entry)
        return cid

    def text(self, cid: str, literal: str, hint: str, weight: float | None = None) -> str:
        return self.add(cid, {"Text": {"text": {"literalString": literal}, "usageHint": hint}}, weight)

    def box(self, cid: str, kind: str, children: list[str], weight: float | None = None) -> str:
        return self.add(cid, {kind: {"children": {"explicitList": children}}}, weight)


def plan(result: SkillResult, budget: int) -> tuple[int, int]:
    """(table rows, chart bars) that fit in `budget` components; bars give way first, down to MIN_ROWS."""
    table = result.table
    n_total = table.num_rows
    n_cols = len(card_columns(result))
    n_bars = min(len(_bars(result)), MAX_BARS)
    if n_total == 0 or n_cols == 0:
        return 0, 0
    per_row = 1 + n_cols
    table_fixed = 1 + per_row + 1  # Column, header row, note

    def rows_for(bars: int) -> int:
        chart_cost = 2 + 3 * bars if bars else 0  # Column, title; Row, label, bar per bar
        return max(0, min(MAX_ROWS, n_total, (budget - table_fixed - chart_cost) // per_row))

    while n_bars and rows_for(n_bars) < min(MIN_ROWS, n_total):
        n_bars -= 1
    n_rows = rows_for(n_bars)
    if n_rows == 0:
        raise ValueError("no room for a single table row")
    return n_rows, n_bars


def _table_and_chart(card: _Card, result: SkillResult, n_rows: int, n_bars: int) -> list[str]:
    """Root children for the table block and the chart block (sizes from `plan`)."""
    table = result.table
    n_total = table.num_rows
    columns = card_columns(result)
    if n_rows == 0:
        return [card.text("a2_tbl_empty", "No rows to show.", "caption")]
    bars = _bars(result)
    units = [numbers.column_unit(table.schema.field(name)) for name in columns]
    weights = [_weight(i, unit) for i, unit in enumerate(units)]
    header = [
        card.text(f"a2_th_c{i}", escape_markdown(_humanize(name), LABEL_CHARS), "h5", weights[i])
        for i, name in enumerate(columns)
    ]
    rows = [card.box("a2_th", "Row", header)]
    data = table.slice(0, n_rows).to_pylist()
    all_units = {field.name: numbers.column_unit(field) for field in table.schema}
    for row_index, record in enumerate(data):
        cur = numbers.row_currency(record, all_units, result.currency)
        cells = [
            card.text(f"a2_r{row_index}_c{i}", _cell(record[name], unit, cur), "body", weights[i])
            for i, (name, unit) in enumerate(zip(columns, units))
        ]
        rows.append(card.box(f"a2_r{row_index}", "Row", cells))
    noun = text.ROW_NOUNS.get(result.skill, "rows")
    note = _table_note(n_rows, n_total, len(table.column_names) - len(columns), noun)
    if note:
        rows.append(card.text("a2_tbl_note", note, "caption"))
    blocks = [card.box("a2_tbl", "Column", rows)]
    if n_bars:
        blocks.extend(_chart(card, result, bars[:n_bars], len(bars)))
    return blocks


def card_columns(result: SkillResult) -> list[str]:
    """The columns the card shows (at most MAX_COLUMNS), in the table's own order."""
    table = result.table
    names = list(table.column_names)
    head = table.slice(0, MAX_ROWS)
    filled = {column_name for column_name in names if head.column(column_name).null_count < head.num_rows}
    wanted: list[str] = list(CARD_COLUMNS.get(result.skill, ()))
    wanted += names[:1]
    wanted += list(result.chart or ())
    for finding in sorted(result.findings, key=lambda f: -f.severity):
        wanted += [column for _, column in finding.cells]
    wanted += names
    chosen: list[str] = []
    for name in wanted:
        if name in filled and name not in chosen:
            chosen.append(name)
        if len(chosen) == MAX_COLUMNS:
            break
    if not chosen:  # every column empty in the rows shown: still show the first ones
        chosen = names[:MAX_COLUMNS]
    return [column_name for column_name in names if column_name in chosen]


def _table_note(shown: int, total: int, hidden_columns: int, noun: str) -> str:
    parts = []
    if shown < total:
        parts.append(f"Top {shown:,} of {total:,} {noun}.")
    if hidden_columns:
        noun = "column" if hidden_columns == 1 else "columns"
        parts.append(f"{hidden_columns} more {noun} in the text answer.")
    return " ".join(parts)


def _bars(result: SkillResult) -> list[tuple[Any, float]]:
    """(label, value) pairs for the chart, largest first; empty when there is nothing to draw."""
    if not result.chart:
        return []
    label_col, value_col = result.chart
    names = result.table.column_names
    if label_col not in names or value_col not in names:
        return []
    labels = result.table.column(label_col).to_pylist()
    values = result.table.column(value_col).to_pylist()
    pairs = []
    for label, value in zip(labels, values):
        if isinstance(label, str) and label.endswith(TOTAL_SUFFIX):
            continue
        number = _number(value)
        if number is not None and math.isfinite(number):
            pairs.append((label, number))
    pairs.sort(key=lambda p: -p[1])  # stable: ties keep the table's order
    if not pairs or max(v for _, v in pairs) <= 0:
        return []
    return pairs


def _chart(card: _Card, result: SkillResult, bars: list[tuple[Any, float]], total: int) -> list[str]:
    label_col, value_col = result.chart  # type: ignore[misc]
    unit = numbers.column_unit(result.table.schema.field(value_col))
    title = f"{_humanize(value_col)} by {_humanize(label_col).lower()}"
    if len(bars) < total:
        title += f" (top {len(bars)} of {total})"
    children = [card.text("a2_chart_title", escape_markdown(title, TITLE_CHARS), "h4")]
    peak = max(v for _, v in bars)
    for bar_index, (label, value) in enumerate(bars):
        label_id = card.text(f"a2_b{bar_index}_l", escape_markdown(label, LABEL_CHARS), "caption", 2)
        bar_text = f"{_bar(value, peak)} {_cell(value, unit, result.currency)}".strip()
        bar_id = card.text(f"a2_b{bar_index}_v", bar_text, "body", 3)
        children.append(card.box(f"a2_b{bar_index}", "Row", [label_id, bar_id]))
    return [card.box("a2_chart", "Column", children)]


def _bar(value: float, peak: float) -> str:
    """Block characters for `value` on a scale where `peak` fills BAR_WIDTH; eighths for the remainder."""
    if value <= 0 or peak <= 0:
        return ""
    eighths = max(1, round(value / peak * BAR_WIDTH * 8))
    full, rest = divmod(eighths, 8)
    return _FULL * full + (_EIGHTHS[rest] if rest else "")


# --- values ----------------------------------------------------------------------------------------


def _weight(index: int, unit: str) -> int:
    """Flex weights: the label column widest, other text wider than numbers."""
    if index == 0:
        return 3
    return 2 if unit == "text" else 1


def _humanize(name: object) -> str:
    """A column or skill name for display: "in_stock_variants" → "In stock variants"."""
    label = clean_text(name).replace("_", " ").strip()
    return label[:1].upper() + label[1:] if label else "—"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    return None


def _cell(value: Any, unit: str, currency: str | None) -> str:
    """A table value formatted as the text answer formats it (agent.render.numbers), then escaped."""
    if isinstance(value, Decimal):
        shown = numbers.fmt_value(float(value), unit, currency)
    elif isinstance(value, (list, tuple)):
        shown = ", ".join(numbers.fmt_value(v, "text", None) for v in value)
    else:
        shown = numbers.fmt_value(value, unit, currency)
    return escape_markdown(shown, CELL_CHARS)
