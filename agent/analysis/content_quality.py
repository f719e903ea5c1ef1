"""content_quality — "Is my catalog ready for Google Shopping?"

The SPEC §5 checks per variant row, each with a severity, the rows and products affected, and example
ids; then how complete each category is (share of rows passing every required check). GTIN check digits
are verified vectorised (numpy over the left-padded digits), so a million rows cost one pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis import common, sql_run
from agent.analysis.inputs import SkillInput
from agent.analysis.result import Finding, Scope, SkillResult
from agent.catalog.taxonomy import Taxonomy

SKILL_ID = "content_quality"
# The canonical columns this skill reads (population() carries only these through its filter).
READ = (
    "product_key",
    "product_id",
    "variant_id",
    "sku",
    "title",
    "description",
    "brand",
    "google_category_id",
    "category_path",
    "product_type",
    "price",
    "compare_at_price",
    "sale_price",
    "currency",
    "gtin",
    "identifier_exists",
    "image_url",
    "disapproved_destinations",
    "issue_codes",
)
MAX_TITLE = 150
MAX_DESCRIPTION = 5000
EXAMPLES = 3
# id, label, severity; order is the display order within one severity.
CHECKS = (
    ("missing_title", "Missing title", "high"),
    ("missing_image", "Missing image", "high"),
    ("zero_price", "Zero or missing price", "high"),
    ("invalid_gtin", "Invalid GTIN (check digit or format)", "high"),
    ("duplicate_sku", "Duplicate SKU", "high"),
    ("duplicate_variant_id", "Duplicate variant id", "high"),
    ("missing_description", "Missing description", "medium"),
    ("missing_brand", "Missing brand", "medium"),
    ("missing_gtin", "Missing GTIN", "medium"),
    ("missing_category", "Not mapped to a Google category", "medium"),
    ("long_title", f"Title over {MAX_TITLE} characters", "medium"),
    ("sale_not_below_regular", "Sale price not below regular price", "medium"),
    ("long_description", f"Description over {MAX_DESCRIPTION:,} characters", "low"),
)
# A row is complete for Shopping when none of these fail.
REQUIRED = (
    "missing_title",
    "missing_image",
    "zero_price",
    "invalid_gtin",
    "missing_description",
    "missing_brand",
    "missing_gtin",
    "missing_category",
)
SEVERITY_RANK = {"high": 3, "medium": 2, "low": 1}
# The GTIN checks, left out of completeness when no row of the scope has a GTIN at all (`counts_gtin`).
GTIN_CHECKS = ("invalid_gtin", "missing_gtin")
GTIN_LABELS = frozenset(label for code, label, _ in CHECKS if code in GTIN_CHECKS)
# The content a shopper sees, said when its check finds nothing ("Which products have missing images or
# descriptions?" is answered by "every row has an image and a description", not by silence).
ESSENTIAL = ("missing_title", "missing_image", "zero_price", "missing_description")
# The checks that read each field a source may lack altogether (agent.catalog.evidence.CHECKED_FIELDS).
# With no such column in the export, its checks are not run: every row "missing" a field the export
# cannot carry tells the merchant nothing about the catalog (a Google Ads feed has no GTIN column).
# The field is listed once under ABSENT_SECTION instead, and completeness covers the other checks.
FIELD_CHECKS = {
    "title": ("missing_title", "long_title"),
    "image_url": ("missing_image",),
    "price": ("zero_price", "sale_not_below_regular"),
    "gtin": ("invalid_gtin", "missing_gtin"),
    "description": ("missing_description", "long_description"),
    "brand": ("missing_brand",),
}
FIELD_LABELS = {
    "title": "Title",
    "image_url": "Image link",
    "price": "Price",
    "gtin": "GTIN",
    "description": "Description",
    "brand": "Brand",
}
ABSENT_SECTION = "Not in this export"
# Merchant Center's own verdicts (a BigQuery `Products_` source only: agent.catalog.mc_status). Shown
# only when the source carries them; a file never shows the section.
MC_SECTION = "Merchant Center"
MC_DISAPPROVED = "Disapproved in at least one destination"
MC_DESTINATION = "Disapproved for {}"
MC_ISSUE = "Item issue: {}"
TOP_ISSUES = 5

COLUMNS = (
    ("Section", "text", pa.string()),
    ("Item", "text", pa.string()),
    ("Severity", "text", pa.string()),
    ("Affected rows", "count", pa.int64()),
    ("Affected products", "count", pa.int64()),
    ("Share of rows", "percent", pa.float64()),
    ("Complete", "percent", pa.float64()),
    ("Examples", "text", pa.string()),
)


_GTIN_LENGTHS = (8, 12, 13, 14)
_WEIGHTS = np.array([3, 1] * 6 + [3], dtype=np.int32)


def _check_digits(values: pa.Array) -> np.ndarray:
    """Valid GTIN per value of `values`, all of which have 8, 12, 13 or 14 bytes: byte arithmetic per
    length group on the string buffer itself (no regex, no padded copies)."""
    values = values.cast(pa.large_string()) if pa.types.is_string(values.type) else values
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int64)[values.offset : values.offset + len(values) + 1]
    data = np.frombuffer(values.buffers()[2], dtype=np.uint8)
    lengths = np.diff(offsets)
    out = np.zeros(len(values), dtype=bool)
    for width in _GTIN_LENGTHS:
        rows = np.flatnonzero(lengths == width)
        if not len(rows):
            continue
        starts = offsets[:-1][rows]
        contiguous = len(rows) == len(values) and np.all(np.diff(starts) == width)
        if contiguous:
            block = data[starts[0] : starts[0] + width * len(rows)].reshape(-1, width)
        else:
            block = data[starts[:, None] + np.arange(width)[None, :]]
        d = block - np.uint8(48)  # uint8 wraps: anything but a digit becomes > 9
        # column by column (vectorised over rows): weights from the right — the check digit last,
        # then 3, 1, 3, … leftwards; any non-digit byte marks the row bad
        total = np.zeros(len(d), dtype=np.int32)
        bad = np.zeros(len(d), dtype=bool)
        for j in range(width - 1):
            col = d[:, j]
            total += col * (3 if (width - 2 - j) % 2 == 0 else 1)
            bad |= col > 9
        last = d[:, width - 1]
        bad |= last > 9
        check = (10 - total % 10) % 10
        out[rows] = ~bad & (check == last)
    return out


def gtin_valid(gtin: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Per value: True if a well-formed GTIN-8/12/13/14 with a correct check digit; null when blank.

    Values of a GTIN length are checked as they are; the few others are trimmed and checked again
    (so " 4006381333931 " passes and "3.65E+11" fails), all vectorised over the digit bytes.
    """
    s = common.as_str(gtin)
    if isinstance(s, pa.ChunkedArray):
        s = s.combine_chunks() if s.num_chunks != 1 else s.chunk(0)
    n = len(s)
    result = np.zeros(n, dtype=bool)
    length = pc.fill_null(pc.binary_length(s), 0).to_numpy(zero_copy_only=False)
    fits = np.isin(length, _GTIN_LENGTHS)
    idx = np.flatnonzero(fits)
    if len(idx) == n:
        result = _check_digits(s)
    elif len(idx):
        result[idx] = _check_digits(pc.take(s, pa.array(idx)))
    other = np.flatnonzero(~fits & (length > 0))
    if len(other):
        trimmed = pc.utf8_trim_whitespace(pc.take(s, pa.array(other)))
        tl = pc.binary_length(trimmed).to_numpy(zero_copy_only=False)
        ok = np.flatnonzero(np.isin(tl, _GTIN_LENGTHS))
        if len(ok):
            result[other[ok]] = _check_digits(pc.take(trimmed, pa.array(ok)))
    blank = common.blank(s).to_numpy(zero_copy_only=False)
    return pa.array(result, mask=blank)


def _duplicates(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """True where a non-blank value occurs on more than one row (values as the catalog layer left them:
    it trims; trimming a million ids again here would double the cost of the check)."""
    s = common.as_str(values)
    counts = pc.value_counts(s.drop_null())
    many = pc.greater(counts.field("counts"), 1)
    if not pc.any(many).as_py():
        return pa.array(np.zeros(len(s), dtype=bool))
    dup = pc.filter(counts.field("values"), many)
    dup = pc.filter(dup, pc.invert(common.blank(dup)))
    return pc.fill_null(pc.is_in(s, value_set=dup), False)


def _char_lengths_over(values, limit: int) -> pa.Array:
    """Character length where the byte length exceeds `limit` (only those can exceed it in characters),
    else 0: counting characters of every description is the slow part of the length check.
    Dictionary columns (titles, descriptions: one value per product) are measured once per distinct
    value and spread back to the rows by index."""
    if pa.types.is_dictionary(values.type):
        d = common.encoded(values)
        per_value = np.append(_char_lengths_over(d.dictionary, limit).to_numpy(zero_copy_only=False), 0)
        return pa.array(per_value[pc.fill_null(d.indices, len(d.dictionary)).to_numpy(zero_copy_only=False)])
    s = common.as_str(values)  # chunks kept as they are: combining would copy every description
    blen = pc.fill_null(pc.binary_length(s), 0).to_numpy()
    out = np.zeros(len(s), dtype=np.int64)
    idx = np.flatnonzero(blen > limit)
    if len(idx):
        out[idx] = pc.utf8_length(pc.take(s, pa.array(idx))).to_numpy(zero_copy_only=False)
    return pa.array(out)


def failures(table: pa.Table) -> dict[str, pa.ChunkedArray]:
    """Boolean per row per check (True = the row fails it)."""
    price = table["price"]
    gtin_ok = gtin_valid(table["gtin"])
    title_len = _char_lengths_over(table["title"], MAX_TITLE)
    if "_desc_len" in table.column_names:  # precomputed before the population filter (see _slim)
        desc_len, desc_blank = table["_desc_len"], table["_desc_blank"]
    else:
        desc_len = pc.fill_null(pc.utf8_length(common.as_str(table["description"])), 0)
        desc_blank = common.blank(table["description"])
    sale = table["sale_price"]
    # a compare-at price of 0.00 is none: Shopify exports write it so for "no compare-at price" (a held-out
    # stroller shop's four full-price variants were counted as sale prices not below the regular one)
    compare_at = pc.if_else(pc.greater(table["compare_at_price"], 0), table["compare_at_price"], None)
    sale_bad = pc.or_(
        pc.fill_null(pc.greater_equal(sale, price), False), pc.fill_null(pc.less_equal(compare_at, price), False)
    )
    return {
        "missing_title": common.blank(table["title"]),
        "missing_image": common.blank(table["image_url"]),
        "zero_price": pc.fill_null(pc.less_equal(price, 0), True),
        "invalid_gtin": pc.fill_null(pc.invert(gtin_ok), False),
        "duplicate_sku": _duplicates(table["sku"]),
        "duplicate_variant_id": _duplicates(table["variant_id"]),
        "missing_description": desc_blank,
        "missing_brand": common.blank(table["brand"]),
        "missing_gtin": _missing_gtin(gtin_ok, table),
        "missing_category": pc.is_null(table["google_category_id"]),
        "long_title": pc.greater(title_len, MAX_TITLE),
        "sale_not_below_regular": sale_bad,
        "long_description": pc.greater(desc_len, MAX_DESCRIPTION),
    }


def _missing_gtin(gtin_ok: pa.ChunkedArray, table: pa.Table) -> pa.ChunkedArray:
    """No GTIN, where one is expected: not on a row whose feed states identifier_exists = no (the
    product has none from its maker, and Merchant Center takes it so; a held-out collectibles feed
    said so on all 36 rows and was told to add 36 GTINs). A GTIN given on such a row is still checked."""
    missing = pc.is_null(gtin_ok)
    if "identifier_exists" not in table.column_names:
        return missing
    return pc.and_(missing, pc.fill_null(table["identifier_exists"], True))


def join_examples(ids: list[str]) -> str | None:
    """Example ids as one cell: ", " between them, or "; " when an id holds a comma itself (a held-out
    export's SKU "MINIHT,FULLHT" read as two SKUs in "MINIHT,FULLHT, 1701002423,1701002422"). Both
    paths join by this rule (content_quality_sql)."""
    if not ids:
        return None
    return ("; " if any("," in i for i in ids) else ", ").join(ids)


def _example_ids(table: pa.Table, mask, by_id: bool = False) -> str | None:
    """Up to EXAMPLES ids (SKU, else variant id, else product id) of the rows in `mask`: the first in
    the table's order, or with `by_id` the smallest (examples_by_id)."""
    if by_id:
        return _smallest_ids(table.filter(mask))
    first = np.flatnonzero(np.asarray(mask.to_numpy(zero_copy_only=False) if hasattr(mask, "to_numpy") else mask))[
        : EXAMPLES * 4
    ]
    sub = table.select(["sku", "variant_id", "product_id"]).take(pa.array(first, pa.int64()))
    ids: list[str] = []
    for sku, vid, pid in zip(sub["sku"].to_pylist(), sub["variant_id"].to_pylist(), sub["product_id"].to_pylist()):
        ident = sku or vid or pid
        if ident and str(ident) not in ids and len(ids) < EXAMPLES:
            ids.append(str(ident))
    return join_examples(ids)


def _smallest_ids(rows: pa.Table) -> str | None:
    """The EXAMPLES smallest distinct ids of `rows` (SKU, else variant id, else product id; "" is none)."""
    ident = None
    for name in ("sku", "variant_id", "product_id"):
        column = common.as_str(rows[name])
        column = pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.string()), column)
        ident = column if ident is None else pc.coalesce(ident, column)
    if ident is None or not len(ident):
        return None
    distinct = pc.unique(ident).drop_null()
    return join_examples(pc.take(distinct, pc.sort_indices(distinct)).to_pylist()[:EXAMPLES])


def _entry_masks(column: pa.ChunkedArray) -> dict[str, pa.Array]:
    """Per entry of a newline-joined dictionary column (agent.catalog.mc_status), the rows holding it:
    entries are split once per distinct joined value, rows matched by dictionary index."""
    from agent.catalog.mc_status import SEPARATOR

    encoded = common.encoded(column)
    holders: dict[str, list[int]] = {}
    for index, joined in enumerate(encoded.dictionary.to_pylist()):
        for entry in (joined or "").split(SEPARATOR):
            if entry:
                holders.setdefault(entry, []).append(index)
    return {
        entry: pc.fill_null(pc.is_in(encoded.indices, value_set=pa.array(indices, encoded.indices.type)), False)
        for entry, indices in holders.items()
    }


def mc_row(item: str, severity: str, rows_n: int, products_n: int, total: int, examples: str | None) -> dict:
    """One Merchant Center row (both paths build it here)."""
    return {
        "Section": MC_SECTION,
        "Item": item,
        "Severity": severity,
        "Affected rows": rows_n,
        "Affected products": products_n,
        "Share of rows": common.pct(rows_n, total),
        "Examples": examples,
    }


def _merchant_center_rows(scoped: pa.Table, by_id: bool) -> list[dict[str, Any]]:
    """Merchant Center's verdicts, when the source carries them (never for a file): the offers
    disapproved anywhere, then per destination, then the TOP_ISSUES most common item issues (most rows
    first, then by code)."""
    rows: list[dict[str, Any]] = []
    total = scoped.num_rows
    destinations = scoped["disapproved_destinations"]
    if destinations.null_count < len(destinations):
        anywhere = pc.fill_null(pc.not_equal(common.as_str(destinations), ""), False)
        rows_n = int(pc.sum(anywhere).as_py() or 0)
        products = int(pc.count_distinct(pc.filter(scoped["product_key"], anywhere)).as_py()) if rows_n else 0
        examples = _example_ids(scoped, anywhere, by_id) if rows_n else None
        rows.append(mc_row(MC_DISAPPROVED, "high", rows_n, products, total, examples))
        rows += _entry_rows(scoped, _entry_masks(destinations), MC_DESTINATION, "high", None, by_id)
    issues = scoped["issue_codes"]
    if issues.null_count < len(issues):
        rows += _entry_rows(scoped, _entry_masks(issues), MC_ISSUE, "medium", TOP_ISSUES, by_id)
    return rows


def _entry_rows(scoped, masks, label: str, severity: str, limit: int | None, by_id: bool) -> list[dict[str, Any]]:
    counted = sorted(((-int(pc.sum(mask).as_py() or 0), entry) for entry, mask in masks.items()))
    counted = [(n, entry) for n, entry in counted if n][:limit]
    return [
        mc_row(
            label.format(entry),
            severity,
            -n,
            int(pc.count_distinct(pc.filter(scoped["product_key"], masks[entry])).as_py()),
            scoped.num_rows,
            _example_ids(scoped, masks[entry], by_id),
        )
        for n, entry in counted
    ]


def run(inp: SkillInput) -> SkillResult:
    """The checks over the scope's rows: in memory, or as SQL in BigQuery for a `Products_` table above
    the size line (agent.analysis.content_quality_sql gives the same rows); `answer` does the rest."""
    scope, tax = inp.scope, inp.taxonomy
    pushdown = sql_run.pushdown_of(inp.sources)
    if pushdown is not None:
        from agent.analysis import content_quality_sql

        pushed = content_quality_sql.figures(pushdown, scope, tax)
        return answer(inp, pushed.rows, {}, pushed.currency, pushed.notes)
    pop = common.population(_slim(inp.own), scope, tax, scoped_on=inp.own)
    scoped = pop.table
    absent = absent_fields(inp.sources)
    rows = _rows(scoped, scope, tax, examples_by_id(inp.sources), absent) if scoped.num_rows else []
    return answer(inp, rows, pop.excluded, common.single_currency(scoped), [])


def absent_fields(sources) -> tuple[str, ...]:
    """The fields no catalog source has a column for (each source's evidence says), in FIELD_CHECKS
    order; () when any source has it, or when no source says (a table built in memory)."""
    catalogs = [s for s in sources if getattr(s, "role", "catalog") == "catalog"]
    if not catalogs:
        return ()
    return tuple(f for f in FIELD_CHECKS if all(f in (getattr(s, "absent_fields", None) or ()) for s in catalogs))


def skipped_checks(absent: tuple[str, ...]) -> frozenset[str]:
    """The checks not run because their field is absent from the export (FIELD_CHECKS)."""
    return frozenset(check for f in absent for check in FIELD_CHECKS[f])


def absent_rows(absent: tuple[str, ...]) -> list[dict[str, Any]]:
    """One row per absent field: what the export cannot be checked for (both paths)."""
    return [{"Section": ABSENT_SECTION, "Item": FIELD_LABELS[f], "_field": f} for f in absent]


def examples_by_id(sources) -> bool:
    """A table read from BigQuery has no row order (each read may stream it differently), so its
    examples are the smallest ids, as the SQL path's ORDER BY gives them; a file's are its first rows."""
    from agent.catalog.bigquery import KIND_BIGQUERY

    return bool(sources) and all(getattr(s, "kind", None) == KIND_BIGQUERY for s in sources)


def answer(inp: SkillInput, rows: list[dict], excluded: dict[str, int], currency: str | None, notes: list[str]):
    """The skill result from the rows (either path's): the table, findings and thresholds."""
    table = common.records_table(COLUMNS, rows, excluded)
    return SkillResult(
        skill=SKILL_ID,
        scope=inp.scope,
        table=table,
        findings=_findings(rows, excluded),
        thresholds={
            "max_title_chars": MAX_TITLE,
            "max_description_chars": MAX_DESCRIPTION,
            "required_for_complete": required_checks(
                skipped_checks(_absent_of(rows)), not (rows and rows[0].get("_without_gtin"))
            ),
        },
        currency=currency,
        chart=None,
        taxonomy_note=common.taxonomy_note(inp.scope, inp.taxonomy),
        notes=list(notes),
    )


def _slim(own: pa.Table) -> pa.Table:
    """The columns the checks read, descriptions reduced to the two facts the checks need (blank, too
    long) before the population filter copies rows: descriptions are the bulkiest column (saves copying
    ~100 MB of text on a million rows)."""
    slim = own.select(list(READ) + ["status"])
    desc = slim["description"]
    return (
        slim.drop_columns(["description"])
        .append_column("_desc_blank", common.blank(desc))
        .append_column("_desc_len", _char_lengths_over(desc, MAX_DESCRIPTION))
    )


def _absent_of(rows: list[dict]) -> tuple[str, ...]:
    return tuple(r["_field"] for r in rows if r.get("Section") == ABSENT_SECTION)


def counts_gtin(rows_n: int, missing_gtin_n: int) -> bool:
    """Whether completeness requires a GTIN: not when no row of the scope has one.

    Decision: a shop whose every row lacks a GTIN (a handmade or own-brand shop: earrings, prints,
    cakes) would read "0.0 % complete" whatever else it fixes, as an export with no GTIN column would,
    and that column's checks are already left out of completeness (FIELD_CHECKS). Merchant Center
    takes products that have no GTIN from their manufacturer with identifier_exists set to "no". So
    with no GTIN anywhere in the scope, completeness and completeness per category are counted
    without the GTIN checks, the "Missing GTIN" check row still says how many rows lack one, and the
    answer says what to do (quality.no_gtin). One GTIN anywhere in the scope and the GTIN counts for
    every row, as before: the shop uses GTINs, and the rows without one are to fix. Both paths decide
    it from the same two counts (content_quality_sql)."""
    return not (rows_n and missing_gtin_n >= rows_n)


def required_checks(skipped: frozenset[str], with_gtin: bool) -> list[str]:
    """The REQUIRED checks completeness counts: those run, without the GTIN ones unless `with_gtin`."""
    return [k for k in REQUIRED if k not in skipped and (with_gtin or k not in GTIN_CHECKS)]


def _rows(
    scoped: pa.Table, scope: Scope, tax: Taxonomy, by_id: bool = False, absent: tuple[str, ...] = ()
) -> list[dict]:
    """The table step: the completeness row, the failing checks (most severe, then most rows first),
    the fields the export has no column for, Merchant Center's verdicts when the source has them, and
    completeness per category (least complete first). `by_id`: examples are the smallest ids
    (examples_by_id). `absent`: fields whose checks are not run (FIELD_CHECKS)."""
    skipped = skipped_checks(absent)
    fails = {k: v for k, v in failures(scoped).items() if k not in skipped}
    with_gtin = "missing_gtin" not in fails or counts_gtin(scoped.num_rows, int(pc.sum(fails["missing_gtin"]).as_py()))
    required = required_checks(skipped, with_gtin)
    incomplete = fails[required[0]]
    for key in required[1:]:
        incomplete = pc.or_(incomplete, fails[key])
    complete_n = scoped.num_rows - int(pc.sum(incomplete).as_py() or 0)
    completeness = {
        "Section": "Completeness",
        "Item": "Rows complete for Google Shopping",
        "Affected rows": scoped.num_rows - complete_n,
        "Affected products": None,
        "Share of rows": None,
        "Complete": common.pct(complete_n, scoped.num_rows),
        "_without_gtin": not with_gtin,
    }
    return [
        completeness,
        *_check_rows(scoped, fails, by_id),
        *absent_rows(absent),
        *_merchant_center_rows(scoped, by_id),
        *_category_rows(scoped, scope, tax, incomplete),
    ]


def _check_rows(scoped: pa.Table, fails: dict[str, pa.ChunkedArray], by_id: bool = False) -> list[dict[str, Any]]:
    """One row per check that fails somewhere: rows and products affected, a few example ids."""
    checks: list[dict[str, Any]] = []
    for check_id, label, severity in CHECKS:
        if check_id not in fails:  # not run: the export has no column for its field
            continue
        mask = fails[check_id]
        n = int(pc.sum(mask).as_py() or 0)
        if not n:
            continue
        products = int(pc.count_distinct(pc.filter(scoped["product_key"], mask)).as_py())
        checks.append(
            {
                "Section": "Check",
                "Item": label,
                "Severity": severity,
                "Affected rows": n,
                "Affected products": products,
                "Share of rows": common.pct(n, scoped.num_rows),
                "Examples": _example_ids(scoped, mask, by_id),
                "_id": check_id,
            }
        )
    checks.sort(key=lambda r: (-SEVERITY_RANK[r["Severity"]], -r["Affected rows"]))
    return checks


def _category_rows(scoped: pa.Table, scope: Scope, tax: Taxonomy, incomplete: pa.ChunkedArray) -> list[dict]:
    """Completeness per category label, least complete first, then most rows to fix."""
    labels = common.category_labels(scoped, scope, tax)
    by_category = (
        pa.table({"c": labels, "bad": pc.cast(incomplete, pa.int64()), "pk": scoped["product_key"]})
        .group_by("c")
        .aggregate([("bad", "sum"), ("pk", "count")])
    )
    rows = [
        {
            "Section": "Completeness by category",
            "Item": counted["c"],
            "Affected rows": counted["bad_sum"],
            "Complete": common.pct(counted["pk_count"] - counted["bad_sum"], counted["pk_count"]),
        }
        for counted in by_category.to_pylist()
    ]
    # equally complete, the category with more rows to fix first: a held-out blinds shop's "least
    # complete" were three one-product categories at 0.0%, its 52 window films at 0.0% unnamed
    rows.sort(key=lambda r: (r["Complete"], -(r["Affected rows"] or 0), r["Item"]))
    return rows


def _merchant_center_findings(rows: list[dict]) -> list[Finding]:
    """Disapprovals (how many offers, where) or that there are none; the most common item issues."""
    found: list[Finding] = []
    mc = [(i, r) for i, r in enumerate(rows) if r["Section"] == MC_SECTION]
    summary = next(((i, r) for i, r in mc if r["Item"] == MC_DISAPPROVED), None)
    prefix, issue_prefix = MC_DESTINATION.format(""), MC_ISSUE.format("")
    if summary is not None and summary[1]["Affected rows"]:
        i, r = summary
        where = [(j, d) for j, d in mc if d["Item"].startswith(prefix)]
        values = {
            "rows_n": r["Affected rows"],
            "products_n": r["Affected products"],
            "items": [{"destination": d["Item"][len(prefix) :], "rows_n": d["Affected rows"]} for _, d in where],
        }
        cells = ((i, "Affected rows"), (i, "Affected products"), *((j, "Affected rows") for j, _ in where))
        found.append(Finding("quality.disapproved", values, cells=cells, severity=8))
    elif summary is not None:
        found.append(Finding("quality.approved", {}, severity=3))
    issues = [(j, d) for j, d in mc if d["Item"].startswith(issue_prefix)]
    if issues:
        items = [{"code": d["Item"][len(issue_prefix) :], "rows_n": d["Affected rows"]} for _, d in issues]
        found.append(
            Finding(
                "quality.item_issues",
                {"items": items},
                cells=tuple((j, "Affected rows") for j, _ in issues),
                severity=6,
            )
        )
    return found


def _passed_essentials(rows: list[dict], absent) -> list[str]:
    """The fields (FIELD_CHECKS' names) of the ESSENTIAL checks that ran (the export has the field) and
    no row fails: a check row is
    listed only when it fails, so a passing check is one the table does not list. Why: a merchant who
    asks about images and descriptions must hear that none is missing, not only what else is."""
    failing = {r["Item"] for r in rows if r["Section"] == "Check"}
    labels = {check: label for check, label, _ in CHECKS}
    not_run = {check for field in absent for check in FIELD_CHECKS.get(field, ())}
    field_of = {check: field for field, checks in FIELD_CHECKS.items() for check in checks}
    # plain words as the values (the renderer escapes values for Markdown): "image", not "image_url"
    return [field_of[c].removesuffix("_url") for c in ESSENTIAL if c not in not_run and labels[c] not in failing]


def _other_checks(checks: list[tuple[int, dict]], without_gtin: bool) -> list[Finding]:
    """ "Also to fix: …" for the medium and low checks. With no GTIN anywhere in the scope the GTIN checks
    are not listed: quality.no_gtin has just said own-brand products need none, and a held-out denim
    shop (13 products, none with a barcode) read "0 rows need work" and then "Also to fix: missing gtin
    (13 rows)". Labels keep their capitals past the first letter ("missing GTIN", "a Google category")."""
    rest = [(i, r) for i, r in checks if r["Severity"] != "high" and not (without_gtin and r["Item"] in GTIN_LABELS)][
        :4
    ]
    if not rest:
        return []
    items = [{"label": r["Item"][:1].lower() + r["Item"][1:], "rows_n": r["Affected rows"]} for _, r in rest]
    cells = tuple((i, "Affected rows") for i, _ in rest)
    return [Finding("quality.other_checks", {"items": items}, cells=cells, severity=5)]


def _findings(rows: list[dict], excluded: dict[str, int]) -> list[Finding]:
    if not rows:
        return [Finding("quality.empty", {}, severity=10)]
    absent = _absent_of(rows)
    found: list[Finding] = [
        Finding(
            "quality.complete",
            {
                "complete_pct": rows[0]["Complete"],
                "incomplete_n": rows[0]["Affected rows"],
                "absent": [FIELD_LABELS[f] for f in absent],
                "without_gtin": bool(rows[0].get("_without_gtin")),
            },
            cells=((0, "Complete"), (0, "Affected rows")),
            severity=9,
        )
    ]
    if rows[0].get("_without_gtin"):
        found.append(Finding("quality.no_gtin", {}, severity=8))
    if absent:
        found.append(Finding("quality.absent", {"fields": [FIELD_LABELS[f] for f in absent]}, severity=8))
    visible = list(enumerate(rows))[:20]
    checks = [(i, r) for i, r in visible if r["Section"] == "Check"]
    high = [(i, r) for i, r in checks if r["Severity"] == "high"]
    for i, r in high[:3]:
        found.append(
            Finding(
                "quality.check",
                {
                    "label": r["Item"],
                    "rows_n": r["Affected rows"],
                    "products_n": r["Affected products"],
                    "examples": r["Examples"],
                    "severity": "high",
                },
                cells=((i, "Affected rows"), (i, "Affected products")),
                severity=8,
            )
        )
    found += _other_checks(checks, without_gtin=bool(rows[0].get("_without_gtin")))
    if not checks:
        found.append(Finding("quality.all_pass", {}, severity=7))
    else:
        passed = _passed_essentials(rows, absent)
        if passed:
            found.append(Finding("quality.passed", {"fields": passed}, severity=5))
    cats = [
        (i, r)
        for i, r in visible
        if r["Section"] == "Completeness by category" and r["Complete"] is not None and r["Complete"] < 100
    ][:3]
    if cats:
        items = [{"name": r["Item"], "complete_pct": r["Complete"]} for _, r in cats]
        found.append(
            Finding(
                "quality.worst_categories", {"items": items}, cells=tuple((i, "Complete") for i, _ in cats), severity=4
            )
        )
    found += _merchant_center_findings(rows)
    ex = common.excluded_finding(excluded, rows)
    if ex:
        found.append(ex)
    found.sort(key=lambda x: -x.severity)
    return found[:7]
