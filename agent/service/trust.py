"""Whether a `params.catalog_context` may be used (SPEC §7): shape, prefixes, signature, merchant binding.

Deny by default: a catalog_context is honoured only when
1. it matches schemas/catalog_context.json (merchant_id, catalog_uri, optional reference_uri and
   signature, nothing else);
2. every URI in it is a plain `gs://bucket/object-or-prefix` under one of ALLOWED_CATALOG_PREFIXES
   (default: the configured catalog bucket; a prefix may hold `{merchant_id}`, which then must be the
   caller's merchant). http(s)://, file://, local paths, metadata-server addresses, `.`/`..` segments,
   percent-encoding, backslashes, `?`/`#` and control characters never pass. A `bq://project.dataset[.table]`
   (agent.bqref) passes only under a `bq://` prefix of the same project and dataset (see
   bq_uri_allowed); a dataset names the caller's own `Products_<merchant_id>`;
3. when CATALOG_CONTEXT_SECRET is set, `signature` is the hex HMAC-SHA256 of the canonical JSON below,
   compared in constant time;
4. the conversation is not bound to another merchant.
All checks run before any I/O, and every refusal gets the same neutral message (REFUSED), so a caller
learns nothing about buckets, prefixes or which check failed.

Canonical JSON (what is signed): the catalog_context object without `signature`, serialised as
`json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` and encoded as UTF-8 —
keys in code-point order, no whitespace, strings with JSON's minimal escapes, non-ASCII kept as is.
Example: {"catalog_uri":"gs://acme-catalog/acme/","merchant_id":"acme"}.

A trusted caller signs with `sign(fields, secret)`, or from a shell:
    echo '{"merchant_id":"acme","catalog_uri":"gs://acme-catalog/acme/"}' \
      | CATALOG_CONTEXT_SECRET=… python -m agent.service.trust sign
which prints the catalog_context with its `signature` added.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from agent import gsuri
from agent.bqref import BadBqUri, is_bq, parse_bq_uri
from agent.protocol.errors import INVALID_PARAMS, RpcError

REFUSED = "params.catalog_context was not accepted."
REQUIRED = "params.catalog_context is required in this conversation."
NOT_YOURS = "This conversation cannot be continued by this caller; start a new conversation."
ANONYMOUS = "anonymous"
ALLOWED_FIELDS = frozenset({"merchant_id", "catalog_uri", "reference_uri", "signature"})
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schemas" / "catalog_context.json"
MERCHANT_PLACEHOLDER = "{merchant_id}"
_MERCHANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_FORBIDDEN_IN_PATH = re.compile(r"[\x00-\x1f\x7f\\%?#]")  # on top of agent.gsuri.split's rules


@dataclass(frozen=True)
class TrustedContext:
    merchant_id: str
    catalog_uri: str | None
    reference_uri: str | None


def canonical_json(fields: dict[str, Any]) -> bytes:
    body = {k: v for k, v in fields.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(fields: dict[str, Any], secret: str) -> str:
    """Hex HMAC-SHA256 of the canonical JSON of `fields` (any `signature` in it is left out)."""
    return hmac.new(secret.encode("utf-8"), canonical_json(fields), hashlib.sha256).hexdigest()


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _bucket_allowed(bucket: str) -> bool:
    if bucket.startswith("goog"):
        return False
    try:  # GCS refuses IP-address bucket names; refuse them here too (169.254.169.254 and friends)
        ipaddress.ip_address(bucket)
        return False
    except ValueError:
        return True


def bq_uri_allowed(uri: str, prefixes: Sequence[str], merchant_id: str) -> bool:
    """A bq:// location, resolved for the caller's merchant, inside an allowed bq:// prefix.

    The same rules as gs://, written for tables: `bq://project.dataset` in ALLOWED_CATALOG_PREFIXES
    admits any table of that dataset (as a bucket prefix admits its objects);
    `bq://project.dataset.Products_{merchant_id}` admits only the caller's own table. A context's
    `bq://project.dataset` names the caller's `Products_<merchant_id>`, so it is checked as that table.
    """
    try:
        ref = parse_bq_uri(uri).for_merchant(merchant_id)
    except BadBqUri:
        return False
    for prefix in prefixes:
        if not is_bq(prefix):
            continue
        try:
            allowed = parse_bq_uri(prefix.replace(MERCHANT_PLACEHOLDER, merchant_id))
        except BadBqUri:
            continue  # a placeholder filled with a merchant id that is no table name admits nothing
        if (allowed.project, allowed.dataset) != (ref.project, ref.dataset):
            continue
        if allowed.table is None or allowed.table == ref.table:
            return True
    return False


def uri_allowed(uri: Any, prefixes: Sequence[str], merchant_id: str) -> bool:
    """True only for a clean gs:// (or bq://) URI under an allowed prefix. Pure string checks, no I/O."""
    if is_bq(uri):
        return bq_uri_allowed(uri, prefixes, merchant_id)
    try:
        bucket, path = gsuri.split(uri)  # http(s)://, file://, local paths, metadata-server URLs never pass
    except ValueError:
        return False
    if not _bucket_allowed(bucket) or _FORBIDDEN_IN_PATH.search(path):
        return False
    segments = path.split("/")
    if any(seg in (".", "..") for seg in segments) or "" in segments[:-1]:
        return False  # climbing out of a prefix, or "//" tricks
    for prefix in prefixes:
        if is_bq(prefix):
            continue
        prefix = prefix.replace(MERCHANT_PLACEHOLDER, merchant_id)
        if not prefix.endswith("/"):
            prefix += "/"
        if uri.startswith(prefix) or uri + "/" == prefix:
            return True
    return False


def verify(raw: Any, *, prefixes: Sequence[str], secret: str | None, bound_merchant: str | None) -> TrustedContext:
    """The trusted context, or RpcError(-32602, REFUSED). No I/O happens here."""
    if not isinstance(raw, dict) or set(raw) - ALLOWED_FIELDS or not _validator().is_valid(raw):
        raise RpcError(INVALID_PARAMS, REFUSED)
    merchant = raw["merchant_id"]
    if not _MERCHANT.fullmatch(merchant):  # match() would let a trailing newline through ($)
        raise RpcError(INVALID_PARAMS, REFUSED)
    for key in ("catalog_uri", "reference_uri"):
        if key in raw and not uri_allowed(raw[key], prefixes, merchant):
            raise RpcError(INVALID_PARAMS, REFUSED)
    if secret:
        given = raw.get("signature")
        expected = sign(raw, secret).encode("ascii")
        if not isinstance(given, str) or not hmac.compare_digest(given.strip().lower().encode("utf-8"), expected):
            raise RpcError(INVALID_PARAMS, REFUSED)
    if bound_merchant is not None and bound_merchant != merchant:
        raise RpcError(INVALID_PARAMS, REFUSED)
    return TrustedContext(merchant, raw.get("catalog_uri"), raw.get("reference_uri"))


def party_of(trusted: TrustedContext | None, caller: str | None) -> str:
    """Who a turn or a tasks/* call acts for (SPEC §7): the merchant of a verified catalog_context,
    else the authenticated caller (as a digest: it is stored, and may be an e-mail address), else
    anonymous. Contexts and tasks are bound to the party that created them."""
    if trusted is not None:
        return f"merchant:{trusted.merchant_id}"
    if caller:
        return "caller:" + hashlib.sha256(caller.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return ANONYMOUS


def _main(argv: list[str]) -> int:
    """`python -m agent.service.trust sign`: JSON on stdin, CATALOG_CONTEXT_SECRET in the environment."""
    from agent.config import catalog_context_secret

    if argv[:1] != ["sign"]:
        print(
            "usage: CATALOG_CONTEXT_SECRET=… python -m agent.service.trust sign < catalog_context.json", file=sys.stderr
        )
        return 2
    secret = catalog_context_secret()
    if not secret:
        print("CATALOG_CONTEXT_SECRET is not set", file=sys.stderr)
        return 2
    try:
        fields = json.load(sys.stdin)
    except ValueError:
        print("stdin is not JSON", file=sys.stderr)
        return 2
    if not isinstance(fields, dict):
        print("stdin must hold a JSON object", file=sys.stderr)
        return 2
    fields = {k: v for k, v in fields.items() if k != "signature"}
    if not _validator().is_valid(fields):
        print(
            "not a valid catalog_context: merchant_id and catalog_uri (gs://… or bq://…) are required, "
            "reference_uri is optional, nothing else is allowed",
            file=sys.stderr,
        )
        return 2
    print(json.dumps(dict(fields, signature=sign(fields, secret)), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
