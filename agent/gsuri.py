"""The one reader of `gs://bucket/path` addresses: configuration, catalog_context and the catalog use it.

It sits below every layer (it imports nothing of the agent) so `agent.config`, `agent.catalog.gcs` and
`agent.service.trust` agree on what a location is. Callers add their own policy on top (trust refuses
`goog…` and IP-address buckets, `%`, `?`, `#` and empty segments; config only needs a well-formed one).
"""

from __future__ import annotations

import re

SCHEME = "gs://"
# Cloud Storage bucket names (lower case, digits, . _ -; 3–222 characters)
BUCKET_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$")
MAX_OBJECT_BYTES = 1024  # Cloud Storage's limit on an object name, UTF-8 encoded


def is_gs(value: object) -> bool:
    """True for a string that names a Cloud Storage location (well formed or not)."""
    return isinstance(value, str) and value.startswith(SCHEME)


def split(uri: str) -> tuple[str, str]:
    """Split "gs://bucket/path" into (bucket, path); path may be "" (bucket root) or end in "/".

    Raises ValueError for anything else: other schemes, bad bucket names, control characters,
    "." or ".." path segments (no location may climb out of the prefix it was configured under).
    """
    if not is_gs(uri):
        raise ValueError("not a gs:// URI")
    bucket, _, path = uri[len(SCHEME) :].partition("/")
    if not BUCKET_NAME.match(bucket) or ".." in bucket:
        raise ValueError("invalid bucket name")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in path):
        raise ValueError("control character in object name")
    if any(seg in (".", "..") for seg in path.split("/")):
        raise ValueError("relative segment in object name")
    if len(path.encode("utf-8")) > MAX_OBJECT_BYTES:
        raise ValueError("object name too long")
    return bucket, path
