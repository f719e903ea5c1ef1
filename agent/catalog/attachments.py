"""A file part the service already decoded and judged to be CSV (or Parquet)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attachment:
    """One attached catalog file. The service decodes base64 and picks a name before we see it."""

    name: str  # the part's file name, or "attachment-N.csv" when nameless
    data: bytes
    mime_type: str | None = None
