"""What was read, from where, and what could not be: the facts behind every evidence footer.

These objects travel from the catalog layer through analysis to render unchanged; render turns them
into the footer lines of SPEC §6. Nothing here is formatted text except the `reason` of an unreadable
input, which is a fixed human phrase ("application/pdf is not CSV").
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pyarrow is heavy to import; these modules are imported where no table exists yet
    import pyarrow as pa

# Kinds of source, as the footer names them in brackets.
KIND_ATTACHED = "attached file"
KIND_GCS = "Cloud Storage"
KIND_LOCAL = "local file"
KIND_DEMO = "bundled demo catalog"
KIND_CONTEXT = "attached earlier in this conversation"


# Fields a readiness check reads whose absence from a source is worth telling from blank cells: an
# inventory subset has no price column, a Google Ads feed no GTIN; every row "missing" one is no finding.
CHECKED_FIELDS = ("title", "description", "brand", "gtin", "image_url", "price")


@dataclass
class SourceEvidence:
    """One catalog source that was read."""

    name: str  # "catalog.csv", "gs://bucket/acme/products.parquet", "demo-catalog.csv"
    kind: str  # one of the KIND_* constants
    format: str  # "Shopify product export", "Google Merchant Center feed", "generic table", "Parquet"…
    rows_read: int  # data rows parsed (header excluded; Shopify image-only rows included)
    rows_skipped: int = 0  # rows that could not be parsed (ragged, blank-keyed…)
    format_score: float | None = None  # the winning format's coverage of its required columns, 0..1
    generation: int | None = None  # Cloud Storage object generation
    snapshot_date: dt.date | None = None  # newest date found in the data, never inferred
    snapshot_origin: str | None = None  # "column snapshot_date", "Parquet metadata snapshot_date"
    role: str = "catalog"  # "catalog" | "reference"
    columns: list[str] = field(default_factory=list)  # header as read
    unmapped_columns: list[str] = field(default_factory=list)  # header columns no canonical field took
    date_columns: list[str] = field(default_factory=list)  # columns recognised as dates
    delimiter: str | None = None
    encoding: str | None = None
    rows_padded: int = 0  # rows shorter than the header: read, their missing cells blank
    rows_overlong: int = 0  # rows with more cells than the header: known cells read, the rest not
    extra_cells: int = 0  # non-blank cells beyond the header in those rows (not read)
    rows_rejoined: int = 0  # rows longer than the header by a text cell's unquoted delimiters: read as one cell
    format_missing: list[str] = field(default_factory=list)  # the format's required columns not in the header
    skipped_reasons: dict[str, int] = field(default_factory=dict)  # reason -> rows, summing to rows_skipped
    snapshot_note: str | None = None  # why date columns gave no snapshot date ("updated_at: day/month order …")
    bytes_scanned: int | None = None  # BigQuery: bytes the read scanned (dry-run estimate), None elsewhere
    bytes_exact: bool = True  # False: the engine gave no estimate, bytes_scanned is a lower bound
    # of CHECKED_FIELDS, those the source has no column for at all (not: a column left blank), so a
    # readiness check says "not in this export" instead of every row missing it; [] when unknown
    absent_fields: list[str] = field(default_factory=list)
    # BigQuery above the size line: the table is not downloaded; skills that can aggregate in BigQuery
    # run their SQL through this (agent.catalog.bigquery.Pushdown), the others say they cannot
    pushdown: Any = None


@dataclass(frozen=True)
class Unreadable:
    """An input we were given but could not use; always reported back, never dropped."""

    name: str  # file name, URI as given, or "part 3" when nameless
    reason: str  # fixed human phrase: "application/pdf is not CSV", "file links are not fetched"


@dataclass
class LoadedCatalog:
    """One side of the comparison (own catalog or reference): a canonical table and its sources."""

    table: pa.Table  # canonical schema (agent.catalog.canonical.SCHEMA), all statuses included
    sources: list[SourceEvidence]

    @property
    def snapshot_date(self) -> dt.date | None:
        dates = [source.snapshot_date for source in self.sources if source.snapshot_date]
        return max(dates) if dates else None


@dataclass
class CatalogInputs:
    """Everything the catalog layer hands to analysis for one turn."""

    own: LoadedCatalog | None
    reference: LoadedCatalog | None = None
    unreadable: list[Unreadable] = field(default_factory=list)
    # Fixed, human sentences about sources that failed ("The configured catalog could not be read.");
    # the detail is in the log, never here.
    problems: list[str] = field(default_factory=list)
    taxonomy_version: str = "2021-09-21"
    # Merchant Center Best sellers (agent.catalog.bestsellers): its normalised demand table and sources
    demand: LoadedCatalog | None = None
