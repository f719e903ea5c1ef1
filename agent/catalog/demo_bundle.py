"""The demo catalog, bundled already normalised (issue 16 item 5: the cold path).

A cold instance's first demo send parsed `data/demo/catalog.csv` and normalised it (detection,
readers, categorisation): ~60 ms of its own work. `make data` writes the result — the canonical
table and its evidence — to `data/demo/catalog.arrow` (Arrow IPC, zstd; ~4 ms to read) and
`load_demo` reads that instead. tests/test_demo_bundle.py fails while the file is stale and checks
the bundled table equals the one read from the CSV, so the answers are the same.

The file is used only when its stamp matches this checkout and process: its format, the pyarrow
version, the CSV's size and crc32, a crc32 of every module of agent/catalog (the normalisation
rules live there), and the names and sizes of the data files categorisation reads (taxonomy, Shopify
mapping, currencies). An edited reader, another CSV or another pyarrow is never answered from an
old file: the CSV is read as without the bundle. Checking costs ~3 ms (reading ~0.5 MB of source).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import pyarrow as pa

from agent.catalog.evidence import SourceEvidence

_ROOT = Path(__file__).resolve().parents[2]
CATALOG_DIR = Path(__file__).resolve().parent
BUNDLE_FORMAT = 1
_STAMP_KEY = b"agent.demo_bundle.stamp"
_EVIDENCE_KEY = b"agent.demo_bundle.evidence"
_DATA_DIRS = ("data/taxonomy", "data/shopify-taxonomy", "data/currency")


def bundle_path(csv_path: Path) -> Path:
    """Where the bundled form of a demo CSV lives: beside it, `.arrow` for `.csv`."""
    return csv_path.with_suffix(".arrow")


def stamp(csv_data: bytes) -> str:
    """What the bundle must have been built from to be used (JSON text, compared as it is)."""
    import zlib

    rules = 0
    for source in sorted(CATALOG_DIR.rglob("*.py")):
        rules = zlib.crc32(source.read_bytes(), rules)
    data_files = {
        str(path.relative_to(_ROOT)): path.stat().st_size
        for folder in _DATA_DIRS
        for path in sorted((_ROOT / folder).iterdir())
        if path.is_file() and path.suffix != ".md"
    }
    return json.dumps(
        {
            "format": BUNDLE_FORMAT,
            "pyarrow": pa.__version__,
            "csv": [len(csv_data), zlib.crc32(csv_data)],
            "rules": rules,
            "data": data_files,
        },
        sort_keys=True,
    )


def _evidence_json(evidence: SourceEvidence) -> str:
    fields = dataclasses.asdict(evidence)
    if fields["pushdown"] is not None:
        raise ValueError("a demo read has no BigQuery pushdown")
    snapshot = fields["snapshot_date"]
    fields["snapshot_date"] = snapshot.isoformat() if snapshot else None
    return json.dumps(fields, sort_keys=True)


def _evidence_from(text: bytes) -> SourceEvidence:
    fields = json.loads(text)
    snapshot = fields["snapshot_date"]
    fields["snapshot_date"] = dt.date.fromisoformat(snapshot) if snapshot else None
    return SourceEvidence(**fields)


def encode(table: pa.Table, evidence: SourceEvidence, csv_data: bytes) -> bytes:
    """The bundle's bytes: the table (its chunks as they are) with the stamp and evidence in its schema."""
    import pyarrow.ipc as ipc

    meta = {
        **(table.schema.metadata or {}),
        _STAMP_KEY: stamp(csv_data).encode(),
        _EVIDENCE_KEY: _evidence_json(evidence).encode(),
    }
    sink = pa.BufferOutputStream()
    with ipc.new_file(
        sink, table.schema.with_metadata(meta), options=ipc.IpcWriteOptions(compression="zstd")
    ) as writer:
        writer.write_table(table.replace_schema_metadata(meta))
    return sink.getvalue().to_pybytes()


def read(csv_path: Path, csv_data: bytes) -> tuple[pa.Table, SourceEvidence] | None:
    """The bundled (table, evidence) for this CSV, or None when there is none or it is stale."""
    import pyarrow.ipc as ipc

    try:
        table = ipc.open_file(pa.memory_map(str(bundle_path(csv_path)))).read_all()
    except (OSError, pa.ArrowInvalid):
        return None
    meta = dict(table.schema.metadata or {})
    if meta.pop(_STAMP_KEY, None) != stamp(csv_data).encode():
        return None
    evidence = _evidence_from(meta.pop(_EVIDENCE_KEY))
    return table.replace_schema_metadata(meta or None), evidence


def build(csv_path: Path, name: str, kind: str) -> bytes:
    """The bundle's bytes, read from the CSV the way an upload is: what `make data` writes."""
    from agent.catalog.ingest import read_table_bytes

    data = csv_path.read_bytes()
    table, evidence = read_table_bytes(data, name, kind)
    return encode(table, evidence, data)


def write_demo() -> None:
    """`make data`: (re)write the bundled demo catalog's pre-normalised form beside its CSV."""
    from agent.catalog import sources

    bundle_path(sources.DEMO_PATH).write_bytes(build(sources.DEMO_PATH, sources.DEMO_NAME, sources.KIND_DEMO))
