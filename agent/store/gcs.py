"""Cloud Storage store (`STATE_BUCKET`): any instance can serve any turn of any conversation.

Layout in the state bucket (ids that are not plain `[A-Za-z0-9._-]` are hashed, so nothing a client
sends becomes a path):

    tasks/<task id>.json                 {"task": <A2A Task>, "written_at": …}; object metadata "state"
    tasks/<task id>.cancel               empty marker: a cancel was requested (on any instance)
    contexts/<context id>/context.json   merchant, plan memory, task ids, attached catalogs (evidence)
    contexts/<context id>/catalog-<n>.parquet   one attached catalog, written once

Why this shape:
* Every JSON write carries `if_generation_match` (0 for "must not exist yet"); a 412 means another
  instance wrote first, so the change is re-applied to a fresh read and tried again. Nothing is
  overwritten blindly.
* Writes happen on state transitions only (create, working, final, cancel flag, one per turn for the
  context) — GCS allows about one write per second per object.
* A task's state also sits in the object's metadata, so waiting for a state or refusing a write over a
  terminal task is one metadata GET, not a download of a history that may hold a 30 MB attachment.
* The running task polls the cancel marker with an existence check, at most once per
  CANCEL_POLL_S per task.
* The bucket's lifecycle rule deletes objects after STATE_TTL_DAYS (deploy.sh); the same TTL is
  applied on read from the `written_at` the store records, so an object past it is "not found" even
  before the lifecycle job runs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import random
import re
import threading
import time
from typing import Any, Callable

from agent import budget
from agent.catalog.cache import TABLE_CACHE
from agent.catalog.evidence import LoadedCatalog
from agent.catalog.gcs import TIMEOUT, retry

from . import catalogs as codec
from .base import (
    ANONYMOUS,
    TERMINAL,
    ContextChange,
    ContextState,
    NotCancelable,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
    utc_now,
)

log = logging.getLogger(__name__)

CANCEL_POLL_S = 0.5
MAX_ATTEMPTS = 16  # read-modify-write rounds before giving up on a contended object (2 writers is the norm)
# A lost state write loses a turn, so a store call may retry twice as long as a catalog read; the
# policy and the per-request timeout are the catalog's (agent/catalog/gcs.py: one for both).
RETRY_DEADLINE_S = 8.0
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")


class StoreConflict(StoreError):
    """An object stayed contended through every retry (should not happen in practice)."""


def object_key(raw_id: str) -> str:
    """An id as an object-name segment: itself when plainly safe, else `~` + its SHA-256."""
    if _SAFE_ID.match(raw_id):
        return raw_id
    return "~" + hashlib.sha256(raw_id.encode("utf-8", "surrogatepass")).hexdigest()


def _retry():
    """The catalog's retry policy (`agent.catalog.gcs.retry`), with the store's longer deadline."""
    return retry(RETRY_DEADLINE_S)


def _precondition_failed() -> type[BaseException]:
    from google.api_core.exceptions import PreconditionFailed

    return PreconditionFailed


def _not_found() -> type[BaseException]:
    from google.api_core.exceptions import NotFound

    return NotFound


def _unavailable() -> tuple[type[BaseException], ...]:
    """What a storage call raises when the bucket does not answer: a timeout or spent budget (OSError:
    TimeoutError, requests' connection errors), an API error after retries, an auth transport error."""
    from google.api_core.exceptions import GoogleAPIError
    from google.auth.exceptions import GoogleAuthError

    return (OSError, GoogleAPIError, GoogleAuthError)


def _backoff(attempt: int) -> None:
    time.sleep(min(0.5, 0.02 * (2**attempt)) * (0.5 + random.random()))


class Bucket:
    """JSON and bytes objects in one bucket, with generations, preconditions and the read-side TTL."""

    def __init__(self, name: str, ttl_days: float, clock: Callable[[], dt.datetime] = utc_now) -> None:
        self.name = name
        self.ttl = dt.timedelta(days=ttl_days)
        self.clock = clock

    def _bucket(self) -> Any:
        from agent.catalog import gcs

        return gcs.client().bucket(self.name)

    def blob(self, name: str) -> Any:
        return self._bucket().blob(name)

    def expired(self, written_at: str | None) -> bool:
        if not written_at:
            return False
        try:
            when = dt.datetime.fromisoformat(written_at)
        except ValueError:
            return True
        return self.clock() - when > self.ttl

    def stamp(self) -> str:
        return self.clock().isoformat()

    def read_json(self, name: str) -> tuple[dict[str, Any] | None, int]:
        """(document or None when missing/expired, generation to write against: 0 = absent).
        StoreCorrupt when the object holds something other than a JSON object."""
        blob = self.blob(name)
        try:
            with budget.call(TIMEOUT) as timeout:
                data = blob.download_as_bytes(timeout=timeout, retry=_retry())
        except _not_found():
            return None, 0
        generation = blob.generation
        if generation is None:  # an emulator that sends no generation header: ask for it
            with budget.call(TIMEOUT) as timeout:
                blob.reload(timeout=timeout, retry=_retry())
            generation = blob.generation
        try:
            doc = json.loads(data)
        except ValueError:  # not JSON, or not UTF-8 (UnicodeDecodeError is a ValueError)
            raise StoreCorrupt(name) from None
        if not isinstance(doc, dict):
            raise StoreCorrupt(name)
        if self.expired(doc.get("written_at")):
            return None, int(generation)
        return doc, int(generation)

    def meta(self, name: str) -> Any | None:
        """The object's metadata (generation, custom metadata) without its content; None if missing."""
        with budget.call(TIMEOUT) as timeout:
            return self._bucket().get_blob(name, timeout=timeout, retry=_retry())

    def write_json(
        self, name: str, doc: dict[str, Any], generation: int, metadata: dict[str, str] | None = None
    ) -> int:
        """Write if the object is still at `generation` (0: absent). Raises PreconditionFailed if not."""
        stamp = self.stamp()
        doc["written_at"] = stamp
        blob = self.blob(name)
        blob.metadata = dict(metadata or {}, written_at=stamp)
        payload = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        with budget.call(TIMEOUT) as timeout:
            blob.upload_from_string(
                payload,
                content_type="application/json",
                if_generation_match=generation,
                timeout=timeout,
                retry=_retry(),
            )
        return int(blob.generation or 0)

    def write_new(self, name: str, data: bytes, content_type: str) -> int:
        """Create an object that must not exist yet. Raises PreconditionFailed if it does."""
        blob = self.blob(name)
        with budget.call(TIMEOUT) as timeout:
            blob.upload_from_string(
                data, content_type=content_type, if_generation_match=0, timeout=timeout, retry=_retry()
            )
        if blob.generation is None:
            with budget.call(TIMEOUT) as timeout:
                blob.reload(timeout=timeout, retry=_retry())
        return int(blob.generation)

    def read_bytes(self, name: str, generation: int | None) -> bytes | None:
        blob = self.blob(name)
        try:
            with budget.call(TIMEOUT) as timeout:
                return blob.download_as_bytes(if_generation_match=generation, timeout=timeout, retry=_retry())
        except _not_found():
            return None

    def exists(self, name: str) -> bool:
        with budget.call(TIMEOUT) as timeout:
            return bool(self.blob(name).exists(timeout=timeout, retry=_retry()))

    def delete_quietly(self, name: str) -> None:
        try:
            with budget.call(TIMEOUT) as timeout:
                self.blob(name).delete(timeout=timeout, retry=_retry())
        except Exception:  # noqa: BLE001 - best effort: the lifecycle rule removes it anyway
            log.info("could not delete gs://%s/%s; the lifecycle rule will", self.name, name)


# --- tasks ------------------------------------------------------------------------------------------


class GcsTaskStore:
    poll_interval = 0.25

    def __init__(self, bucket: Bucket) -> None:
        self.bucket = bucket
        self._canceled_here: set[str] = set()
        self._polled: dict[str, tuple[float, bool]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _name(task_id: str) -> str:
        return f"tasks/{object_key(task_id)}.json"

    @staticmethod
    def _marker(task_id: str) -> str:
        return f"tasks/{object_key(task_id)}.cancel"

    def _stored(self, task_id: str) -> tuple[str | None, int, str | None]:
        """(state or None when missing/expired, generation, party) from one metadata GET."""
        blob = self.bucket.meta(self._name(task_id))
        if blob is None:
            return None, 0, None
        meta = blob.metadata or {}
        if self.bucket.expired(meta.get("written_at")):
            return None, int(blob.generation), None
        return meta.get("state"), int(blob.generation), meta.get("party") or ANONYMOUS

    def _stored_state(self, task_id: str) -> tuple[str | None, int]:
        state, generation, _ = self._stored(task_id)
        return state, generation

    def _write(self, task: dict[str, Any], generation: int, party: str) -> None:
        self.bucket.write_json(
            self._name(task["id"]),
            {"task": task, "party": party},
            generation,
            metadata={"state": task["status"]["state"], "party": party},
        )

    def _transition(self, task: dict[str, Any]) -> bool:
        """Write `task` unless the stored one is terminal; False when it was (nothing written). The
        stored party is kept."""
        for attempt in range(MAX_ATTEMPTS):
            state, generation, party = self._stored(task["id"])
            if state in TERMINAL:
                return False
            try:
                self._write(task, generation, party or ANONYMOUS)
                return True
            except _precondition_failed():
                _backoff(attempt)
        raise StoreConflict(task["id"])

    def create(self, task: dict[str, Any], party: str = ANONYMOUS) -> None:
        try:  # one request on the way to the first frame: the id is new, so "must not exist" holds
            self._write(task, 0, party)
        except _precondition_failed():
            self._transition(task)

    def party(self, task_id: str) -> str | None:
        state, _, party = self._stored(task_id)
        return party if state is not None else None

    def get(self, task_id: str) -> dict[str, Any] | None:
        """The stored task, or None: missing, expired, or a document that is not a task this store
        wrote (answered as an unknown task, never as a 500)."""
        found = self.owned(task_id)
        return found[0] if found is not None else None

    def owned(self, task_id: str) -> tuple[dict[str, Any], str] | None:
        """(task, party) from the one document read: the document carries the party beside the task,
        written with it (`_write`); a document without one is the anonymous party's, as `party` reads
        metadata without one."""
        try:
            doc, _ = self.bucket.read_json(self._name(task_id))
        except StoreCorrupt:
            log.warning("a stored task document is not readable; answered as not found")
            return None
        task = doc.get("task") if doc else None
        if not isinstance(task, dict) or not isinstance(task.get("status"), dict) or "contextId" not in task:
            return None
        party = doc.get("party") if doc else None
        return task, party if isinstance(party, str) and party else ANONYMOUS

    def state(self, task_id: str) -> str | None:
        return self._stored_state(task_id)[0]

    def save(self, task: dict[str, Any]) -> None:
        self._transition(task)

    def finish(self, task: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._polled.pop(task["id"], None)
            self._canceled_here.discard(task["id"])
        if self._transition(task):
            return task
        return self.get(task["id"]) or task

    def request_cancel(self, task_id: str) -> dict[str, Any] | None:
        state, _ = self._stored_state(task_id)
        if state is None:
            return None
        if state in TERMINAL:
            raise NotCancelable(task_id)
        try:
            self.bucket.write_new(self._marker(task_id), b"", "application/octet-stream")
        except _precondition_failed():
            pass  # already flagged
        with self._lock:
            self._canceled_here.add(task_id)
        return self.get(task_id)

    def cancel_requested(self, task_id: str) -> bool:
        now = time.monotonic()
        with self._lock:
            if task_id in self._canceled_here:
                return True
            last = self._polled.get(task_id)
            if last is not None and now - last[0] < CANCEL_POLL_S:
                return last[1]
        try:
            flagged = self.bucket.exists(self._marker(task_id))
        except _unavailable() as exc:
            raise StoreUnavailable(task_id) from exc
        with self._lock:
            if len(self._polled) > 10_000:
                self._polled.clear()
            self._polled[task_id] = (now, flagged)
        return flagged

    def mark_canceled(self, task_id: str, task: dict[str, Any]) -> dict[str, Any]:
        return self.finish(task)


# --- contexts ---------------------------------------------------------------------------------------


# Catalogs downloaded from the state bucket (or just written to it), per process, by (bucket, object,
# generation): a follow-up on the instance that served the first turn downloads nothing. They are
# entries of the one parsed-catalog cache (agent.catalog.cache.TABLE_CACHE, its share of
# MEMORY_BUDGET_BYTES), not a second cache beside it: kept conversations' tables and parsed snapshots
# share one bound, and a table attached in this instance is the very object the attaching turn parsed.
def _catalog_key(bucket: str, name: str, generation: Any) -> tuple:
    return ("context", bucket, name, int(generation))


def _state_from_doc(context_id: str, doc: dict[str, Any] | None, bucket: Bucket) -> ContextState:
    """The conversation a stored record holds. A JSON object that is not this store's record of this
    conversation (no `"v": 1`, another `context_id`: edited by hand, written by another tool, copied
    from another conversation) is StoreCorrupt like non-JSON bytes: read as an empty conversation, its
    next turn would have been written over it and answered as if nothing had been attached."""
    state = ContextState(context_id=context_id)
    if doc is None:
        return state
    if doc.get("v") != 1 or doc.get("context_id") != context_id:
        raise StoreCorrupt(context_id)
    state.merchant_id = doc.get("merchant_id")
    state.party = doc.get("party")
    state.plan_memory = doc.get("plan_memory")
    state.task_ids = list(doc.get("task_ids") or [])
    state.attached_bytes = int(doc.get("attached_bytes") or 0)
    state.lost_catalogs = [str(n) for n in doc.get("lost_catalogs") or []]
    for ref in doc.get("catalogs") or []:
        if bucket.expired(ref.get("saved_at")):
            state.expired_catalogs.extend(s.get("name", "") for s in ref.get("sources") or [])
        else:
            state.catalog_refs.append(ref)
    return state


def _doc_from_state(state: ContextState, next_catalog: int) -> dict[str, Any]:
    return {
        "v": 1,
        "context_id": state.context_id,
        "merchant_id": state.merchant_id,
        "party": state.party,
        "plan_memory": state.plan_memory,
        "task_ids": state.task_ids,
        "attached_bytes": state.attached_bytes,
        "catalogs": state.catalog_refs,
        "next_catalog": next_catalog,
        "lost_catalogs": state.lost_catalogs,
    }


class GcsContextStore:
    def __init__(self, bucket: Bucket) -> None:
        self.bucket = bucket

    @staticmethod
    def _prefix(context_id: str) -> str:
        return f"contexts/{object_key(context_id)}/"

    def load(self, context_id: str) -> ContextState | None:
        doc, _ = self.bucket.read_json(self._prefix(context_id) + "context.json")
        return _state_from_doc(context_id, doc, self.bucket) if doc is not None else None

    def load_catalogs(self, state: ContextState) -> list[Any]:
        if state.catalogs or not state.catalog_refs:
            return list(state.catalogs)
        loaded = []
        for ref in state.catalog_refs:
            try:
                catalog = self._load_catalog(ref)
            except Exception:  # noqa: BLE001 - a storage fault: the answer says the file could not be read
                log.warning("could not read a context catalog from gs://%s", self.bucket.name)
                catalog = None
            if catalog is None:  # deleted or unreadable: not "expired" (that is decided by saved_at)
                state.lost_catalogs.extend(s.get("name", "") for s in ref.get("sources") or [])
                continue
            loaded.append(catalog)
        state.catalogs = loaded
        return list(loaded)

    def _load_catalog(self, ref: dict[str, Any]) -> LoadedCatalog | None:
        key = _catalog_key(self.bucket.name, ref["object"], ref["generation"])
        found = TABLE_CACHE.get(key)
        if found is not None:
            return found
        data = self.bucket.read_bytes(ref["object"], int(ref["generation"]))
        if data is None:
            return None
        table = codec.table_from_parquet(data)
        catalog = LoadedCatalog(table=table, sources=[codec.evidence_from_json(s) for s in ref["sources"]])
        TABLE_CACHE.put(key, catalog, int(table.nbytes))
        return catalog

    def _save_catalogs(self, context_id: str, catalogs: list[Any], first: int) -> tuple[list[dict[str, Any]], int]:
        """Write each catalog once as catalog-<n>.parquet (n not taken yet); their refs and the next n."""
        refs, n = [], first
        for catalog in catalogs:
            data = codec.table_to_parquet(catalog.table)
            while True:
                name = f"{self._prefix(context_id)}catalog-{n}.parquet"
                n += 1
                try:
                    generation = self.bucket.write_new(name, data, "application/vnd.apache.parquet")
                    break
                except _precondition_failed():
                    if n - first > MAX_ATTEMPTS * 4:
                        raise StoreConflict(name) from None
            refs.append(
                {
                    "object": name,
                    "generation": generation,
                    "saved_at": self.bucket.stamp(),
                    "bytes": len(data),
                    "sources": [codec.evidence_to_json(s) for s in catalog.sources],
                }
            )
            TABLE_CACHE.put(
                _catalog_key(self.bucket.name, name, generation),
                LoadedCatalog(
                    table=catalog.table,
                    sources=[codec.evidence_from_json(codec.evidence_to_json(s)) for s in catalog.sources],
                ),
                int(catalog.table.nbytes),
            )
        return refs, n

    def _drop_catalog(self, ref: dict[str, Any]) -> None:
        """Delete a stored catalog and its table-cache entry together: `_save_catalogs` put the table
        in the cache as it wrote the object, and an entry for an object no record names (a raced new
        contextId's files, a replaced attachment) would only hold budget until evicted."""
        self.bucket.delete_quietly(ref["object"])
        TABLE_CACHE.invalidate(_catalog_key(self.bucket.name, ref["object"], ref["generation"]))

    def record_turn(self, context_id: str, change: ContextChange) -> ContextState:
        name = self._prefix(context_id) + "context.json"
        new_refs: list[dict[str, Any]] | None = None
        next_catalog = 1
        if change.catalogs is not None:
            doc, _ = self.bucket.read_json(name)
            new_refs, next_catalog = self._save_catalogs(
                context_id, list(change.catalogs), int((doc or {}).get("next_catalog") or 1)
            )
        plain = ContextChange(
            task_id=change.task_id,
            merchant_id=change.merchant_id,
            party=change.party,
            plan_memory=change.plan_memory,
            catalogs=None,
            max_turns=change.max_turns,
            lost_catalogs=change.lost_catalogs,
        )
        for attempt in range(MAX_ATTEMPTS):
            doc, generation = self.bucket.read_json(name)
            state = _state_from_doc(context_id, doc, self.bucket)
            replaced: list[dict[str, Any]] = []
            if not plain.belongs(state):  # another party recorded this conversation first
                for ref in new_refs or []:
                    self._drop_catalog(ref)
                return state
            plain.apply(state)
            if new_refs is not None:
                replaced, state.catalog_refs = state.catalog_refs, new_refs
                state.attached_bytes, state.expired_catalogs, state.lost_catalogs = change.attached_bytes, [], []
            stored_next = max(next_catalog, int((doc or {}).get("next_catalog") or 1))
            try:
                self.bucket.write_json(name, _doc_from_state(state, stored_next), generation)
            except _precondition_failed():
                _backoff(attempt)
                continue
            for ref in replaced:
                if ref.get("object") not in {r["object"] for r in new_refs or []}:
                    self._drop_catalog(ref)
            return state
        raise StoreConflict(name)
