"""Configuration, read from the environment in this one place (SPEC §9).

Every setting is parsed and checked when the function starts, so a bad deployment fails at once with a
line that names the variable, instead of failing a merchant's question later. Nothing else in the
package reads os.environ: the two values read live rather than at start (`storage_emulator_host`,
which the storage client library also reads itself, and the signing CLI's `catalog_context_secret`) are
read by functions here too.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Mapping

from agent import gsuri
from agent.bqref import BadBqUri, is_bq, parse_bq_uri
from agent.errors import AgentError
from agent.gsuri import BUCKET_NAME

DEFAULT_PUBLIC_URL = "http://127.0.0.1:8080/"
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024  # the platform's own request limit
DEFAULT_MEMORY_BUDGET_BYTES = 1024 * 1024 * 1024  # the instance's memory when unset (deploy.sh passes its MEMORY)
# What the process itself takes before any cache holds anything: the interpreter, pyarrow and the other
# libraries, the taxonomy and name data, gunicorn's arbiter and worker. Measured 2026-12-02 as the warm
# resident size of the process pair (`bench/bench_memory.py`'s "baseline (warm) RSS": the server after a
# few small sends, which import every library a turn uses; 471–473 MiB, also after one question asking
# for every skill). Since the name index is lazy (agent.catalog.namematch.LazyIndex) a fresh warm pair
# is ~223 MiB and grows, as catalogs with new category words arrive, towards the whole index (+~236 MiB
# in process): the reserve keeps that worst case, so a long-lived instance's shares stay honest. The shares below are of what is left (`shareable_bytes`), not of the whole budget:
# taken of the whole budget, the caches' 57 % plus this reserve left too little for the turns in flight,
# and the peak under 150 sends of 24 MiB reached 966–1,006 MiB of a 1 GiB budget (bench/README.md).
PROCESS_RESERVE_BYTES = 472 * 1024 * 1024
# Shares of what MEMORY_BUDGET_BYTES leaves after the reserve, the one memory setting every cache and
# store bound derives from. What is left (35 %, the result memo's and the finished tasks' JSON's 1 % each out of it) is for the turns in flight: a 32 MiB request body, its
# decoded file and the parsed table of each running turn.
# The parsed-catalog cache has the largest share (issue 16): a parsed table costs ~293 B per variant
# from CSV and ~357 B from Parquet (bench/README.md, "Scale, round 9"), so 50 % of what a 4 GiB instance
# leaves (1,812 MiB) keeps a 5M-variant catalog of either kind warm (5M Parquet: 1,704 MiB; at 47 %, the
# share until round 9, the bound was 1,703 MiB and every turn re-read it), and 2 GiB keeps ~2.3M
# (Parquet) to ~2.8M (CSV). Attached
# catalogs kept by conversations are that cache's own table objects (agent.catalog.sources.read_attached;
# the Cloud Storage store's copies are cache entries too), so the conversations' share is smaller than
# it was (it bounds what conversations pin beyond the cache, and their JSON).
SHARE_TABLE_CACHE = 0.50  # parsed catalogs: gs://, local files, attachments (agent.catalog.cache.TABLE_CACHE)
SHARE_CONTEXTS = 0.10  # conversations kept for follow-ups (memory store)
SHARE_TASKS = 0.03  # stored tasks (memory store): no file bytes in them, only answers
SHARE_LIVE = 0.02  # events of recent runs kept for tasks/resubscribe
SHARE_RESULT_MEMO = 0.01  # kept skill results (agent.analysis.memo), out of what is left for turns in flight
SHARE_FINISHED_JSON = 0.01  # finished tasks' reply JSON (agent.service.handler, tasks/get), out of the same


def shareable_bytes(budget: int) -> int:
    """What the shares are of: the budget less PROCESS_RESERVE_BYTES, but never less than a quarter of it
    (a budget below ~630 MiB cannot hold the process anyway; its caches still get something)."""
    return max(budget - PROCESS_RESERVE_BYTES, budget // 4)


DEFAULT_SHAREABLE_BYTES = shareable_bytes(DEFAULT_MEMORY_BUDGET_BYTES)
DEFAULT_CONTEXT_ATTACHED_BYTES = 64 * 1024 * 1024  # CSV bytes a conversation keeps for follow-ups (at most)
_ON = {"on", "true", "1", "yes"}
_OFF = {"off", "false", "0", "no", ""}
_LOG_LEVELS = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}


class ConfigError(AgentError, ValueError):
    """A setting is malformed; the message names the variable and what is expected."""


@dataclass(frozen=True)
class Config:
    public_url: str = DEFAULT_PUBLIC_URL
    catalog_uri: str | None = None
    reference_uri: str | None = None
    state_bucket: str | None = None
    allowed_catalog_prefixes: tuple[str, ...] = ()
    catalog_context_secret: str | None = field(default=None, repr=False)
    a2ui_default: bool = False
    a2ui_status_copy: bool = False
    log_level: str = "INFO"
    threads: int = 8
    google_cloud_project: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    local_root: str | None = None  # local catalog paths must resolve inside it (the CATALOG_URI folder)
    task_store_entries: int = 1000  # in-memory task store bound (entries)
    context_store_entries: int = 500  # in-memory context store bound (entries)
    memory_budget_bytes: int = DEFAULT_MEMORY_BUDGET_BYTES  # MEMORY_BUDGET_BYTES: the one memory setting
    memory_store_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_CONTEXTS)  # in-memory context store bound
    task_store_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_TASKS)  # in-memory task store bound
    table_cache_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_TABLE_CACHE)
    live_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_LIVE)
    state_ttl_days: int = 7  # same number as the state bucket's lifecycle rule (deploy.sh)
    context_max_attached_bytes: int = DEFAULT_CONTEXT_ATTACHED_BYTES  # attached CSV bytes kept per context
    context_max_turns: int = 100  # turns one conversation may take
    provider_organization: str | None = None  # the card's provider: the organization running the agent ...
    provider_url: str | None = None  # ... and its website (both or neither; unset: the card names no provider)
    log_json: bool = False  # JSON log lines for Cloud Logging when on Cloud Run (K_SERVICE set), readable lines locally
    turn_storage_seconds: int = 10  # TURN_STORAGE_SECONDS: storage time one turn's work may take in all
    # IDLE_RELEASE_SECONDS: cache entries (and in-memory conversations' tables) unused this long are dropped
    # at the next request and freed memory handed back (agent.service.reclaim.IdleRelease); 0 turns it off
    idle_release_seconds: int = 300
    body_read_seconds: int = 15  # BODY_READ_SECONDS: the whole request body must arrive within it
    caller_identity_header: str | None = None  # CALLER_IDENTITY_HEADER: set by an authenticating front end
    test_step_gate: str | None = None  # TEST_STEP_GATE: tests only (agent.service.stepgate); never set in production
    preview: bool = (
        False  # PREVIEW: serve the local preview page at GET / for browsers (`make run` sets it; deploy.sh does not)
    )
    bigquery: "BigQuerySettings" = field(default_factory=lambda: BigQuerySettings())  # bq:// sources (issue 15)
    analysis_slots: int = 1  # ANALYSIS_SLOTS: turns computing at once (agent.service.runner.AnalysisSlots)
    switch_interval_us: int = 5000  # SWITCH_INTERVAL_US: the interpreter's thread switch interval (agent/app.py)
    demand_uri: str | None = (
        None  # DEMAND_URI: a Merchant Center Best sellers report (CSV), same forms as REFERENCE_URI
    )
    result_memo_entries: int = 256  # RESULT_MEMO_ENTRIES: skill results kept for reuse (agent.analysis.memo); 0 off
    result_memo_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_RESULT_MEMO)  # ... within this share
    finished_json_bytes: int = int(DEFAULT_SHAREABLE_BYTES * SHARE_FINISHED_JSON)  # finished tasks' JSON kept
    first_frame_wait_ms: int = 50  # FIRST_FRAME_WAIT_MS: how long analysis waits for new streams' first frames
    start_threads: bool = True  # START_THREADS: the first request starts every request thread (host_threads)

    @functools.cached_property
    def rpc_path(self) -> str:
        """The path the JSON-RPC endpoint listens on: the path part of the card url (computed once: every
        request is routed by it)."""
        from urllib.parse import urlsplit

        return urlsplit(self.public_url).path or "/"


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ConfigError(f"{name} must be 'on' or 'off', not {raw!r}")


def _int(env: Mapping[str, str], name: str, default: int, minimum: int, maximum: int) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}") from None
    if not minimum <= value <= maximum:
        raise ConfigError(f"{name} must be between {minimum} and {maximum}, not {value}")
    return value


def _location(env: Mapping[str, str], name: str) -> str | None:
    """A catalog location: gs://bucket[/path] or a local path. URLs are refused: nothing is fetched."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    if is_bq(raw):
        try:
            parse_bq_uri(raw)
        except BadBqUri as exc:
            raise ConfigError(f"{name} {exc}") from None
        return raw
    if gsuri.is_gs(raw):
        try:
            gsuri.split(raw)
        except ValueError:
            raise ConfigError(f"{name} must look like gs://bucket/path, not {raw!r}") from None
        return raw
    if "://" in raw:
        raise ConfigError(f"{name} must be a gs:// URI or a local folder, or a bq:// table; other URLs are not fetched")
    return os.path.abspath(raw)


def _public_url(env: Mapping[str, str]) -> str:
    raw = (env.get("PUBLIC_URL") or "").strip()
    if not raw:
        return DEFAULT_PUBLIC_URL
    if not (raw.startswith("https://") or raw.startswith("http://")):
        raise ConfigError(f"PUBLIC_URL must be an http(s) URL, not {raw!r}")
    return raw


def _bucket(env: Mapping[str, str], name: str) -> str | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    raw = raw.removeprefix(gsuri.SCHEME).rstrip("/")
    if not BUCKET_NAME.match(raw):
        raise ConfigError(f"{name} must be a bucket name, not {env.get(name)!r}")
    return raw


def _prefixes(env: Mapping[str, str], catalog_uri: str | None, reference_uri: str | None) -> tuple[str, ...]:
    raw = (env.get("ALLOWED_CATALOG_PREFIXES") or "").strip()
    if raw:
        items = tuple(p.strip() for p in raw.split(",") if p.strip())
        for item in items:
            if is_bq(item):
                if not _bq_prefix_ok(item):
                    raise ConfigError(
                        "ALLOWED_CATALOG_PREFIXES: a bq:// entry must be bq://project.dataset or "
                        "bq://project.dataset.table ({merchant_id} may stand in the table name)"
                    )
                continue
            try:
                gsuri.split(item)
                well_formed = "{" not in item.replace("{merchant_id}", "")
            except ValueError:
                well_formed = False
            if not well_formed:
                raise ConfigError(
                    "ALLOWED_CATALOG_PREFIXES must be a comma-separated list of gs://bucket/prefix "
                    "entries ({merchant_id} may stand for the caller's merchant)"
                )
        return tuple(item if item.endswith("/") or is_bq(item) else item + "/" for item in items)
    # Deny by default outside the configured bucket(s).
    defaults = []
    for uri in (catalog_uri, reference_uri):
        if uri and gsuri.is_gs(uri):
            defaults.append(gsuri.SCHEME + gsuri.split(uri)[0] + "/")
        elif uri and is_bq(uri):  # the configured dataset, any table in it (like a bucket's objects)
            ref = parse_bq_uri(uri)
            defaults.append(f"bq://{ref.project}.{ref.dataset}")
    return tuple(dict.fromkeys(defaults))


def _header_name(env: Mapping[str, str], name: str) -> str | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"[A-Za-z0-9-]{1,100}", raw):
        raise ConfigError(f"{name} must be an HTTP header name, not {raw!r}")
    return raw


def _gate(env: Mapping[str, str]) -> str | None:
    """TEST_STEP_GATE: a folder the test suite watches (see agent.service.stepgate). Must exist."""
    raw = (env.get("TEST_STEP_GATE") or "").strip()
    if not raw:
        return None
    if not os.path.isdir(raw):
        raise ConfigError(f"TEST_STEP_GATE must be an existing folder, not {raw!r}")
    return os.path.abspath(raw)


def _provider(env: Mapping[str, str]) -> dict[str, str | None]:
    """PROVIDER_ORGANIZATION and PROVIDER_URL: who runs this agent, for the card's `provider` (A2A requires
    both fields of it). Neither set: the card has no provider rather than a made-up one."""
    organization = (env.get("PROVIDER_ORGANIZATION") or "").strip() or None
    url = (env.get("PROVIDER_URL") or "").strip() or None
    if (organization is None) != (url is None):
        raise ConfigError("PROVIDER_ORGANIZATION and PROVIDER_URL go together: set both or neither")
    if url is not None and not url.startswith(("https://", "http://")):
        raise ConfigError(f"PROVIDER_URL must be an http(s) URL, not {url!r}")
    return {"provider_organization": organization, "provider_url": url}


def catalog_context_secret(env: Mapping[str, str] | None = None) -> str | None:
    """CATALOG_CONTEXT_SECRET: the agent's (through `load`) and the signing CLI's (agent.service.trust)."""
    env = os.environ if env is None else env
    return env.get("CATALOG_CONTEXT_SECRET") or None


ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"  # read by Arrow itself when its default pool is first used


def arrow_pool_choice() -> str:
    """The allocator Arrow's default pool uses: glibc's malloc ("system") unless the operator named
    another in ARROW_DEFAULT_MEMORY_POOL. Written back to the environment before pyarrow is imported,
    because Arrow reads that variable itself. Why "system" (issue 12, bench/README.md "Settled memory:
    the allocators"): mimalloc, Arrow's own default, kept ~50 MiB of freed pages resident after an idle
    sweep whatever `release_unused` was asked, while glibc's freed pages go back with `malloc_trim` (and,
    with glibc's thresholds fixed, the freed top of the heap at once): warm 223 → 189 MiB, settled residue
    +38 → +22 MiB with this alone."""
    return os.environ.setdefault(ARROW_POOL_VARIABLE, "system")


def storage_emulator_host() -> str | None:
    """STORAGE_EMULATOR_HOST as the storage client library sees it now (it reads the variable itself,
    each time a client is made): read live, not at start, so agent.catalog.gcs keys its client by the
    endpoint the library will really use (tests switch emulators within one process)."""
    return os.environ.get("STORAGE_EMULATOR_HOST") or None


def load(env: Mapping[str, str] | None = None) -> Config:
    """Parse the settings; raises ConfigError with a clear line on the first bad value."""
    env = os.environ if env is None else env
    level = (env.get("LOG_LEVEL") or "INFO").strip().upper()
    if level not in _LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(sorted(_LOG_LEVELS))}, not {env.get('LOG_LEVEL')!r}")
    catalog_uri = _location(env, "CATALOG_URI")
    reference_uri = _location(env, "REFERENCE_URI")
    budget = _int(env, "MEMORY_BUDGET_BYTES", DEFAULT_MEMORY_BUDGET_BYTES, 64 * 1024 * 1024, 1 << 40)
    shareable = shareable_bytes(budget)  # the shares are of what the process leaves
    stores = _int(env, "STATE_MEMORY_BYTES", int(shareable * SHARE_CONTEXTS), 1024 * 1024, 1 << 40)  # an override
    attached_default = min(DEFAULT_CONTEXT_ATTACHED_BYTES, int(shareable * SHARE_CONTEXTS))
    local_root = None
    if catalog_uri and not gsuri.is_gs(catalog_uri) and not is_bq(catalog_uri):
        local_root = catalog_uri if os.path.isdir(catalog_uri) else os.path.dirname(catalog_uri)
    return Config(
        public_url=_public_url(env),
        catalog_uri=catalog_uri,
        reference_uri=reference_uri,
        state_bucket=_bucket(env, "STATE_BUCKET"),
        allowed_catalog_prefixes=_prefixes(env, catalog_uri, reference_uri),
        catalog_context_secret=catalog_context_secret(env),
        a2ui_default=_flag(env, "A2UI_DEFAULT", False),
        a2ui_status_copy=_flag(env, "A2UI_STATUS_COPY", False),
        log_level=level,
        threads=_int(env, "THREADS", 8, 1, 1000),
        google_cloud_project=(env.get("GOOGLE_CLOUD_PROJECT") or None),
        max_body_bytes=_int(env, "MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, 1024, 1 << 31),
        local_root=local_root,
        task_store_entries=_int(env, "STATE_MEMORY_TASKS", 1000, 1, 1_000_000),
        context_store_entries=_int(env, "STATE_MEMORY_CONTEXTS", 500, 1, 1_000_000),
        memory_budget_bytes=budget,
        memory_store_bytes=stores,
        task_store_bytes=min(stores, int(shareable * SHARE_TASKS)),
        table_cache_bytes=int(shareable * SHARE_TABLE_CACHE),
        live_bytes=int(shareable * SHARE_LIVE),
        state_ttl_days=_int(env, "STATE_TTL_DAYS", 7, 1, 3650),
        context_max_attached_bytes=_int(env, "CONTEXT_MAX_ATTACHED_BYTES", attached_default, 0, 1 << 40),
        context_max_turns=_int(env, "CONTEXT_MAX_TURNS", 100, 1, 100_000),
        **_provider(env),
        log_json=bool((env.get("K_SERVICE") or "").strip()),
        caller_identity_header=_header_name(env, "CALLER_IDENTITY_HEADER"),
        body_read_seconds=_int(env, "BODY_READ_SECONDS", 15, 1, 3600),
        turn_storage_seconds=_int(env, "TURN_STORAGE_SECONDS", 10, 1, 3600),
        idle_release_seconds=_int(env, "IDLE_RELEASE_SECONDS", 300, 0, 7 * 86_400),
        test_step_gate=_gate(env),
        preview=_flag(env, "PREVIEW", False),
        bigquery=_bigquery(env, budget),
        analysis_slots=_int(env, "ANALYSIS_SLOTS", 1, 1, 256),
        switch_interval_us=_int(env, "SWITCH_INTERVAL_US", 5000, 50, 100_000),
        demand_uri=_location(env, "DEMAND_URI"),
        result_memo_entries=_int(env, "RESULT_MEMO_ENTRIES", 256, 0, 1_000_000),
        result_memo_bytes=int(shareable * SHARE_RESULT_MEMO),
        finished_json_bytes=int(shareable * SHARE_FINISHED_JSON),
        first_frame_wait_ms=_int(env, "FIRST_FRAME_WAIT_MS", 50, 0, 10_000),
        start_threads=_flag(env, "START_THREADS", True),
    )


# ------------------------------------------------------------------ BigQuery sources (issue 15)

DEFAULT_MAXIMUM_BYTES_BILLED = 10 * 1024**3  # 10 GiB: about $0.06 per question at on-demand prices
SHARE_BIGQUERY_IN_MEMORY = 0.10  # a bq:// read into Arrow may take this share of MEMORY_BUDGET_BYTES


@dataclass(frozen=True)
class BigQuerySettings:
    """How bq:// locations are read.

    `maximum_bytes_billed` (BIGQUERY_MAXIMUM_BYTES_BILLED) caps every query: each is dry-run first and
    one that would scan more is not run; the answer says so. `in_memory_bytes`
    (BIGQUERY_IN_MEMORY_BYTES, default 10% of MEMORY_BUDGET_BYTES) is the size line: a snapshot
    partition whose projected columns are estimated below it is read with the Storage Read API into
    Arrow; above it, aggregations run in BigQuery. `merchant_center_id` (MERCHANT_CENTER_ID) picks
    `Products_<id>` when CATALOG_URI names a transfer dataset. The two emulator hosts are for tests
    and local runs only (REST base URL, and host:port of the gRPC Storage Read API).
    """

    maximum_bytes_billed: int = DEFAULT_MAXIMUM_BYTES_BILLED
    in_memory_bytes: int = int(DEFAULT_MEMORY_BUDGET_BYTES * SHARE_BIGQUERY_IN_MEMORY)
    merchant_center_id: str | None = None
    project: str | None = None  # the project queries are billed to (GOOGLE_CLOUD_PROJECT), else the table's
    emulator_host: str | None = None  # BIGQUERY_EMULATOR_HOST: http://127.0.0.1:9050
    storage_emulator_host: str | None = None  # BIGQUERY_STORAGE_EMULATOR_HOST: 127.0.0.1:9060


def _bq_prefix_ok(item: str) -> bool:
    try:
        parse_bq_uri(item.replace("{merchant_id}", "x"))
    except BadBqUri:
        return False
    return True


def _bigquery(env: Mapping[str, str], budget: int) -> BigQuerySettings:
    merchant = (env.get("MERCHANT_CENTER_ID") or "").strip() or None
    if merchant is not None and not re.fullmatch(r"[0-9A-Za-z_]{1,64}", merchant):
        raise ConfigError(f"MERCHANT_CENTER_ID must be a Merchant Center account id, not {merchant!r}")
    emu = (env.get("BIGQUERY_EMULATOR_HOST") or "").strip() or None
    if emu is not None and not re.fullmatch(r"http://(127\.0\.0\.1|localhost|\[::1\]):[0-9]{1,5}", emu):
        raise ConfigError("BIGQUERY_EMULATOR_HOST must be a loopback http://host:port, not " + repr(emu))
    storage_emu = (env.get("BIGQUERY_STORAGE_EMULATOR_HOST") or "").strip() or None
    if storage_emu is not None and not re.fullmatch(r"(127\.0\.0\.1|localhost|\[::1\]):[0-9]{1,5}", storage_emu):
        raise ConfigError("BIGQUERY_STORAGE_EMULATOR_HOST must be a loopback host:port, not " + repr(storage_emu))
    return BigQuerySettings(
        maximum_bytes_billed=_int(env, "BIGQUERY_MAXIMUM_BYTES_BILLED", DEFAULT_MAXIMUM_BYTES_BILLED, 0, 1 << 50),
        in_memory_bytes=_int(env, "BIGQUERY_IN_MEMORY_BYTES", int(budget * SHARE_BIGQUERY_IN_MEMORY), 0, 1 << 44),
        merchant_center_id=merchant,
        project=(env.get("GOOGLE_CLOUD_PROJECT") or "").strip() or None,
        emulator_host=emu,
        storage_emulator_host=storage_emu,
    )
