"""Attached catalogs at rest: the canonical table as Parquet, its evidence as JSON.

Parquet keeps the canonical Arrow schema exactly (dictionary columns, dates, nullable ints), so a
follow-up on another instance analyses the very table the first turn did. The evidence travels in the
context JSON, so the follow-up's footer names the same file with the same rows read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from typing import TYPE_CHECKING, Any

from agent.catalog.evidence import KIND_CONTEXT, SourceEvidence

if TYPE_CHECKING:
    import pyarrow as pa

_FIELDS = {f.name for f in dataclasses.fields(SourceEvidence)}


def table_to_parquet(table: "pa.Table") -> bytes:
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def table_from_parquet(data: bytes) -> "pa.Table":
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data))


def evidence_to_json(evidence: SourceEvidence) -> dict[str, Any]:
    out = dataclasses.asdict(evidence)
    if evidence.snapshot_date is not None:
        out["snapshot_date"] = evidence.snapshot_date.isoformat()
    return out


def evidence_from_json(data: dict[str, Any]) -> SourceEvidence:
    """Stored evidence back as SourceEvidence, labelled as attached earlier in this conversation."""
    fields = {k: v for k, v in data.items() if k in _FIELDS}
    if fields.get("snapshot_date"):
        fields["snapshot_date"] = dt.date.fromisoformat(fields["snapshot_date"])
    fields["kind"] = KIND_CONTEXT
    return SourceEvidence(**fields)
