"""attribute_coverage — "Which materials or colours am I missing in outdoor seating?"

Per attribute (colour, material, size, then every other option axis such as "Finish"): how many variant
rows carry a value, the value distribution after normalisation (case, spacing, "gray" → "grey",
"aluminum" → "aluminium"), how many rows a spelling variant was merged on, and — with a reference
catalog — the values the reference carries that the merchant lacks.

A value comes from the canonical column, else from an option whose name is that attribute ("Color",
"Colour", "Material", "Size"), so Shopify option-only exports are covered too. An option belongs to an
attribute by the catalog layer's own rule (`readers.common.attribute_for`: "Color Options", "Plate
Size", "Size (Inch)", "Farbe", "Taille"), the rule the readers filled the canonical columns by, so its
values are counted once, under that attribute, and never again as an "Option: …" axis of their own.

Values are matched case-insensitively but shown as written: each matched value appears in its most
common spelling in the data ("XL", "2XL", "Navy Blue" — never "Xl", "2xl"), option axes by their own
names ("Option: Finish").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, SkillResult
from agent.catalog.readers.common import attribute_for, is_brand_attribute

SKILL_ID = "attribute_coverage"
TOP_VALUES = 5
LIST_LIMIT = 5
ATTRIBUTES = (
    ("Colour", "color", ("color", "colour", "colours", "colors")),
    ("Material", "material", ("material", "materials", "fabric")),
    ("Size", "size", ("size", "sizes", "dimensions")),
)
IGNORED_OPTIONS = ("title",)  # Shopify's placeholder option ("Title: Default Title")
SPELLINGS = (
    (r"\bgray\b", "grey"),
    (r"\baluminum\b", "aluminium"),
    (r"\bcolor\b", "colour"),
    (r"\bmulti[- ]?colou?r(ed)?\b", "multicolour"),
    (r"\bx-?large\b", "xl"),
    (r"\bextra large\b", "xl"),
)

COLUMNS_READ = (
    "google_category_id",
    "category_path",
    "color",
    "material",
    "size",
    "option1_name",
    "option1_value",
    "option2_name",
    "option2_value",
    "option3_name",
    "option3_value",
)
COLUMNS = (
    ("Attribute", "text", pa.string()),
    ("Filled rows", "count", pa.int64()),
    ("Fill rate", "percent", pa.float64()),
    ("Distinct values", "count", pa.int64()),
    ("Top values (rows)", "text", pa.string()),
    ("Spelling variants merged (rows)", "count", pa.int64()),
)
REF_COLUMNS = (
    ("Reference fill rate", "percent", pa.float64()),
    ("Values only in reference", "count", pa.int64()),
    ("Examples only in reference", "text", pa.string()),
)


def _written(arr):
    """The value as written, trimmed and with runs of spaces collapsed (its case kept): what is shown."""
    return pc.replace_substring_regex(pc.utf8_trim_whitespace(common.as_str(arr)), r"\s+", " ")


def _clean(arr):
    """Case- and space-normalised value, null when blank: what values are matched and counted by."""
    s = pc.utf8_lower(_written(arr))
    return pc.if_else(pc.fill_null(pc.equal(pc.utf8_length(s), 0), True), pa.scalar(None, pa.string()), s)


def _spell(clean):
    out = clean
    for pattern, repl in SPELLINGS:
        out = pc.replace_substring_regex(out, pattern, repl)
    return out


@dataclass
class Values:
    """One attribute over the rows: an integer code per row (-1 = not filled) into `vocab`.

    `vocab` holds the matching keys (lower case, spelling variants merged); `display` the form each
    key is shown in: its most common spelling as written in the data ("XL", "2XL", "Navy Blue"), so
    matching is case-insensitive and display is not."""

    codes: np.ndarray
    vocab: list[str]
    respelled: np.ndarray  # per row: the value was merged from a spelling variant
    display: list[str] | None = None


class _Vocab:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.values: list[str] = []
        self.written: list[Counter] = []

    def code(self, value: str | None, written: str | None = None, rows: int = 0) -> int:
        if value is None:
            return -1
        if value not in self.index:
            self.index[value] = len(self.values)
            self.values.append(value)
            self.written.append(Counter())
        code = self.index[value]
        if written and rows:
            self.written[code][written] += rows
        return code

    def display(self) -> list[str]:
        """Per key, its most frequent written form (the smallest one on a tie: not the first seen, since
        a BigQuery table has no row order and both paths must show the same form)."""
        return [min(w, key=lambda form: (-w[form], form)) if w else v for v, w in zip(self.values, self.written)]


def _source(arr, vocab: _Vocab) -> tuple[np.ndarray, np.ndarray]:
    """(code per row, respelled per row) for one column, with the string work done per distinct value."""
    d = common.encoded(arr)
    written = _written(d.dictionary)
    clean = _clean(d.dictionary)
    spelled = _spell(clean)
    idx = pc.fill_null(d.indices, len(d.dictionary)).to_numpy(zero_copy_only=False)
    rows = np.bincount(idx, minlength=len(d.dictionary) + 1)
    codes = np.array(
        [vocab.code(v, w, int(r)) for v, w, r in zip(spelled.to_pylist(), written.to_pylist(), rows.tolist())] + [-1],
        dtype=np.int64,
    )
    changed = np.array([a is not None and a != b for a, b in zip(clean.to_pylist(), spelled.to_pylist())] + [False])
    return codes[idx], changed[idx]


def _axis(name: str, column: str | None = None, aliases: tuple[str, ...] = ()) -> bool:
    """Whether an option name (stripped, lower case) is the attribute `column` (its own aliases, or the
    catalog layer's rule for option names); with no column, whether it is an axis of its own: no
    attribute, not Shopify's placeholder, and not the brand (a WooCommerce "Brand" attribute the
    reader already read as the brand column)."""
    if column is None:
        return (
            name not in IGNORED_OPTIONS
            and not is_brand_attribute(name)
            and not any(name in a or attribute_for(name) == c for _, c, a in ATTRIBUTES)
        )
    return name in aliases or attribute_for(name) == column


def _name_mask(arr, names: set[str]) -> np.ndarray:
    d = common.encoded(arr)
    ok = np.array([(v or "").strip().lower() in names for v in common.as_str(d.dictionary).to_pylist()] + [False])
    return ok[pc.fill_null(d.indices, len(d.dictionary)).to_numpy(zero_copy_only=False)]


def attribute_values(table: pa.Table) -> dict[str, Values]:
    """Attribute display name -> its values per row, from the column first, then matching options."""
    out: dict[str, Values] = {}
    n = table.num_rows
    opt_names = [table[f"option{i}_name"] for i in (1, 2, 3)]
    written_names: Counter = Counter()
    present = []
    for a in opt_names:
        found = set()
        for v, c in common.value_counts(a).items():
            if v and v.strip():
                found.add(v.strip().lower())
                written_names[v.strip()] += c
        present.append(found)
    for label, column, aliases in ATTRIBUTES:
        vocab = _Vocab()
        codes, respelled = _source(table[column], vocab)
        for i, name in enumerate(opt_names):
            mine = {n for n in present[i] if _axis(n, column, aliases)}
            if not mine:
                continue
            c, r = _source(table[f"option{i + 1}_value"], vocab)
            take = (codes < 0) & _name_mask(name, mine) & (c >= 0)
            codes = np.where(take, c, codes)
            respelled = np.where(take, r, respelled)
        out[label] = Values(codes, vocab.values, respelled, vocab.display())
    others = sorted(n for n in set().union(*present) if _axis(n))
    for other in others:
        vocab = _Vocab()
        codes = np.full(n, -1, dtype=np.int64)
        respelled = np.zeros(n, dtype=bool)
        for i, name in enumerate(opt_names):
            if other not in present[i]:
                continue
            c, r = _source(table[f"option{i + 1}_value"], vocab)
            take = (codes < 0) & _name_mask(name, {other}) & (c >= 0)
            codes = np.where(take, c, codes)
            respelled = np.where(take, r, respelled)
        shown = max((w for w in written_names if w.lower() == other), key=lambda w: (written_names[w], w))
        out[f"Option: {shown}"] = Values(codes, vocab.values, respelled, vocab.display())
    return out


def _distribution(values: Values) -> tuple[list[tuple[str, str, int]], int, int]:
    """(matching key, value as shown, rows) most common first; rows merged from a spelling variant;
    filled rows."""
    filled = values.codes[values.codes >= 0]
    counts = np.bincount(filled, minlength=len(values.vocab)) if len(values.vocab) else np.zeros(0, dtype=np.int64)
    shown = values.display or values.vocab
    triples = sorted(
        ((v, s, int(c)) for v, s, c in zip(values.vocab, shown, counts.tolist()) if c), key=lambda p: (-p[2], p[0])
    )
    return triples, int(values.respelled[values.codes >= 0].sum()), int(len(filled))


Distribution = tuple[list[tuple[str, str, int]], int, int]  # _distribution's (triples, merged, filled)


def tally(counted: list[tuple[str | None, int]]) -> Distribution:
    """_distribution's figures from (value as stored, rows) pairs, one per distinct stored value: the
    SQL path's counts (agent.analysis.attributes_sql), normalised here by the same functions."""
    stored = pa.array([value for value, _ in counted], pa.string())
    written, clean = _written(stored), _clean(stored)
    spelled = _spell(clean)
    vocab = _Vocab()
    per_key: Counter = Counter()
    merged = filled = 0
    for shown, key, spelt, (_, rows) in zip(written.to_pylist(), clean.to_pylist(), spelled.to_pylist(), counted):
        code = vocab.code(spelt, shown, rows)
        if code < 0 or not rows:
            continue
        per_key[code] += rows
        filled += rows
        merged += rows if key != spelt else 0
    display = vocab.display()
    triples = sorted(((vocab.values[k], display[k], n) for k, n in per_key.items()), key=lambda p: (-p[2], p[0]))
    return triples, merged, filled


def run(inp: SkillInput) -> SkillResult:
    """Fill rates and values over the scope's rows: in memory, or counted per distinct value in BigQuery
    for a `Products_` table above the size line (agent.analysis.attributes_sql); the rows are built alike."""
    scope, tax = inp.scope, inp.taxonomy
    with_ref = inp.reference is not None
    reference = _reference_values(inp) if with_ref else {}
    pushdown = sql_run.pushdown_of(inp.sources)
    notes: list[str] = []
    excluded: dict[str, int] = {}
    lead: list[Finding] = []
    if scope.wants_missing_sizes and not with_ref:  # "what sizes am I missing?": the broken size runs
        sized = _size_runs(inp, pushdown)
        if sized is not None:
            return sized
        lead = [Finding("sizes.none", {}, severity=9)]
    if pushdown is not None:
        from agent.analysis import attributes_sql

        total, distributions, notes = attributes_sql.figures(pushdown, scope, tax)
        rows = _rows(total, distributions, reference, with_ref) if total else []
    else:
        pop = common.population(inp.own, scope, tax, COLUMNS_READ)
        scoped, excluded = pop.table, pop.excluded
        found = ((label, _distribution(values)) for label, values in attribute_values(scoped).items())
        rows = _rows(scoped.num_rows, found, reference, with_ref) if scoped.num_rows else []
    table = common.records_table(COLUMNS + (REF_COLUMNS if with_ref else ()), rows, excluded)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=table,
        findings=(lead if rows else []) + _findings(rows, with_ref, excluded),  # an empty scope says only that
        missing="reference" if scope.wants_reference and not with_ref else None,  # "compared with competitors"
        thresholds={
            "fill_rate": "share of variant rows with a value",
            "normalisation": "case, spacing and spelling variants " + ", ".join(r for _, r in SPELLINGS),
        },
        currency=None,
        chart=("Attribute", "Fill rate"),
        taxonomy_note=common.taxonomy_note(scope, tax),
        notes=notes,
    )


SIZE_COLUMNS = ("product_key", "availability", "title")


def _size_runs(inp: SkillInput, pushdown) -> SkillResult | None:
    """The answer to "what sizes am I missing?" without a reference catalog (agent.analysis.size_runs:
    the rule), or None when no size system in the scope has a run to compare: the fill-rate answer then
    follows, led by the sentence that says so. With a reference catalog the question is answered as
    every attribute question is: the values the reference has and the merchant lacks."""
    from agent.analysis import size_runs

    scope = inp.scope
    excluded: dict[str, int] = {}
    notes: list[str] = []
    if pushdown is not None:
        from agent.analysis import attributes_sql

        cells, notes = attributes_sql.size_cells(pushdown, scope, inp.taxonomy)
    else:
        pop = common.population(inp.own, scope, inp.taxonomy, COLUMNS_READ + SIZE_COLUMNS)
        cells, excluded = size_cells(pop.table), pop.excluded
    systems = size_runs.runs(cells)
    if not systems:
        return None
    rows = size_runs.rows(systems)
    found = size_runs.findings(systems)
    ex = common.excluded_finding(excluded, rows)
    return SkillResult(
        skill=SKILL_ID,
        scope=scope,
        table=common.records_table(size_runs.COLUMNS, rows, excluded),
        findings=found + ([ex] if ex else []),
        thresholds={
            "carried_by_most": "a size at least half the run's products offer",
            "missing": "a product lacks a size most carry, or one between its own smallest and largest",
            "run": "products offering two sizes or more of one size system",
        },
        currency=None,
        chart=("Size", "Products missing it"),
        taxonomy_note=common.taxonomy_note(scope, inp.taxonomy),
        notes=notes,
    )


def size_cells(table: pa.Table) -> list:
    """The in-memory path's size_runs cells: per (product, size key) its variants, those out of stock
    and those with a stated stock, from the size column or a size option (`attribute_values`); each
    with the product's least title over its sized variants, trimmed as SQL trims it, to name it by."""
    from agent.analysis.size_runs import STOCK_STATES, Cell

    values = attribute_values(table)["Size"]
    filled = values.codes >= 0
    if not filled.any():
        return []
    pk = table["product_key"].to_numpy(zero_copy_only=False)[filled]
    codes = values.codes[filled]
    avail = np.array(common.as_str(table["availability"]).to_pylist(), dtype=object)[filled]
    out = avail == "out_of_stock"
    stated = np.isin(avail, STOCK_STATES)
    shown = values.display or values.vocab
    width = len(values.vocab) + 1
    pairs, at = np.unique(pk.astype(np.int64) * width + codes, return_inverse=True)
    n, o, k = (np.bincount(at, weights=w, minlength=len(pairs)).astype(np.int64) for w in (None, out, stated))
    trimmed = pc.utf8_trim_whitespace(common.as_str(table["title"]).filter(pa.array(filled)))
    titles = pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, pa.string()), trimmed)  # as SQL's NULLIF(TRIM)
    titled = pa.table({"pk": pa.array(pk, pa.int64()), "t": titles})
    least = titled.group_by("pk").aggregate([("t", "min")])  # the product's least title, as size_runs names it
    title = dict(zip(least["pk"].to_pylist(), least["t_min"].to_pylist()))
    return [
        Cell(
            int(pair // width),
            values.vocab[int(pair % width)],
            shown[int(pair % width)],
            int(a),
            int(b),
            int(c),
            title.get(int(pair // width)),
        )
        for pair, a, b, c in zip(pairs.tolist(), n.tolist(), o.tolist(), k.tolist())
    ]


# per attribute label: the reference's values ({normalised: as written}) and its fill rate
ReferenceValues = dict[str, tuple[dict[str, str], float | None]]


def _reference_values(inp: SkillInput) -> ReferenceValues:
    """The reference catalog's values and fill rate per attribute, in the same scope."""
    reference = common.population(inp.reference, inp.scope, inp.taxonomy, COLUMNS_READ).table
    found: ReferenceValues = {}
    if reference.num_rows:
        for label, values in attribute_values(reference).items():
            triples, _, filled = _distribution(values)
            found[label] = ({value: shown for value, shown, _ in triples}, common.pct(filled, reference.num_rows))
    return found


TOP_KEY = "_top values"


def _joined(top: list[str], shown: list[str]) -> str | None:
    """The top values as one cell: ", " between them, "; " when a value itself holds a comma (a
    WooCommerce colour "Matte Black, Space Gray, Arctic Silver" is one value as stored, not three)."""
    if not top:
        return None
    return ("; " if any("," in value for value in shown) else ", ").join(top)


def _rows(total: int, found, reference: ReferenceValues, with_ref: bool) -> list[dict]:
    """The table step: the rows analysed, then one row per attribute of `found` ((label, Distribution)
    pairs: fill rate, distinct and top values, merged spellings; with a reference, its fill rate and
    the values only it has)."""
    rows: list[dict] = [{"Attribute": "Variant rows analysed", "Filled rows": total}]
    for label, (triples, merged, filled) in found:
        top = [f"{shown} ({n:,})" for _, shown, n in triples[:TOP_VALUES]]
        row = {
            "Attribute": label,
            "Filled rows": filled,
            "Fill rate": common.pct(filled, total),
            "Distinct values": len(triples),
            "Top values (rows)": _joined(top, [shown for _, shown, _ in triples[:TOP_VALUES]]),
            "Spelling variants merged (rows)": merged,
            TOP_KEY: top,  # the values one by one, for the findings (not a column: records_table drops it)
        }
        if with_ref:
            ref_set, ref_fill = reference.get(label, ({}, None))
            only = sorted(set(ref_set) - {value for value, _, _ in triples})
            row.update(
                {
                    "Reference fill rate": ref_fill,
                    "Values only in reference": len(only),
                    "Examples only in reference": ", ".join(ref_set[value] for value in only[:LIST_LIMIT]) or None,
                }
            )
        rows.append(row)
    return rows


def _findings(rows: list[dict], with_ref: bool, excluded: dict[str, int]) -> list[Finding]:
    """The attribute findings, most severe first (at most seven): fill rates and top values
    (`_coverage_findings`), values only the reference has, spelling variants merged, option names, rows
    excluded."""
    if not rows:
        return [Finding("attributes.empty", {}, severity=10)]
    visible = list(enumerate(rows))[1:20]
    found = _coverage_findings(rows, visible)
    if with_ref:
        found += [
            Finding(
                "attributes.reference_only",
                {
                    "name": r["Attribute"].lower(),
                    "only_n": r["Values only in reference"],
                    "examples": r["Examples only in reference"],
                },
                cells=((i, "Values only in reference"), (i, "Examples only in reference")),
                severity=7,
            )
            for i, r in [(i, r) for i, r in visible if r.get("Values only in reference")][:3]
        ]
    merged = [(i, r) for i, r in visible if r["Spelling variants merged (rows)"]]
    if merged:
        items = [{"name": r["Attribute"].lower(), "rows_n": r["Spelling variants merged (rows)"]} for _, r in merged]
        found.append(
            Finding(
                "attributes.spelling",
                {"items": items},
                cells=tuple((i, "Spelling variants merged (rows)") for i, _ in merged),
                severity=5,
            )
        )
    options = [(i, r) for i, r in visible if r["Attribute"].startswith("Option:")]
    if options:
        found.append(
            Finding(
                "attributes.options",
                {"names": [r["Attribute"].removeprefix("Option: ") for _, r in options[:LIST_LIMIT]]},
                severity=2,
            )
        )
    ex = common.excluded_finding(excluded, rows)
    if ex:
        found.append(ex)
    found.sort(key=lambda x: -x.severity)
    return found[:7]


def _coverage_findings(rows: list[dict], visible: list[tuple[int, dict]]) -> list[Finding]:
    """The core attributes (not options) by fill rate, lowest first, and the top colours and materials."""
    core = [(i, r) for i, r in visible if not r["Attribute"].startswith("Option:")]
    low = sorted([(i, r) for i, r in core], key=lambda x: x[1]["Fill rate"] or 0)
    items = [{"name": r["Attribute"].lower(), "fill_pct": r["Fill rate"], "rows_n": r["Filled rows"]} for _, r in low]
    found = [
        Finding(
            "attributes.fill",
            {"items": items, "total_n": rows[0]["Filled rows"]},
            cells=((0, "Filled rows"),) + tuple((i, c) for i, _ in low for c in ("Fill rate", "Filled rows")),
            severity=8,
        )
    ]
    for i, r in core:
        if r["Top values (rows)"] and r["Attribute"] in ("Colour", "Material"):
            found.append(
                Finding(
                    "attributes.top",
                    {
                        "name": r["Attribute"].lower(),
                        "values": r[TOP_KEY][:3],  # not the cell split at commas: a value may hold one
                        "distinct_n": r["Distinct values"],
                    },
                    cells=((i, "Top values (rows)"), (i, "Distinct values")),
                    severity=4,
                )
            )
    return found
