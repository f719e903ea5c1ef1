"""Whether a `params.catalog_context` may be used (SPEC §7): prefixes, signature, merchant binding.

Deny by default: a catalog_context is honoured only when every URI in it falls under
ALLOWED_CATALOG_PREFIXES (default: the configured catalog bucket), and — when CATALOG_CONTEXT_SECRET is
set — when it is signed. All checks run before any I/O, and every refusal gets the same neutral
message so a caller learns nothing about buckets or paths.

Signature: hex HMAC-SHA256, keyed with the secret, over the canonical JSON of the other fields:
`json.dumps(fields_without_signature, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
encoded as UTF-8. `sign()` below is the helper a trusted caller can reuse.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from agent.protocol.errors import INVALID_PARAMS, RpcError

REFUSED = "params.catalog_context was not accepted."
ALLOWED_FIELDS = frozenset({"merchant_id", "catalog_uri", "reference_uri", "signature"})
_MERCHANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_GS_OBJECT = re.compile(r"^gs://[a-z0-9][a-z0-9._-]{1,220}[a-z0-9](/[^\x00-\x1f\x7f]*)?$")


@dataclass(frozen=True)
class TrustedContext:
    merchant_id: str
    catalog_uri: str | None
    reference_uri: str | None


def canonical_json(fields: dict[str, Any]) -> bytes:
    body = {k: v for k, v in fields.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(fields: dict[str, Any], secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), canonical_json(fields), hashlib.sha256).hexdigest()


def _uri_allowed(uri: Any, prefixes: Sequence[str]) -> bool:
    if not isinstance(uri, str) or not _GS_OBJECT.match(uri):
        return False  # http(s)://, file://, metadata-server addresses and local paths never pass
    path = uri[len("gs://"):]
    if any(seg in ("..", ".") for seg in path.split("/")) or "\\" in path or "%" in path:
        return False
    return any(uri.startswith(p if p.endswith("/") else p + "/") for p in prefixes)


def verify(raw: Any, *, prefixes: Sequence[str], secret: str | None, bound_merchant: str | None) -> TrustedContext:
    """The trusted context, or RpcError(-32602, neutral message). No I/O happens here."""
    if not isinstance(raw, dict) or set(raw) - ALLOWED_FIELDS:
        raise RpcError(INVALID_PARAMS, REFUSED)
    merchant = raw.get("merchant_id")
    if not isinstance(merchant, str) or not _MERCHANT.match(merchant):
        raise RpcError(INVALID_PARAMS, REFUSED)
    for key in ("catalog_uri", "reference_uri"):
        if key in raw and not _uri_allowed(raw[key], prefixes):
            raise RpcError(INVALID_PARAMS, REFUSED)
    if "catalog_uri" not in raw:
        raise RpcError(INVALID_PARAMS, REFUSED)
    if secret:
        given = raw.get("signature")
        if not isinstance(given, str) or not hmac.compare_digest(given.lower(), sign(raw, secret)):
            raise RpcError(INVALID_PARAMS, REFUSED)
    if bound_merchant is not None and bound_merchant != merchant:
        raise RpcError(INVALID_PARAMS, REFUSED)
    return TrustedContext(merchant, raw.get("catalog_uri"), raw.get("reference_uri"))
