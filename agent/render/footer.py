"""The evidence footer (SPEC §6): every source, rows read, snapshot date, what was not read, freshness.

Its shape is a contract — clients and tests parse it — so it is built in one place:

    ---
    Evidence
    - <name> (<kind>, <format>[, header match N%]): <rows> rows read[, <k> skipped (<why>)][, <m> longer than
      the header (<c> extra cells not read)]; snapshot date <d> (<origin>)
    - Google product taxonomy 2021-09-21 (bundled)[: <note>]
    - Not read: <name> (<reason>); <name> (<reason>)
    Freshness: newest snapshot <d>, <n> days old at <YYYY-MM-DD HH:MM> UTC.

Freshness is computed at query time from dates in the data only; reference data such as the taxonomy
has a version, not a snapshot date.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable

from agent.catalog.evidence import KIND_GCS, CatalogInputs, SourceEvidence

NO_DATE = "snapshot date not stated in the data"
NO_FRESHNESS = "Freshness: not stated — no snapshot date in the data."


def _count(amount: int, one: str, many: str) -> str:
    return f"{amount:,} {one if amount == 1 else many}"


def _details(source: SourceEvidence) -> str:
    parts: list[str] = []
    if source.kind == KIND_GCS and source.generation is not None:
        parts.append(f"generation {source.generation}")
    else:
        parts.append(source.kind)
    if source.role == "reference":
        parts.append("reference catalog")
    if source.format:
        parts.append(source.format)
    if source.format_score is not None and source.format_score < 1:
        match = f"header match {round(source.format_score * 100)}%"
        missing = source.format_missing
        if missing:
            match += " (no " + ", ".join(missing[:3]) + (" …" if len(missing) > 3 else "") + ")"
        parts.append(match)
    return ", ".join(parts)


def _plain(text: str) -> str:
    return text


def _escaper(markdown: bool):
    """Names and reasons come from the caller (file names, URIs, media types): in the Markdown footer
    they are escaped like catalog values (agent.render.text.md_escape), so `![t](https://x/b.png).csv`
    shows as written instead of loading an image. The A2UI caption escapes whole lines itself, so it
    takes the plain form."""
    if not markdown:
        return _plain
    from agent.render.text import md_escape

    return md_escape


# How a row's unquoted delimiter is named in the footer ("1 row with an unquoted comma inside a cell").
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def source_line(source: SourceEvidence, markdown: bool = True) -> str:
    if getattr(source, "pushdown", None) is not None:  # BigQuery above the size line: nothing downloaded
        rows = _count(source.rows_read, "row aggregated in BigQuery", "rows aggregated in BigQuery")
    else:
        rows = _count(source.rows_read, "row read", "rows read")
    if source.rows_skipped:
        rows += f", {source.rows_skipped:,} skipped"
        reasons = [f"{k:,} {reason}" for reason, k in source.skipped_reasons.items() if k]
        if reasons:
            rows += f" ({', '.join(reasons)})"
    if source.rows_overlong:
        cells = _count(source.extra_cells, "extra cell", "extra cells")
        rows += f", {_count(source.rows_overlong, 'row', 'rows')} longer than the header ({cells} not read)"
    if source.rows_rejoined:
        sign = _DELIMITER_NAMES.get(source.delimiter or ",", "delimiter")
        rows += (
            f", {_count(source.rows_rejoined, 'row', 'rows')} with an unquoted {sign} inside a cell (read as one cell)"
        )
    if source.bytes_scanned is not None:
        from agent.catalog.sources import bytes_text

        rows += f", {'' if source.bytes_exact else 'at least '}{bytes_text(source.bytes_scanned)} scanned"
    if source.snapshot_date:
        date = f"snapshot date {source.snapshot_date.isoformat()}"
        if source.snapshot_origin:
            date += f" ({source.snapshot_origin})"
    else:
        date = NO_DATE + (f" ({source.snapshot_note})" if source.snapshot_note else "")
    return f"- {_escaper(markdown)(source.name)} ({_details(source)}): {rows}; {date}"


def freshness_line(sources: Iterable[SourceEvidence], now: dt.datetime) -> str:
    dates = [source.snapshot_date for source in sources if source.snapshot_date]
    if not dates:
        return NO_FRESHNESS
    newest = max(dates)
    now = now.astimezone(dt.timezone.utc)
    age = (now.date() - newest).days
    stamp = now.strftime("%Y-%m-%d %H:%M")
    if age < 0:
        return f"Freshness: newest snapshot {newest.isoformat()}, dated {-age} {'day' if age == -1 else 'days'} after {stamp} UTC."
    return f"Freshness: newest snapshot {newest.isoformat()}, {age} {'day' if age == 1 else 'days'} old at {stamp} UTC."


def render_footer(inputs: CatalogInputs, taxonomy_note: str | None, now: dt.datetime, markdown: bool = True) -> str:
    esc = _escaper(markdown)
    sources: list[SourceEvidence] = []
    for side in (inputs.own, inputs.reference, inputs.demand):
        if side is not None:
            sources.extend(side.sources)
    lines = ["---", "Evidence"]
    lines.extend(source_line(source, markdown) for source in sources)
    taxonomy = f"- Google product taxonomy {inputs.taxonomy_version} (bundled)"
    lines.append(f"{taxonomy}: {taxonomy_note}" if taxonomy_note else taxonomy)
    if inputs.unreadable:
        lines.append(
            "- Not read: "
            + "; ".join(f"{esc(unreadable.name)} ({esc(unreadable.reason)})" for unreadable in inputs.unreadable)
        )
    lines.extend(f"- {esc(problem)}" for problem in inputs.problems)
    lines.append(freshness_line(sources, now))
    return "\n".join(lines)
