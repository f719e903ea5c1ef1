"""What every skill's SQL form shares: one row per offer of the snapshot partition in the in-memory
path's terms (`offers`), the scope filter, and the quantile picks interpolated in Python.

`offers(columns, scope)` is the head of a query: `WITH … offers AS (…), scoped AS (…)` where
`offers` has one row per offer of the snapshot partition with the named `OFFER_COLUMNS` (each the
canonical column's meaning, computed as the catalog layer computes it from a feed), and `scoped` the
offers in the question's scope. A skill's aggregation then reads `scoped` and returns aggregated rows
only. `{table}` and `{where}` are left for `agent.catalog.bigquery.Pushdown.query` to fill, so no
fragment here may hold a brace of its own.

Per distinct value, not per row (why the joins): a cleaning step that is a plain function of one
cell is computed once per distinct cell and joined back — the currency (`UPPER`, which the local
emulator runs as a per-row Python function, 12–30 s per 100k rows) and the availability word with
its stock state. Real BigQuery gives the same answer either way; the emulator then answers a
question on a 10M-row table in about half a minute instead of not at all (bench/README.md).

Placement (the decision in agent.analysis.gaps_sql's docstring): `gid` is the transfer's own
`google_product_category` id; a scoped question keeps the ids of the scope's taxonomy subtree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from agent.analysis import common
from agent.analysis.result import Scope
from agent.catalog.readers.common import NO_BRAND_VALUES
from agent.catalog.taxonomy import Taxonomy

if TYPE_CHECKING:
    import pyarrow as pa

    from agent.analysis.inputs import SkillInput

Aggregates = TypeVar("Aggregates")

QUANTILES = (0.25, 0.5, 0.75)

# The raw transfer values the offer columns are computed from: alias -> SQL over the table.
_RAW = {
    "offer_id": "offer_id",
    "item_group_id": "item_group_id",
    "google_product_category": "google_product_category",
    "availability": "availability",
    "price_value": "price.value",
    "price_currency": "price.currency",
    "brand": "brand",
    # content_quality and attribute_coverage (agent.analysis.content_quality_sql, attributes_sql)
    "title": "title",
    "description": "description",
    "image_link": "image_link",
    "gtin": "gtin",
    "sale_value": "sale_price.value",
    "sale_start_at": "sale_price_effective_start_date",
    "sale_end_at": "sale_price_effective_end_date",
    "destinations": "destinations",
    "issues": "issues",
    "color": "color",
    "material": "material",
    "size": "size",
    # the scope's title matches filed above it (scope_filter)
    "product_type": "product_type",
    "gpc_path": "google_product_category_path",
}


def _no_brand_as_null() -> str:
    """The brand column as the catalog layer cleans it, in SQL: `readers.common.is_no_brand` compares the
    value lower case with hyphens, dots, slashes, underscores and spaces as one space, against
    NO_BRAND_VALUES, and takes a value with no letter or digit for none. Its words are constants of
    ours (letters and spaces only), written into the query as literals."""
    words = ", ".join("'" + word.replace("\\", "\\\\").replace("'", "\\'") + "'" for word in sorted(NO_BRAND_VALUES))
    key = "LOWER(TRIM(REGEXP_REPLACE(r.brand, r'[-./_\\s]+', ' ')))"
    cleaned = "NULLIF(REGEXP_REPLACE(TRIM(r.brand), r'\\s\\s+', ' '), '')"
    return f"IF({key} IN ({words}) OR NOT REGEXP_CONTAINS(r.brand, r'[\\pL\\pN]'), NULL, {cleaned})"


_NO_BRAND_AS_NULL = _no_brand_as_null()


def _key_part(sql: str) -> str:
    """One part of an offer's key (OFFER_COLUMNS' `skey`): "-" for none, else its length, ":" and itself."""
    return f"IF({sql} IS NULL, '-', CONCAT(CAST(LENGTH({sql}) AS STRING), ':', {sql}))"


def key_of(*parts: Any) -> str:
    """The key `skey`/`tkey` computes in SQL, computed in Python from the same raw values."""
    return "".join("-" if p is None else f"{len(str(p))}:{p}" for p in parts)


# Canonical offer columns -> (SQL over the raw row `r` and the per-distinct joins, raw aliases read).
OFFER_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    # the product key, as the catalog layer groups variants: the item group, else the offer itself
    "pk": (
        "IF(NULLIF(TRIM(r.item_group_id), '') IS NULL, CONCAT('o:', r.offer_id), CONCAT('g:', TRIM(r.item_group_id)))",
        ("item_group_id", "offer_id"),
    ),
    "gid": ("CAST(r.google_product_category AS INT64)", ("google_product_category",)),
    # prices as FLOAT64 of the NUMERIC value, as the reader parses them
    "p": ("CAST(r.price_value AS FLOAT64)", ("price_value",)),
    "cur": ("cu.cur", ("price_currency",)),
    # the availability word cleaned as values.availability_value cleans it, and its stock state
    "word": ("aw.word", ("availability",)),
    "stated": ("aw.word IS NOT NULL", ("availability",)),
    "st": ("aw.st", ("availability",)),
    # brand trimmed, inner runs of two or more spaces as one, empty as none (values.clean_text, categorical),
    # and a value saying there is no brand ("Sin marca", "N/A", "-") as none (readers.common.is_no_brand)
    "brand": (_NO_BRAND_AS_NULL, ("brand",)),
    # the example id content_quality shows: the variant (offer) id, else the product id, trimmed
    "ident": (
        "COALESCE(NULLIF(TRIM(r.offer_id), ''), NULLIF(TRIM(r.item_group_id), ''))",
        ("offer_id", "item_group_id"),
    ),
    "vid": ("NULLIF(TRIM(r.offer_id), '')", ("offer_id",)),
    # titles and identifiers trimmed, empty as none (values.clean_text, not categorical); descriptions
    # and links kept as written
    "title": ("NULLIF(TRIM(r.title), '')", ("title",)),
    "description": ("r.description", ("description",)),
    "image": ("NULLIF(TRIM(r.image_link), '')", ("image_link",)),
    "gtin": ("NULLIF(TRIM(r.gtin), '')", ("gtin",)),
    "sale": ("CAST(r.sale_value AS FLOAT64)", ("sale_value",)),
    # the sale's schedule as the in-memory reader takes it from the same TIMESTAMPs: their UTC days,
    # first and last inclusive (agent.catalog.bigquery.SALE_WINDOW; common.sales applies the window)
    "sale_start": ("DATE(r.sale_start_at)", ("sale_start_at",)),
    "sale_end": ("DATE(r.sale_end_at)", ("sale_end_at",)),
    "destinations": ("r.destinations", ("destinations",)),
    "issues": ("r.issues", ("issues",)),
    "color": ("r.color", ("color",)),
    "material": ("r.material", ("material",)),
    "size": ("r.size", ("size",)),
    # an offer's raw title, Google category and own category as one string, each part length-prefixed so
    # no two differ by where a part ends: the key of scope_filter's title matches filed above the scope
    # (`tkey` for a table without product_type)
    "skey": (
        "CONCAT("
        + ", ".join(_key_part(c) for c in ("r.title", "CAST(r.google_product_category AS STRING)", "r.product_type"))
        + ")",
        ("title", "google_product_category", "product_type"),
    ),
    "tkey": (
        "CONCAT(" + ", ".join(_key_part(c) for c in ("r.title", "CAST(r.google_product_category AS STRING)")) + ")",
        ("title", "google_product_category"),
    ),
}
# the key columns a scope filter may name: offers() adds the one it names to its columns
SCOPE_KEYS = ("skey", "tkey")

_CURRENCIES = """curs AS (
  SELECT c, NULLIF(UPPER(TRIM(c)), '') AS cur FROM (SELECT DISTINCT price_currency AS c FROM raw)
)"""

_WORDS = r"""avail AS (SELECT a.word AS word, a.state AS state FROM UNNEST(@avail) AS a),
words AS (
  SELECT d.a AS a, d.word AS word,
         CASE WHEN d.word IS NULL THEN NULL ELSE COALESCE(v.state, w.state, 'unknown') END AS st
  FROM (
    SELECT a, REGEXP_REPLACE(REGEXP_REPLACE(LOWER(TRIM(a)), r'[\s_-]+', ' '), r'^https?://schema[.]org/', '') AS word
    FROM (SELECT DISTINCT availability AS a FROM raw)
  ) AS d
  LEFT JOIN avail AS v ON v.word = d.word
  LEFT JOIN avail AS w ON w.word = REPLACE(d.word, ' ', '')
)"""


def offers(columns: Sequence[str], scope: str = "TRUE") -> str:
    """The query head `WITH raw, [curs], [avail, words], offers, scoped`: `offers` has the named
    OFFER_COLUMNS for every offer of the snapshot partition, `scoped` those matching `scope` (SQL over
    the offer columns, e.g. from `scope_filter`). A query using `word`, `stated` or `st` must send
    `avail_param()`. Ends without a comma: the caller appends `,more AS (…)` or its SELECT."""
    columns = [*columns, *(k for k in SCOPE_KEYS if k not in columns and re.search(rf"\b{k}\b", scope))]
    reads = sorted({raw for name in columns for raw in OFFER_COLUMNS[name][1]}, key=list(_RAW).index)
    ctes = ["raw AS (SELECT " + ", ".join(f"{_RAW[a]} AS {a}" for a in reads) + " FROM {table} WHERE {where})"]
    joins = []
    if "cur" in columns:
        ctes.append(_CURRENCIES)
        joins.append("LEFT JOIN curs AS cu ON cu.c = r.price_currency")
    if {"word", "stated", "st"} & set(columns):
        ctes.append(_WORDS)
        joins.append("LEFT JOIN words AS aw ON aw.a = r.availability")
    select = ", ".join(f"{OFFER_COLUMNS[name][0]} AS {name}" for name in columns)
    ctes.append(f"offers AS (SELECT {select} FROM raw AS r {' '.join(joins)})")
    ctes.append(f"scoped AS (SELECT * FROM offers WHERE {scope})")
    return "\nWITH " + ",\n".join(ctes) + "\n"


def pushdown_of(sources: Sequence[Any]) -> Any:
    """The catalog's Pushdown when it lies above the size line in BigQuery (nothing downloaded), else None."""
    return next((s.pushdown for s in sources if getattr(s, "pushdown", None) is not None), None)


def own_side(
    inp: SkillInput,
    columns: Sequence[str],
    in_bigquery: Callable[[SkillInput, Any], Aggregates],
    in_memory: Callable[[SkillInput, pa.Table], Aggregates],
) -> tuple[Aggregates, dict[str, int]]:
    """A skill's own-catalog aggregates and the excluded statuses' variant counts, by one rule for every
    skill whose two forms differ only there: above the size line `in_bigquery(inp, pushdown)` aggregates
    in BigQuery (nothing excluded is counted there: the transfer states no such status), else
    `in_memory(inp, table)` aggregates the scope's population in memory, carrying only `columns`.

    Why callables and not the SQL modules: each `*_sql` module imports its skill module, so the skill
    imports it inside its `in_bigquery`, on the path that needs it."""
    pushdown = pushdown_of(inp.sources)
    if pushdown is not None:
        return in_bigquery(inp, pushdown), {}
    pop = common.population(inp.own, inp.scope, inp.taxonomy, columns)
    return in_memory(inp, pop.table), pop.excluded


LABELLED = """,
labels AS (SELECT l.gid AS gid, l.label AS label FROM UNNEST(@labels) AS l),
labelled AS (SELECT s.*, COALESCE(l.label, @unmapped) AS c FROM scoped AS s LEFT JOIN labels AS l ON s.gid = l.gid)
"""


def label_params(pushdown: Any, head: str, params: Sequence[Any], scope: Scope, taxonomy: Taxonomy) -> list[Any]:
    """`@labels` and `@unmapped` for LABELLED: each Google category id of the scope's offers with its
    display label (common.taxonomy_label, the in-memory rule), from one query of the distinct ids (at
    most the taxonomy's size). An offer without an id is "Unmapped" (in memory its merchant category may
    still name it: the placement decision of agent.analysis.gaps_sql)."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    ids = [
        int(r["gid"]) for r in pushdown.query(head + "SELECT DISTINCT gid FROM scoped", params) if r["gid"] is not None
    ]
    labels = [
        StructQueryParameter(
            None,
            ScalarQueryParameter("gid", "INT64", gid),
            ScalarQueryParameter("label", "STRING", common.taxonomy_label(gid, scope, taxonomy)),
        )
        for gid in ids or [-1]  # an empty array parameter has no type: -1 is no taxonomy id ("Unmapped")
    ]
    return [
        ArrayQueryParameter("labels", "STRUCT", labels),
        ScalarQueryParameter("unmapped", "STRING", common.UNMAPPED_LABEL),
    ]


def avail_param() -> Any:
    """The catalog layer's availability words and their states (values.AVAILABILITY_WORDS) as the
    `@avail` array, so a word means the same in both paths."""
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter, StructQueryParameter

    from agent.catalog.values import AVAILABILITY_WORDS

    return ArrayQueryParameter(
        "avail",
        "STRUCT",
        [
            StructQueryParameter(
                None, ScalarQueryParameter("word", "STRING", word), ScalarQueryParameter("state", "STRING", state)
            )
            for word, state in AVAILABILITY_WORDS.items()
        ],
    )


def scope_filter(scope: Scope, taxonomy: Taxonomy, pushdown: Any = None) -> tuple[str, list[Any]]:
    """(SQL over the offer columns, parameters): the whole catalog, or the offers whose Google category
    id is in the scope's taxonomy subtree (`gid` must be among the offer columns) and, with the
    `pushdown`, the offers the in-memory rule places in the scope by their title (`title_placed_keys`:
    those filed above the scope's node, or any offer for a scope of title words only)."""
    from google.cloud.bigquery.query import ArrayQueryParameter

    if scope.is_whole_catalog:
        return "TRUE", []
    ids = sorted(common.scope_ids(scope, taxonomy))
    clauses: list[str] = []
    params: list[Any] = []
    if ids:
        clauses.append("gid IN UNNEST(@scope_ids)")
        params.append(ArrayQueryParameter("scope_ids", "INT64", ids))
    column, places = title_placed_keys(pushdown, scope, taxonomy) if pushdown is not None else ("", {})
    if places:
        clauses.append(f"{column} IN UNNEST(@scope_keys)")
        params.append(ArrayQueryParameter("scope_keys", "STRING", sorted(places)))
    if not clauses:  # own categories only (the planner names none above the line): not placed in SQL
        return ("FALSE" if column else "TRUE"), params
    return "(" + " OR ".join(clauses) + ")", params


def _ancestor_ids(scope: Scope, taxonomy: Taxonomy) -> list[int]:
    """The taxonomy nodes above the scope's roots (not the roots), each once."""
    out: list[int] = []
    for root in [scope.taxonomy_id, *scope.extra_taxonomy_ids]:
        node = taxonomy.node(root) if root is not None else None
        while node is not None and node.parent_id is not None:
            node = taxonomy.node(node.parent_id)
            if node is not None and node.id not in out:
                out.append(node.id)
    return out


def title_placed_keys(pushdown: Any, scope: Scope, taxonomy: Taxonomy) -> tuple[str, dict[str, int]]:
    """(key column, {key: place}) of the offers outside the scope's taxonomy subtree that the in-memory
    path holds in the scope by their title, each with the first place that holds it
    (scoping.ScopeRows.place: 0 own, 1 taxonomy, 2 title), once per question and scope (`pushdown.memo`).
    The key column is "" when the scope has no title words to place by.

    Which offers: with a Google node, those the merchant filed *above* it ("Ratalu Chips" filed under
    Food Items is in Chips: agent.analysis.scoping lets a title place a product filed more broadly, not
    one filed elsewhere); with none (a scope of title words: "tank tops" where the taxonomy has no such
    node), any offer. SQL cannot run the title rule, so the distinct (title, Google category, own
    category) of those offers whose title names a scope noun at all (the rule's own first filter,
    scoping.scope_title_pattern, run in BigQuery: what comes back is bounded by those titles, not by the
    table) are read, made canonical rows by the catalog layer's own readers, and scoping.rows itself
    takes the scope's rows of them; the keys of those it holds go back as a parameter."""
    from agent.analysis import scoping

    if ("title_placed", scope) not in pushdown.memo:
        pushdown.memo[("title_placed", scope)] = _title_placed_keys(pushdown, scope, taxonomy, scoping)
    return pushdown.memo[("title_placed", scope)]


def _title_placed_keys(pushdown: Any, scope: Scope, taxonomy: Taxonomy, scoping: Any) -> tuple[str, dict[str, int]]:
    from google.cloud.bigquery.query import ArrayQueryParameter, ScalarQueryParameter

    from agent.catalog.bigquery import canonical_rows

    rooted = bool(common.scope_ids(scope, taxonomy))
    above = _ancestor_ids(scope, taxonomy)
    pattern = scoping.scope_title_pattern(scope)
    if (rooted and not above) or pattern is None or "title" not in pushdown.has:
        return "", {}
    typed = "product_type" in pushdown.has
    column = "skey" if typed else "tkey"
    cols = ["title", "google_product_category"] + (["product_type"] if typed else [])
    cols += ["google_product_category_path"] if "google_product_category_path" in pushdown.has else []
    params: list[Any] = [ScalarQueryParameter("title_pattern", "STRING", pattern)]
    if rooted:
        params.append(ArrayQueryParameter("above_ids", "INT64", above))
    sql = (
        f"SELECT DISTINCT {', '.join(cols)} FROM {{table}} WHERE ({{where}}) "
        + ("AND google_product_category IN UNNEST(@above_ids) " if rooted else "")
        + "AND REGEXP_CONTAINS(title, @title_pattern)"
    )
    rows = [dict(r, offer_id=str(i)) for i, r in enumerate(pushdown.query(sql, params, reads=cols))]
    table = canonical_rows(rows, "placed by title")
    held = scoping.rows(table, scope, taxonomy) if table.num_rows else None
    if held is None or not held.any.any():
        return column, {}
    places: dict[str, int] = {}
    held_ids = table["variant_id"].filter(held.mask).to_pylist()
    for i, place in zip(held_ids, held.place()[held.any].tolist()):
        key = key_of(*(rows[int(i)].get(c) for c in ("title", "google_product_category", "product_type")[: 2 + typed]))
        places[key] = min(place, places.get(key, place))
    return column, places


def quantile_picks(
    rank: str, count: str, value: str, quantiles: Sequence[float], only: Sequence[float] | None = None
) -> str:
    """SQL aggregates picking, per quantile q, the values at sorted positions floor(q·(count−1)) and the
    next one (`a25`, `b25`, …; NULL for a q not in `only`): `interpolate` makes the quantile from them.

    Why not PERCENTILE_CONT: BigQuery has it only as an analytic function, one quantile per row over the
    whole partition, interpolated by the engine's own arithmetic. Two picks per quantile from one sort
    (ROW_NUMBER) return the very values the in-memory path interpolates between, so Python applies the
    in-memory rule itself and both paths interpolate alike. (Probed in the emulator, it was not
    the slow part of a question either way: bench/README.md, round 5.)"""
    out = []
    for quantile in quantiles:
        tag = f"{round(quantile * 100):02d}"
        if only is not None and quantile not in only:
            out += [f"NULL AS a{tag}", f"NULL AS b{tag}"]
            continue
        lo = f"CAST(FLOOR({quantile!r} * ({count} - 1)) AS INT64)"
        out.append(f"MAX(IF({rank} = {lo}, {value}, NULL)) AS a{tag}")
        out.append(f"MAX(IF({rank} = LEAST({lo} + 1, {count} - 1), {value}, NULL)) AS b{tag}")
    return ", ".join(out)


def interpolate(
    row: dict[str, Any], quantile: float, count: int | None = None, numpy_rule: bool = False
) -> float | None:
    """The quantile from a row of quantile_picks: linear interpolation between the two picked values,
    as common.quantiles_by_code does (`numpy_rule`: as numpy.quantile's own lerp, for the overview).
    `count` is the number of values ranked, the row's `n` unless given."""
    tag = f"{round(quantile * 100):02d}"
    low, high = row[f"a{tag}"], row[f"b{tag}"]
    total = int(row["n"]) if count is None else count
    if low is None or not total:
        return None
    low, high = float(low), float(high if high is not None else low)
    rel = quantile * (total - 1)
    frac = rel - math.floor(rel)
    if numpy_rule and frac >= 0.5:
        return high - (high - low) * (1 - frac)
    return low + (high - low) * frac


def unplaced_note(pushdown: Any, scope: Scope) -> str | None:
    """On a scoped question, how many offers carry no Google category (SQL cannot place them)."""
    if scope.taxonomy_id is None:
        return None
    rows = pushdown.query("SELECT COUNT(*) AS n FROM {table} WHERE ({where}) AND google_product_category IS NULL")
    count = int(rows[0]["n"]) if rows else 0
    if not count:
        return None
    return (
        f"{count:,} {'offer carries' if count == 1 else 'offers carry'} no Google product category in the "
        "BigQuery table, so aggregated in BigQuery they could not be placed in this scope and are "
        "not counted here."
    )


def number(value: Any) -> float | None:
    """A NUMERIC/FLOAT64 cell as float, NULL as None."""
    return None if value is None else float(value)


# A question's planning rows above the size line (`planning_rows`) are read whole or not at all: more
# offers than this whose titles name its words would be a download the size line is there to avoid.
PLANNING_ROWS = 200_000
_PLANNING_COLUMNS = ("offer_id", "item_group_id", "title", "google_product_category", "availability")


def planning_rows(sources: Sequence[Any], question: str, remembered: str | None = None) -> "pa.Table | None":
    """Above the size line, the rows the planner reads for `question` (canonical, as the in-memory table
    holds them): the offers whose titles name one of its words, or the `remembered` scope phrase a
    follow-up keeps; None under the line, when no title names them, or when they cannot be read whole.

    Why: with no rows the planner sees no title, so a scope the taxonomy has no node for — "tank tops"
    in tests/corpus/gmc/lake-erie-apparel.tsv, which in memory is the offers whose titles name them —
    was read as the whole catalog ("hoodies" as Shirts & Tops). The planner only reads titles that hold
    a question's word (a title scope, its notes' counts, the nodes those offers are filed at), so these
    rows plan it alike. The own categories (product_type) are not read: SQL places no scope of own
    categories (scope_filter), so the planner names none above the line, as before. One bounded query
    under the dry-run cap (Pushdown.query); over it, or over PLANNING_ROWS, the plan is made without.
    Every turn calls it: under the line it returns before importing BigQuery's client (which imports
    pandas: tests/test_cold_path_pandas.py)."""
    pushdown = pushdown_of(sources)
    if pushdown is None or "title" not in pushdown.has:
        return None
    from google.cloud.bigquery.query import ScalarQueryParameter

    from agent.analysis import scoping
    from agent.analysis.vocabulary import STOPWORDS, raw_tokens, stem
    from agent.catalog.bigquery import BigQueryUnavailable, BytesCapExceeded, canonical_rows

    words = {stem(w) for w in raw_tokens(f"{question} {remembered or ''}") if len(w) > 2} - STOPWORDS
    pattern = scoping.words_title_pattern(sorted(words))
    if pattern is None:
        return None
    cols = [c for c in (*_PLANNING_COLUMNS, "google_product_category_path") if c in pushdown.has]
    sql = (
        f"SELECT {', '.join(cols)} FROM {{table}} WHERE ({{where}}) AND REGEXP_CONTAINS(title, @title_pattern) "
        f"LIMIT {PLANNING_ROWS + 1}"
    )
    try:
        rows = pushdown.query(sql, [ScalarQueryParameter("title_pattern", "STRING", pattern)], reads=cols)
    except (BytesCapExceeded, BigQueryUnavailable):  # the skills' own queries say so; plan without rows
        return None
    if not rows or len(rows) > PLANNING_ROWS:
        return None
    return canonical_rows(rows, "planning")
