"""Cloud Storage access for catalog snapshots: locate the snapshot object, read its bytes.

Why this shape:
* One storage client per process (per endpoint), created lazily and shared by all threads — client
  construction and the google.cloud import are slow, and cold start matters for a Cloud Function.
* Every call has a short timeout and a bounded retry, so an unreachable or hung store fails a turn
  in seconds (with a clear line in the answer), not after the library's 120 s default.
* Every failure becomes `SourceUnavailable` with a fixed message and a short `reason` code. Bucket
  and object names go to the log only; they never reach an exception message, because messages can
  end up in an answer.
* `resolve` results are memoised for a few seconds (`RESOLVE_MEMO`) so a burst of turns costs one
  metadata call, or none, for an unchanged object.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent import budget
from agent.catalog.cache import DEFAULT_RESOLVE_TTL_S, Cache, SingleFlight
from agent.catalog.errors import CatalogError
from agent.config import storage_emulator_host
from agent.gsuri import is_gs
from agent.gsuri import split as parse_gs_uri  # the one gs:// parser

if TYPE_CHECKING:
    from google.cloud.storage import Client

log = logging.getLogger(__name__)

SNAPSHOT_EXTENSIONS = (".csv", ".tsv", ".parquet")
POINTER_NAME = "latest.json"
MAX_POINTER_BYTES = 64 * 1024

# Per HTTP request: (connect, read) seconds; the read timeout is per socket read, not per download. The
# state store uses the same (agent/store/gcs.py).
TIMEOUT: tuple[float, float] = (3.05, 30.0)
# Total time the retry of one call may take (transient 5xx, 429, connection resets).
RETRY_DEADLINE_S = 4.0
HTTP_POOL_SIZE = 32


# Fixed, human messages per failure reason. No names, no exception text.
MESSAGES = {
    "invalid_location": "The catalog location is not a valid gs:// address.",
    "not_found": "The catalog location was not found in Cloud Storage.",
    "forbidden": "Access to the catalog location in Cloud Storage was denied.",
    "unreachable": "Cloud Storage could not be reached.",
    "timeout": "Cloud Storage did not answer in time.",
    "credentials": "No credentials are available to read Cloud Storage.",
    "no_snapshot": "No CSV or Parquet snapshot was found at the catalog location.",
    "bad_pointer": "The catalog's latest.json does not name a readable snapshot.",
    "changed": "The catalog snapshot changed while it was being read.",
    "unavailable": "Cloud Storage could not be read.",
}


class SourceUnavailable(CatalogError):
    """A Cloud Storage location could not be read. `str()` is a fixed sentence; `reason` a code."""

    def __init__(self, reason: str = "unavailable") -> None:
        self.reason = reason if reason in MESSAGES else "unavailable"
        super().__init__(MESSAGES[self.reason])


class SnapshotChanged(SourceUnavailable):
    """The object was replaced between resolve() and download(); resolving again will help."""

    def __init__(self) -> None:
        super().__init__("changed")


@dataclass(frozen=True)
class ObjectRef:
    """One exact snapshot object: what the cache is keyed by and the evidence footer names."""

    uri: str  # "gs://bucket/name"
    name: str
    bucket: str
    generation: int
    size: int | None


def is_prefix(path: str) -> bool:
    """A location names a prefix when it is empty, ends in "/", or its last segment has no extension."""
    return path == "" or path.endswith("/") or "." not in path.rsplit("/", 1)[-1]


# --- client ---------------------------------------------------------------------------------------

_clients: dict[str | None, Any] = {}
_client_lock = threading.Lock()


def client() -> "Client":
    """The process's storage client for the current endpoint (emulator or Google), made on first use.

    With STORAGE_EMULATOR_HOST set (the library routes to it), anonymous credentials and project
    "local"; otherwise Application Default Credentials. Keyed by the emulator setting so that tests
    switching emulators get a matching client; in production there is exactly one.
    """
    key = storage_emulator_host()
    found = _clients.get(key)
    if found is not None:
        return found
    with _client_lock:
        found = _clients.get(key)
        if found is None:
            found = _make_client(emulated=key is not None)
            _clients[key] = found
    return found


def _make_client(emulated: bool) -> "Client":
    from google.cloud import storage

    if emulated:
        from google.auth.credentials import AnonymousCredentials

        made = storage.Client(project="local", credentials=AnonymousCredentials())
    else:
        made = storage.Client()
    _widen_http_pool(made)
    _skip_bucket_metadata_prefetch(made)
    return made


def _skip_bucket_metadata_prefetch(made: Any) -> None:
    """Stop the library's background bucket GET (one thread + request per new bucket).

    google-cloud-storage 3.17 fetches bucket metadata in a background thread only to label
    OpenTelemetry spans, which we do not export. It needs storage.buckets.get (a reader role lacks
    it) and would run after a function's response. Best effort: the attribute is private.
    """
    if hasattr(made, "_bucket_metadata_cache"):
        made._bucket_metadata_cache = None


def _widen_http_pool(made: Any) -> None:
    """Let up to HTTP_POOL_SIZE threads share the client without pool-full churn (best effort)."""
    try:
        from requests.adapters import HTTPAdapter

        session = made._http
        for scheme in ("https://", "http://"):
            session.mount(scheme, HTTPAdapter(pool_connections=4, pool_maxsize=HTTP_POOL_SIZE))
    except Exception:  # a private attribute may move between library versions; defaults still work
        log.debug("could not widen the storage HTTP pool", exc_info=True)


def retry(deadline_s: float | None = None):
    """The one retry policy of every Cloud Storage call, catalog and state store alike: the library's
    transient errors (5xx, 429, resets) retried with backoff from 0.1 s to 1 s, for at most `deadline_s`
    (RETRY_DEADLINE_S here; the store passes its own) and never past the turn's storage budget."""
    from google.cloud.storage.retry import DEFAULT_RETRY

    deadline = RETRY_DEADLINE_S if deadline_s is None else deadline_s
    return DEFAULT_RETRY.with_delay(initial=0.1, maximum=1.0, multiplier=2.0).with_timeout(
        budget.retry_deadline(deadline)
    )


# --- errors ---------------------------------------------------------------------------------------


def _reason_for(exc: BaseException) -> str:
    """Map a library/transport exception to one of MESSAGES' reason codes."""
    import requests
    from google.api_core import exceptions as api
    from google.auth import exceptions as auth

    if isinstance(exc, api.RetryError):
        cause = exc.cause
        return _reason_for(cause) if cause is not None else "timeout"
    if isinstance(exc, SourceUnavailable):
        return exc.reason
    if isinstance(exc, api.NotFound):
        return "not_found"
    if isinstance(exc, (api.Forbidden, api.Unauthorized)):
        return "forbidden"
    if isinstance(exc, api.PreconditionFailed):
        return "changed"
    if isinstance(exc, (requests.Timeout, TimeoutError, api.DeadlineExceeded)):
        return "timeout"
    if isinstance(exc, auth.DefaultCredentialsError):
        return "credentials"
    if isinstance(exc, (requests.ConnectionError, ConnectionError, auth.TransportError)):
        return "unreachable"
    if isinstance(exc, auth.RefreshError):
        return "credentials"
    return "unavailable"


def _fail(action: str, uri: str, exc: BaseException) -> SourceUnavailable:
    """Log the detail (with the location) and build the name-free exception to raise."""
    reason = _reason_for(exc)
    log.warning("Cloud Storage %s failed for %s: %s (%s: %s)", action, uri, reason, type(exc).__name__, exc)
    return SnapshotChanged() if reason == "changed" else SourceUnavailable(reason)


# --- resolve --------------------------------------------------------------------------------------

RESOLVE_MEMO: Cache[ObjectRef] = Cache(ttl=DEFAULT_RESOLVE_TTL_S, max_entries=1024)  # locations are few
_RESOLVING = SingleFlight()


def resolve(uri: str, *, fresh: bool = False) -> ObjectRef:
    """The exact snapshot object a location stands for, with its generation and size.

    A file location is looked up directly (one metadata call). A prefix ("…/", or no extension)
    resolves through `<prefix>latest.json` ({"snapshot": "<object name>"}, relative to the prefix or
    an absolute object name in the same bucket, inside the prefix), else the last object name in lexical order among
    .csv/.tsv/.parquet objects under the prefix. Results are memoised for RESOLVE_MEMO.ttl seconds
    unless `fresh`. Raises SourceUnavailable (never anything else).
    """
    if not fresh:
        memo = RESOLVE_MEMO.get(uri)
        if memo is not None:
            return memo
    # Concurrent turns asking for the same location share one round of metadata calls.
    return _RESOLVING.do((uri, fresh), lambda: _resolve_now(uri))


def _resolve_now(uri: str) -> ObjectRef:
    try:
        bucket, path = parse_gs_uri(uri)
    except ValueError as exc:
        raise _fail("resolve", repr(uri), SourceUnavailable("invalid_location")) from exc
    try:
        ref = _resolve_prefix(bucket, path) if is_prefix(path) else _lookup(bucket, path)
    except SourceUnavailable as exc:
        log.warning("Cloud Storage resolve failed for %s: %s", uri, exc.reason)
        raise
    except Exception as exc:
        raise _fail("resolve", uri, exc) from exc
    if ref is None:
        log.warning("Cloud Storage object not found: %s", uri)
        raise SourceUnavailable("not_found")
    RESOLVE_MEMO.put(uri, ref)
    log.debug("resolved %s -> %s (generation %s)", uri, ref.uri, ref.generation)
    return ref


def _ref_from_blob(blob: Any) -> ObjectRef:
    size = blob.size
    return ObjectRef(
        uri=f"gs://{blob.bucket.name}/{blob.name}",
        name=blob.name,
        bucket=blob.bucket.name,
        generation=int(blob.generation),
        size=int(size) if size is not None else None,
    )


def _lookup(bucket: str, name: str) -> ObjectRef | None:
    """One metadata GET; None when the object (or the bucket) does not exist."""
    with budget.call(TIMEOUT) as timeout:
        blob = client().bucket(bucket).get_blob(name, timeout=timeout, retry=retry())
    return _ref_from_blob(blob) if blob is not None else None


def _resolve_prefix(bucket: str, path: str) -> ObjectRef:
    prefix = path if path == "" or path.endswith("/") else path + "/"
    pointer = _read_pointer(bucket, prefix)
    if pointer is not None:
        return _follow_pointer(bucket, prefix, pointer)
    best = None
    with budget.call(TIMEOUT) as timeout:  # the listing's pages are fetched as it is iterated
        listing = client().list_blobs(
            bucket,
            prefix=prefix,
            timeout=timeout,
            retry=retry(),
            fields="items(name,generation,size),nextPageToken",
        )
        for blob in listing:
            if blob.name.lower().endswith(SNAPSHOT_EXTENSIONS) and (best is None or blob.name > best.name):
                best = blob
    if best is None:
        raise SourceUnavailable("no_snapshot")
    if best.generation is None:  # a listing without generations (not expected): ask once
        ref = _lookup(bucket, best.name)
        if ref is None:
            raise SourceUnavailable("not_found")
        return ref
    return ObjectRef(
        uri=f"gs://{bucket}/{best.name}",
        name=best.name,
        bucket=bucket,
        generation=int(best.generation),
        size=int(best.size) if best.size is not None else None,
    )


def _read_pointer(bucket: str, prefix: str) -> str | None:
    """The snapshot named by <prefix>latest.json, or None when there is no such object."""
    from google.api_core import exceptions as api

    blob = client().bucket(bucket).blob(prefix + POINTER_NAME)
    try:
        with budget.call(TIMEOUT) as timeout:
            raw = blob.download_as_bytes(timeout=timeout, retry=retry())
    except api.NotFound:
        return None
    if len(raw) > MAX_POINTER_BYTES:
        raise SourceUnavailable("bad_pointer")
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
        snapshot = doc["snapshot"]
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("unreadable %s under gs://%s/%s: %s", POINTER_NAME, bucket, prefix, exc)
        raise SourceUnavailable("bad_pointer") from exc
    if not isinstance(snapshot, str) or not snapshot.strip():
        raise SourceUnavailable("bad_pointer")
    return snapshot.strip()


def _follow_pointer(bucket: str, prefix: str, snapshot: str) -> ObjectRef:
    """Resolve latest.json's name: a gs:// URI in the same bucket, an absolute name, or relative."""
    if is_gs(snapshot):
        try:
            other_bucket, name = parse_gs_uri(snapshot)
        except ValueError as exc:
            raise SourceUnavailable("bad_pointer") from exc
        if other_bucket != bucket or is_prefix(name):
            log.warning("latest.json under gs://%s/%s points outside its bucket or at a prefix", bucket, prefix)
            raise SourceUnavailable("bad_pointer")
        candidates = [name]
    else:
        name = snapshot.lstrip("/")
        if not name or any(seg in (".", "..") for seg in name.split("/")):
            raise SourceUnavailable("bad_pointer")
        if snapshot.startswith("/") or (prefix and name.startswith(prefix)):
            candidates = [name]
        else:
            candidates = [prefix + name, name] if prefix else [name]
    # latest.json names a snapshot inside its own folder, never elsewhere in the bucket: a location that
    # passed the allowed-prefix check (a trusted catalog_context) must not be steered out of it.
    candidates = [object_name for object_name in candidates if object_name.startswith(prefix)]
    if not candidates:
        log.warning("latest.json under gs://%s/%s points outside its folder", bucket, prefix)
        raise SourceUnavailable("bad_pointer")
    for candidate in dict.fromkeys(candidates):
        ref = _lookup(bucket, candidate)
        if ref is not None:
            return ref
    log.warning("latest.json under gs://%s/%s names a missing object %r", bucket, prefix, snapshot)
    raise SourceUnavailable("bad_pointer")


# --- download -------------------------------------------------------------------------------------


def download(ref: ObjectRef) -> bytes:
    """The object's bytes, only if it is still the generation `ref` names.

    Google answers 412 when the object was replaced since resolve(); some emulators ignore the
    precondition but report the served generation, which is checked too. Either way the caller gets
    SnapshotChanged (and resolve()'s memo for the object is dropped).
    """
    try:
        blob = client().bucket(ref.bucket).blob(ref.name)
        with budget.call(TIMEOUT) as timeout:
            data = blob.download_as_bytes(if_generation_match=ref.generation, timeout=timeout, retry=retry())
    except Exception as exc:
        err = _fail("download", ref.uri, exc)
        if isinstance(err, SnapshotChanged):
            _forget(ref)
        raise err from exc
    served = blob.generation
    if served is not None and int(served) != ref.generation:
        log.warning("Cloud Storage served generation %s of %s, expected %s", served, ref.uri, ref.generation)
        _forget(ref)
        raise SnapshotChanged()
    log.info("downloaded %s (generation %s, %d bytes)", ref.uri, ref.generation, len(data))
    return data


def _forget(ref: ObjectRef) -> None:
    """Drop memoised resolutions that point at `ref`, so the next resolve() asks again."""
    RESOLVE_MEMO.invalidate(ref.uri)
    RESOLVE_MEMO.drop_values(lambda value: value == ref)
