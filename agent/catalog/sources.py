"""Where a turn's catalogs come from (SPEC §4) and how each lands in the canonical table.

Precedence for the merchant's own catalog: files attached to this message -> catalogs attached
earlier in the context -> the configured location (`CATALOG_URI`: a gs:// file or prefix, a bq://
table or Merchant Center transfer dataset, or a local file or folder) -> the bundled demo catalog. The reference (competitor/market) catalog comes from an
attachment the question calls the reference or competitor file, else from `REFERENCE_URI`.

Failures never stop the turn: an attachment that cannot be parsed goes to `unreadable` with a fixed
reason; a configured source that cannot be read adds a fixed sentence to `problems` (detail in the
log, never a bucket name or path) and is *not* silently replaced by the demo catalog.

A file the merchant sent is the catalog they asked about. If files were sent for the own catalog —
parsed here, or already refused by the service (`refused`: a PDF, a URI part, bad base64) — and none
could be read, there is no own catalog this turn: not the demo, not a catalog attached earlier,
not the configured location. The answer then says what could not be read and what to send, rather
than answering about other data as if nothing had happened. A file that was meant as the
reference (the question asks for a comparison and the file is named as the competitor/market one)
does not stop the own catalog coming from an earlier attachment or the configured location — the
reference is then missing, and said so — but the demo is still never substituted.

Parsed canonical tables are cached per process: Cloud Storage objects by (bucket, name,
generation), local files by (path, mtime, size), the demo once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from agent.bqref import BadBqUri, is_bq, parse_bq_uri
from agent.catalog import bestsellers
from agent.catalog.attachments import Attachment
from agent.catalog.errors import CatalogError, UnreadableCatalog
from agent.catalog.evidence import (
    KIND_ATTACHED,
    KIND_DEMO,
    KIND_GCS,
    KIND_LOCAL,
    CatalogInputs,
    LoadedCatalog,
    SourceEvidence,
    Unreadable,
)
from agent.gsuri import is_gs

if TYPE_CHECKING:
    from agent.config import BigQuerySettings

log = logging.getLogger(__name__)

DEMO_PATH = Path(__file__).resolve().parents[2] / "data" / "demo" / "catalog.csv"
DEMO_NAME = "demo-catalog.csv"
CATALOG_PROBLEM = "The configured catalog could not be read."
REFERENCE_PROBLEM = "The reference catalog could not be read."
DEMAND_PROBLEM = "The configured Best sellers report could not be read."
DEMO_PROBLEM = "The bundled demo catalog could not be read."
LOCAL_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet")

_REFERENCE_WORDS = re.compile(r"\b(reference|competitor'?s?|competition|competing|rival'?s?|market|benchmark)\b", re.I)

__all__ = ["Attachment", "load_catalog_inputs", "read_table_bytes", "combine", "DEMO_NAME"]


class SourceFailed(CatalogError):
    """A configured source could not be read; the message is for the log only. `problem`, when set,
    is the fixed sentence the answer gives instead of the generic one (a BigQuery cost refusal)."""

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem


def load_catalog_inputs(
    attachments: Sequence[Attachment],
    *,
    question: str = "",
    catalog_uri: str | None = None,
    reference_uri: str | None = None,
    local_root: str | None = None,
    earlier: Sequence[LoadedCatalog] = (),
    progress: Callable[[str], None] = lambda message: None,
    refused: Sequence[Unreadable] = (),
    merchant_id: str | None = None,
    demand_uri: str | None = None,
    bigquery: "BigQuerySettings | None" = None,
) -> CatalogInputs:
    """Load this turn's own and reference catalogs; see the module docstring for the rules.

    `refused` are file parts of this message the service could not take as tables; they are reported
    first and, like attachments, stop any fallback for the own catalog. `bigquery` is how bq://
    locations are read (agent.config.BigQuerySettings: cap, size line, emulator hosts; the defaults
    when None), passed with the call like every other setting here."""
    unreadable: list[Unreadable] = list(refused)
    problems: list[str] = []
    demand_indexes = {i for i, att in enumerate(attachments) if _is_bestsellers(att.data, att.name)}
    ref_index = pick_reference(attachments, question)
    if ref_index in demand_indexes:
        ref_index = None
    own_parts, reference, demand_parts = _read_attachments(attachments, ref_index, demand_indexes, unreadable, progress)
    own: LoadedCatalog | None = combine(own_parts) if own_parts else None
    own_refused = [refused_file for refused_file in refused if not _names_reference(refused_file.name, question)]
    own_attached = bool(own_refused) or any(i != ref_index and i not in demand_indexes for i in range(len(attachments)))
    if own is None and earlier and not own_attached:
        own = combine_loaded(earlier)
    if own is None and own_attached:
        pass  # the files sent could not be read: no substitute (module docstring)
    elif own is None and (refused or len(attachments) > len(demand_indexes)) and not catalog_uri:
        pass  # only a reference was sent, and it failed: the demo is not the merchant's catalog
    elif own is None and catalog_uri:
        own = _configured_catalog(catalog_uri, local_root, merchant_id, bigquery, problems, progress)
    elif own is None:
        progress("Reading the demo catalog…")
        try:
            own = combine([load_demo()])
        except Exception:  # noqa: BLE001
            log.exception("demo catalog unreadable")
            problems.append(DEMO_PROBLEM)
    if reference is None and reference_uri:
        progress("Reading the reference catalog…")
        reference = _configured_reference(reference_uri, local_root, merchant_id, bigquery, demand_parts, problems)
    if not demand_parts and demand_uri:
        progress("Reading the Best sellers report…")
        demand_parts = _configured_demand(demand_uri, local_root, merchant_id, bigquery, problems)
    demand = _combine_demand(demand_parts) if demand_parts else None
    return CatalogInputs(own=own, reference=reference, unreadable=unreadable, problems=problems, demand=demand)


def _read_attachments(
    attachments: Sequence[Attachment],
    ref_index: int | None,
    demand_indexes: set[int],
    unreadable: list[Unreadable],
    progress: Callable[[str], None],
) -> tuple[list[tuple[pa.Table, SourceEvidence]], LoadedCatalog | None, list[tuple[pa.Table, SourceEvidence]]]:
    """This message's files read: (own catalog parts, the reference, Best sellers parts); a file that
    cannot be read is added to `unreadable` with its reason."""
    own_parts: list[tuple[pa.Table, SourceEvidence]] = []
    reference: LoadedCatalog | None = None
    demand_parts: list[tuple[pa.Table, SourceEvidence]] = []
    for i, att in enumerate(attachments):
        progress(f"Reading {att.name}…")
        try:
            if i in demand_indexes:
                demand_parts.append(_read_demand(att.data, att.name, KIND_ATTACHED))
                continue
            table, evidence = read_attached(att)
        except UnreadableCatalog as exc:
            unreadable.append(Unreadable(att.name, exc.reason))
            continue
        if i == ref_index:
            evidence.role = "reference"
            reference = combine([(table, evidence)])
        else:
            own_parts.append((table, evidence))
    return own_parts, reference, demand_parts


def _configured_catalog(
    uri: str,
    local_root: str | None,
    merchant_id: str | None,
    bigquery: "BigQuerySettings | None",
    problems: list[str],
    progress: Callable[[str], None],
) -> LoadedCatalog | None:
    """CATALOG_URI read as the own catalog, or None with the problem said (a Best sellers report there
    is no catalog)."""
    progress("Reading the configured catalog…")
    try:
        located = load_location(uri, local_root, merchant_id, bigquery)
        if located[1].role == bestsellers.ROLE:
            raise SourceFailed(f"{uri}: a Best sellers report, not a catalog")
        return combine([located])
    except SourceFailed as exc:
        log.warning("configured catalog unreadable: %s", exc)
        problems.append(exc.problem or CATALOG_PROBLEM)
        return None


def _configured_reference(
    uri: str,
    local_root: str | None,
    merchant_id: str | None,
    bigquery: "BigQuerySettings | None",
    demand_parts: list[tuple[pa.Table, SourceEvidence]],
    problems: list[str],
) -> LoadedCatalog | None:
    """REFERENCE_URI read as the reference, or None with the problem said. A reference is compared in
    memory, so one above the in-memory line is not read; a Best sellers report there is demand data
    (added to `demand_parts`)."""
    try:
        table, evidence = load_location(uri, local_root, merchant_id, bigquery)
        if evidence.pushdown is not None:
            raise SourceFailed(
                f"{uri}: above the in-memory line",
                problem=(
                    "The reference catalog was not read: its newest partition is above the in-memory line "
                    "(BIGQUERY_IN_MEMORY_BYTES), and a reference is only compared in memory."
                ),
            )
        if evidence.role == bestsellers.ROLE:
            demand_parts.append((table, evidence))
            return None
        return combine([(table, dataclasses.replace(evidence, role="reference"))])
    except SourceFailed as exc:
        log.warning("reference catalog unreadable: %s", exc)
        problems.append(_reference_problem(exc.problem) if exc.problem else REFERENCE_PROBLEM)
        return None


def _configured_demand(
    uri: str,
    local_root: str | None,
    merchant_id: str | None,
    bigquery: "BigQuerySettings | None",
    problems: list[str],
) -> list[tuple[pa.Table, SourceEvidence]]:
    """DEMAND_URI's Best sellers reports (`demand_locations`); a problem is said only when none could be
    read (one of a dataset's two reports missing is not a problem)."""
    parts: list[tuple[pa.Table, SourceEvidence]] = []
    failed: list[SourceFailed] = []
    for location in demand_locations(uri, merchant_id, bigquery):
        try:
            table, evidence = load_location(location, local_root, merchant_id, bigquery)
            if evidence.role != bestsellers.ROLE:
                raise SourceFailed(f"{location}: not a Best sellers report")
            parts.append((table, evidence))
        except SourceFailed as exc:
            log.warning("Best sellers report unreadable: %s", exc)
            failed.append(exc)
    if failed and not parts:
        problems.append(next((failure.problem for failure in failed if failure.problem), None) or DEMAND_PROBLEM)
    return parts


def demand_locations(uri: str, merchant_id: str | None, bigquery: "BigQuerySettings | None") -> list[str]:
    """DEMAND_URI as the locations read: itself, or for a Merchant Center transfer dataset
    (`bq://project.dataset`) its weekly product-cluster and brand reports for the merchant
    (`BestSellersProductClusterWeekly_<id>`, `BestSellersBrandWeekly_<id>`; the monthly ones are read
    when named as tables). Without a merchant id the dataset stays as given and fails as a dataset
    location does."""
    if not is_bq(uri):
        return [uri]
    try:
        ref = parse_bq_uri(uri)
    except BadBqUri:
        return [uri]
    merchant = merchant_id or (bigquery.merchant_center_id if bigquery is not None else None)
    if ref.table is not None or not merchant:
        return [uri]
    return [f"{uri}.{prefix}{merchant}" for prefix in bestsellers.TRANSFER_TABLES]


def _reference_problem(problem: str) -> str:
    """A source's own sentence, said of the reference catalog."""
    return problem if "reference catalog" in problem else problem.replace("catalog", "reference catalog", 1)


def _is_bestsellers(data: bytes, name: str) -> bool:
    return not (data[:4] == b"PAR1" or name.lower().endswith(".parquet")) and bestsellers.sniff_bytes(data) is not None


def _read_demand(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    """A Best sellers CSV -> demand table + evidence; any unexpected failure a fixed reason (detail logged)."""
    try:
        return bestsellers.read_csv_bytes(data, name, kind)
    except UnreadableCatalog:
        raise
    except Exception:  # noqa: BLE001 - a parser bug must not fail the turn
        log.exception("unexpected failure reading Best sellers %r", name)
        raise UnreadableCatalog("not a readable CSV: the Best sellers report could not be parsed") from None


def _combine_demand(parts: Sequence[tuple[pa.Table, SourceEvidence]]) -> LoadedCatalog:
    """Product-cluster and brand reports side by side: one demand table (rows keep their `entity`)."""
    table = pa.concat_tables([part_table for part_table, _ in parts]) if len(parts) > 1 else parts[0][0]
    return LoadedCatalog(table=table, sources=[evidence for _, evidence in parts])


def read_attached(att: Attachment) -> tuple[pa.Table, SourceEvidence]:
    """An attached file's canonical table, parsed once per instance for the same bytes and name.

    Decision (issue 12, settled memory): the parsed table lives in the one parsed-catalog cache
    (TABLE_CACHE, its share of MEMORY_BUDGET_BYTES), keyed by the bytes' SHA-256 and the file name, and
    the conversation that keeps it for follow-ups holds that same table object rather than a copy of
    its own. A file sent again — in a follow-up, by another conversation, by a burst of callers — is
    neither parsed again nor held twice: after a load of many sends of one file, the memory held is
    one cached table, not one per conversation. The evidence is copied per turn (a turn sets its role).
    """
    from agent.catalog.cache import TABLE_CACHE

    key = ("attached", hashlib.sha256(att.data).hexdigest(), att.name)
    table, evidence = TABLE_CACHE.get_or_load(
        key, lambda: safe_read(att.data, att.name, KIND_ATTACHED), lambda v: int(v[0].nbytes)
    )
    return table, dataclasses.replace(evidence)


def safe_read(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    """read_table_bytes, with any unexpected failure turned into a fixed reason (detail logged)."""
    try:
        return read_table_bytes(data, name, kind)
    except UnreadableCatalog:
        raise
    except Exception:  # noqa: BLE001 - a parser bug must not fail the turn
        log.exception("unexpected failure reading %r", name)
        if data[:4] == b"PAR1" or name.lower().endswith(".parquet"):
            raise UnreadableCatalog("not a readable Parquet file") from None
        raise UnreadableCatalog("not a readable CSV: the file could not be parsed") from None


def _read_any(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    """A configured location's file: a Best sellers report by its header (evidence role "demand"),
    else a catalog."""
    if _is_bestsellers(data, name):
        return _read_demand(data, name, kind)
    return safe_read(data, name, kind)


# ------------------------------------------------------------------ reference detection


def pick_reference(attachments: Sequence[Attachment], question: str) -> int | None:
    """Index of the attachment the question calls the reference/competitor/market file, if any.

    Needs a reference word in the question. Then: an attachment named in the question near such a
    word, else one whose own name carries such a word, else (with two or more files) the last one —
    "compare my catalog with this competitor file". A single attachment is always the own catalog.
    """
    if len(attachments) < 2 or not _REFERENCE_WORDS.search(question or ""):
        return None
    lowered = question.lower()
    for i, att in enumerate(attachments):
        for token in {att.name.lower(), Path(att.name).stem.lower()}:
            if len(token) < 3:
                continue
            pos = lowered.find(token)
            if pos >= 0:
                window = lowered[max(0, pos - 60) : pos + len(token) + 60]
                if _REFERENCE_WORDS.search(window):
                    return i
    named_own = {
        i
        for i, attachment in enumerate(attachments)
        if Path(attachment.name).stem.lower() in lowered and len(Path(attachment.name).stem) >= 3
    }
    for i, att in enumerate(attachments):
        if _REFERENCE_WORDS.search(Path(att.name).stem.replace("_", " ").replace("-", " ")):
            return i
    candidates = [i for i in range(len(attachments)) if i not in named_own]
    return candidates[-1] if candidates else len(attachments) - 1


def _names_reference(name: str, question: str) -> bool:
    """Whether a file the service refused was meant as the reference: the question asks for a
    comparison, and the file's name carries a reference word or is named next to one."""
    if not _REFERENCE_WORDS.search(question or ""):
        return False
    stem = Path(name).stem
    if _REFERENCE_WORDS.search(stem.replace("_", " ").replace("-", " ")):
        return True
    lowered = question.lower()
    pos = lowered.find(name.lower()) if len(name) >= 3 else -1
    return pos >= 0 and bool(_REFERENCE_WORDS.search(lowered[max(0, pos - 60) : pos + len(name) + 60]))


# ------------------------------------------------------------------ combining


def combine(parts: Sequence[tuple[pa.Table, SourceEvidence]]) -> LoadedCatalog:
    """Several canonical tables -> one catalog; product keys are offset so they stay unique."""
    tables, sources, offset = [], [], 0
    for table, evidence in parts:
        if offset and table.num_rows:
            idx = table.schema.get_field_index("product_key")
            table = table.set_column(idx, "product_key", pc.add(table["product_key"], offset))
        if table.num_rows:
            offset = int(pc.max(table["product_key"]).as_py()) + 1
        tables.append(table)
        sources.append(evidence)
    if len(tables) == 1:
        return LoadedCatalog(table=tables[0], sources=sources)
    return LoadedCatalog(table=pa.concat_tables(tables).unify_dictionaries(), sources=sources)


def combine_loaded(catalogs: Sequence[LoadedCatalog]) -> LoadedCatalog:
    """Catalogs attached earlier in the context, as one catalog (their evidence kept as given)."""
    if len(catalogs) == 1:
        return catalogs[0]
    merged = combine([(catalog.table, None) for catalog in catalogs])  # type: ignore[misc]
    return LoadedCatalog(table=merged.table, sources=[evidence for catalog in catalogs for evidence in catalog.sources])


# ------------------------------------------------------------------ locations


def load_location(
    uri: str, local_root: str | None, merchant_id: str | None = None, bigquery: "BigQuerySettings | None" = None
) -> tuple[pa.Table, SourceEvidence]:
    """A configured location (gs:// file or prefix, bq:// table or transfer dataset, local file or
    folder) -> table + evidence copy."""
    if is_gs(uri):
        return _load_gcs(uri)
    if is_bq(uri):
        return _load_bigquery(uri, merchant_id, bigquery)
    return _load_local(uri, local_root)


def _load_gcs(uri: str) -> tuple[pa.Table, SourceEvidence]:
    from agent.catalog import cache, gcs

    def parse(data: bytes, ref) -> tuple[pa.Table, SourceEvidence]:
        table, evidence = _read_any(data, ref.uri, KIND_GCS)
        evidence.generation = ref.generation
        return table, evidence

    try:
        _, (table, evidence) = cache.load_gcs(uri, parse, size_of=lambda v: int(v[0].nbytes))
    except gcs.SourceUnavailable as exc:
        raise SourceFailed(f"{uri}: {exc.reason}") from None
    except UnreadableCatalog as exc:
        raise SourceFailed(f"{uri}: {exc.reason}") from None
    except ValueError as exc:
        raise SourceFailed(f"{uri}: {exc}") from None
    return table, dataclasses.replace(evidence)


def _load_bigquery(
    uri: str, merchant_id: str | None, settings: "BigQuerySettings | None"
) -> tuple[pa.Table, SourceEvidence]:
    """A bq:// location: the newest partition of the table (agent.catalog.bigquery). The partition and
    its estimate are checked on every turn; the read itself is kept in TABLE_CACHE per partition."""
    from agent.catalog import bigquery as bq
    from agent.config import BigQuerySettings

    settings = settings or BigQuerySettings()
    what = "catalog"
    try:
        ref = parse_bq_uri(uri).for_merchant(merchant_id or settings.merchant_center_id)
        if ref.table is not None and bestsellers.TRANSFER_TABLE.fullmatch(ref.table):
            what = "Best sellers report"  # demand data: the Best sellers reader, not a catalog's
            table, evidence = bq.load_bestsellers(ref, settings, ref.uri)
        else:
            table, evidence = bq.load_table(ref, settings, ref.uri)
    except BadBqUri as exc:
        raise SourceFailed(str(exc)) from None
    except bq.BytesCapExceeded as exc:
        raise SourceFailed(
            str(exc),
            problem=(
                f"The configured {what} was not read: BigQuery estimates {bytes_text(exc.estimate)} to scan, "
                f"over the {bytes_text(exc.cap)} cap per question (BIGQUERY_MAXIMUM_BYTES_BILLED)."
            ),
        ) from None
    except bq.OverSizeLine as exc:
        raise SourceFailed(
            str(exc),
            problem=(
                f"The configured {what} was not read: its newest partition ({bytes_text(exc.plan.estimate_bytes)}) is "
                f"above the in-memory line of {bytes_text(settings.in_memory_bytes)} (BIGQUERY_IN_MEMORY_BYTES), and "
                "only Merchant Center Products_ tables are aggregated in BigQuery."
            ),
        ) from None
    except bq.BigQueryUnavailable as exc:
        raise SourceFailed(str(exc)) from None
    except UnreadableCatalog as exc:
        raise SourceFailed(f"{uri}: {exc.reason}") from None
    out = dataclasses.replace(evidence)
    if out.pushdown is not None:
        out.pushdown.evidence = out  # the bytes its queries scan go to the evidence the footer states
    return table, out


def bytes_text(byte_count: int) -> str:
    """1,288,490,189 -> "1.2 GB" (decimal units, as BigQuery's console states bytes)."""
    for unit, size in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if byte_count >= size:
            return f"{byte_count / size:.1f} {unit}"
    return f"{byte_count:,} bytes"


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_local(uri: str, local_root: str | None) -> Path:
    """A local file, or a folder's snapshot (latest.json, else the last file name), inside the root."""
    raw = uri[len("file://") :] if uri.startswith("file://") else uri
    root = Path(local_root).resolve() if local_root else None
    path = Path(raw)
    if not path.is_absolute() and root is not None:
        path = root / path
    path = path.resolve()
    if root is not None and not _inside(path, root):
        raise SourceFailed(f"{uri}: outside the local root")
    if path.is_dir():
        pointer = path / "latest.json"
        if pointer.is_file():
            try:
                name = json.loads(pointer.read_text(encoding="utf-8"))["snapshot"]
            except (ValueError, KeyError, TypeError) as exc:
                raise SourceFailed(f"{pointer}: bad latest.json ({exc})") from None
            target = (path / str(name)).resolve()
            if not _inside(target, path) or not target.is_file():
                raise SourceFailed(f"{pointer}: snapshot {name!r} not found in the folder")
            return target
        files = sorted(
            entry.name
            for entry in path.iterdir()
            if entry.is_file() and entry.suffix.lower() in LOCAL_SUFFIXES and not entry.name.startswith(".")
        )
        if not files:
            raise SourceFailed(f"{uri}: no catalog file in the folder")
        return path / files[-1]
    if not path.is_file():
        raise SourceFailed(f"{uri}: no such file")
    return path


def _load_local(uri: str, local_root: str | None) -> tuple[pa.Table, SourceEvidence]:
    from agent.catalog.cache import TABLE_CACHE

    try:
        path = resolve_local(uri, local_root)  # listing a folder or reading latest.json may fail too
        stat = path.stat()
        key = ("local", str(path), stat.st_mtime_ns, stat.st_size)
        table, evidence = TABLE_CACHE.get_or_load(
            key, lambda: _read_any(path.read_bytes(), path.name, KIND_LOCAL), lambda v: int(v[0].nbytes)
        )
    except OSError as exc:
        raise SourceFailed(f"{uri}: {exc.strerror}") from None
    except UnreadableCatalog as exc:
        raise SourceFailed(f"{uri}: {exc.reason}") from None
    return table, dataclasses.replace(evidence)


def read_table_bytes(data: bytes, name: str, kind: str) -> tuple[pa.Table, SourceEvidence]:
    """`ingest.read_table_bytes`, imported on first use: the parser and its readers (~30 ms of imports)
    are not needed by a cold demo send answered from the bundled demo (demo_bundle)."""
    from agent.catalog import ingest

    return ingest.read_table_bytes(data, name, kind)


def load_demo() -> tuple[pa.Table, SourceEvidence]:
    """The bundled demo catalog, read once per process (and again only if the file changes): from its
    pre-normalised form (demo_bundle, `make data`) when that is current, else parsed from the CSV."""
    from agent.catalog.cache import TABLE_CACHE

    stat = DEMO_PATH.stat()
    key = ("demo", str(DEMO_PATH), stat.st_mtime_ns, stat.st_size)
    table, evidence = TABLE_CACHE.get_or_load(key, _read_demo, lambda v: int(v[0].nbytes))
    return table, dataclasses.replace(evidence)


def _read_demo() -> tuple[pa.Table, SourceEvidence]:
    from agent.catalog import demo_bundle

    data = DEMO_PATH.read_bytes()
    return demo_bundle.read(DEMO_PATH, data) or read_table_bytes(data, DEMO_NAME, KIND_DEMO)
