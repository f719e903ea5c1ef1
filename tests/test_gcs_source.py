"""Cloud Storage snapshots through real emulators on loopback (no mocked storage).

Request counts come from the emulator itself (tests.emulators records what it serves), so "cache
hit without a download" is observed on the wire, not assumed.
"""

from __future__ import annotations

import io
import json
import threading

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from agent.catalog import cache, gcs

CSV_V1 = b"sku,title,price\nA-1,Teak chair,199.00\nA-2,Teak table,499.00\n"
CSV_V2 = b"sku,title,price\nA-1,Teak chair,189.00\nA-2,Teak table,479.00\nA-3,Bench,99.00\n"


def parquet_bytes(rows: int = 3) -> bytes:
    table = pa.table({"sku": [f"S{i}" for i in range(rows)], "price": [float(i) for i in range(rows)]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def parse_any(data: bytes, ref: gcs.ObjectRef) -> pa.Table:
    """A stand-in parser (the real one is agent.catalog.sources): enough to prove the bytes are right."""
    if ref.name.endswith(".parquet"):
        return pq.read_table(io.BytesIO(data))
    return pacsv.read_csv(io.BytesIO(data))


# --- parse_gs_uri / is_prefix ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("gs://acme-catalog/acme/products.parquet", ("acme-catalog", "acme/products.parquet")),
        ("gs://acme-catalog/acme/", ("acme-catalog", "acme/")),
        ("gs://acme-catalog", ("acme-catalog", "")),
        ("gs://a.b_c-1/x y/z.csv", ("a.b_c-1", "x y/z.csv")),
    ],
)
def test_parse_gs_uri_accepts(uri, expected):
    assert gcs.parse_gs_uri(uri) == expected


@pytest.mark.parametrize(
    "uri",
    [
        "s3://bucket/x.csv",
        "https://storage.googleapis.com/bucket/x.csv",
        "gs:/bucket/x",
        "gs://",
        "gs://UPPER/x.csv",
        "gs://ab/x.csv",  # bucket too short
        "gs://bucket/../other/x.csv",
        "gs://bucket/a/./x.csv",
        "gs://bucket/a\nb.csv",
        "/local/path.csv",
        "",
    ],
)
def test_parse_gs_uri_rejects(uri):
    with pytest.raises(ValueError):
        gcs.parse_gs_uri(uri)


def test_prefix_detection():
    assert gcs.is_prefix("")
    assert gcs.is_prefix("acme/catalog/")
    assert gcs.is_prefix("acme/catalog")
    assert not gcs.is_prefix("acme/catalog.csv")
    assert not gcs.is_prefix("acme/v1.2/products.parquet")


def test_invalid_location_is_source_unavailable():
    with pytest.raises(gcs.SourceUnavailable) as info:
        gcs.resolve("https://example.com/secret-bucket/x.csv")
    assert info.value.reason == "invalid_location"
    assert "secret-bucket" not in str(info.value)


# --- resolve + download against gcp-storage-emulator ------------------------------------------------


def test_file_csv_round_trip(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    generation = gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1, "text/csv")
    gcs_emulator.reset_requests()
    ref = gcs.resolve(f"gs://{bucket}/acme/products.csv")
    assert len(gcs_emulator.requests()) == 1  # a file costs exactly one metadata call
    assert ref == gcs.ObjectRef(
        uri=f"gs://{bucket}/acme/products.csv",
        name="acme/products.csv",
        bucket=bucket,
        generation=generation,
        size=len(CSV_V1),
    )
    assert gcs.download(ref) == CSV_V1


def test_file_parquet_round_trip(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    data = parquet_bytes(5)
    gcs_emulator.upload(bucket, "snap/products.parquet", data)
    ref, table = cache.load_gcs(f"gs://{bucket}/snap/products.parquet", parse_any)
    assert ref.size == len(data)
    assert table.num_rows == 5
    assert table.column("sku").to_pylist() == ["S0", "S1", "S2", "S3", "S4"]


def test_prefix_without_pointer_takes_last_name_in_lexical_order(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products-2026-11-27.csv", CSV_V1)
    gcs_emulator.upload(bucket, "acme/products-2026-11-28.parquet", parquet_bytes())
    gcs_emulator.upload(bucket, "acme/products-2026-11-26.csv", CSV_V1)  # written last, older name
    gcs_emulator.upload(bucket, "acme/zz-notes.txt", b"not a snapshot")  # wrong extension: ignored
    gcs_emulator.upload(bucket, "acme-other/zzz.csv", CSV_V1)  # outside the prefix: ignored
    for uri in (f"gs://{bucket}/acme/", f"gs://{bucket}/acme"):
        ref = gcs.resolve(uri, fresh=True)
        assert ref.name == "acme/products-2026-11-28.parquet"


def test_prefix_with_relative_pointer(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products-2026-11-28.csv", CSV_V2)
    gcs_emulator.upload(bucket, "acme/products-2026-11-27.csv", CSV_V1)
    gcs_emulator.upload(bucket, "acme/latest.json", json.dumps({"snapshot": "products-2026-11-27.csv"}).encode())
    ref = gcs.resolve(f"gs://{bucket}/acme/")
    assert ref.name == "acme/products-2026-11-27.csv"  # the pointer wins over lexical order
    assert gcs.download(ref) == CSV_V1


def test_prefix_with_absolute_pointer(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/exports/2026/11/28/products.csv", CSV_V2)
    gcs_emulator.upload(
        bucket, "acme/latest.json", json.dumps({"snapshot": "acme/exports/2026/11/28/products.csv"}).encode()
    )
    assert gcs.resolve(f"gs://{bucket}/acme").name == "acme/exports/2026/11/28/products.csv"
    gcs_emulator.upload(
        bucket,
        "acme/latest.json",
        json.dumps({"snapshot": f"gs://{bucket}/acme/exports/2026/11/28/products.csv"}).encode(),
    )
    assert gcs.resolve(f"gs://{bucket}/acme", fresh=True).name == "acme/exports/2026/11/28/products.csv"


def test_pointer_cannot_leave_its_folder(gcs_emulator):
    """A location that passed the allowed-prefix check must not be steered elsewhere in the bucket."""
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "other-merchant/products.csv", CSV_V2)
    for pointer in (
        "other-merchant/products.csv",
        "/other-merchant/products.csv",
        f"gs://{bucket}/other-merchant/products.csv",
    ):
        gcs_emulator.upload(bucket, "acme/latest.json", json.dumps({"snapshot": pointer}).encode())
        with pytest.raises(gcs.SourceUnavailable) as caught:
            gcs.resolve(f"gs://{bucket}/acme/", fresh=True)
        assert caught.value.reason == "bad_pointer"


@pytest.mark.parametrize(
    "pointer",
    [
        b"{not json",
        b'{"other": "x.csv"}',
        b'{"snapshot": ""}',
        b'{"snapshot": "missing.csv"}',
        b'{"snapshot": "../escape.csv"}',
        b'{"snapshot": "gs://some-other-bucket/x.csv"}',
    ],
)
def test_bad_pointer_is_reported_not_guessed(gcs_emulator, pointer):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1)
    gcs_emulator.upload(bucket, "acme/latest.json", pointer)
    with pytest.raises(gcs.SourceUnavailable) as info:
        gcs.resolve(f"gs://{bucket}/acme/")
    assert info.value.reason == "bad_pointer"
    assert bucket not in str(info.value)


def test_prefix_with_no_snapshot(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/readme.txt", b"hello")
    with pytest.raises(gcs.SourceUnavailable) as info:
        gcs.resolve(f"gs://{bucket}/acme/")
    assert info.value.reason == "no_snapshot"


def test_missing_object(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    with pytest.raises(gcs.SourceUnavailable) as info:
        gcs.resolve(f"gs://{bucket}/acme/products.csv")
    assert info.value.reason == "not_found"
    assert bucket not in str(info.value) and "products" not in str(info.value)


@pytest.mark.parametrize("path", ["acme/products.csv", "acme/"])
def test_missing_bucket(gcs_emulator, path):
    with pytest.raises(gcs.SourceUnavailable) as info:
        gcs.resolve(f"gs://no-such-bucket-zz9/{path}")
    assert info.value.reason == "not_found"
    assert "no-such-bucket-zz9" not in str(info.value)


def test_emulator_stopped(fresh_gcs_emulator, monkeypatch, caplog):
    monkeypatch.setattr(gcs, "RETRY_DEADLINE_S", 0.5)
    bucket = fresh_gcs_emulator.create_bucket("private-bucket-name")
    fresh_gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1)
    ref = gcs.resolve(f"gs://{bucket}/acme/products.csv")
    fresh_gcs_emulator.stop()
    for call in (lambda: gcs.resolve(f"gs://{bucket}/acme/products.csv", fresh=True), lambda: gcs.download(ref)):
        with pytest.raises(gcs.SourceUnavailable) as info:
            call()
        assert info.value.reason == "unreachable"
        assert "private-bucket-name" not in str(info.value)
        assert str(info.value) == gcs.MESSAGES["unreachable"]
    assert "private-bucket-name" in caplog.text  # the detail is in the log


# --- caching: generation, TTL memo, no re-download ---------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_unchanged_object_is_not_downloaded_again(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1)
    uri = f"gs://{bucket}/acme/products.csv"
    gcs_emulator.reset_requests()

    ref1, t1 = cache.load_gcs(uri, parse_any)
    assert len(gcs_emulator.downloads(bucket)) == 1
    requests_after_first = len(gcs_emulator.requests())

    ref2, t2 = cache.load_gcs(uri, parse_any)  # within the TTL: no request at all
    assert t2 is t1 and ref2 == ref1
    assert len(gcs_emulator.requests()) == requests_after_first

    gcs.RESOLVE_MEMO.clear()  # TTL over: one metadata call, still no download
    ref3, t3 = cache.load_gcs(uri, parse_any)
    assert t3 is t1
    new = gcs_emulator.requests()[requests_after_first:]
    assert len(new) == 1 and new[0]["method"] == "GET" and "/o/" in new[0]["path"]
    assert len(gcs_emulator.downloads(bucket)) == 1


def test_changed_generation_is_read_again_after_ttl(gcs_emulator, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(gcs, "RESOLVE_MEMO", cache.Cache(ttl=10.0, max_entries=1024, clock=clock))
    bucket = gcs_emulator.create_bucket()
    uri = f"gs://{bucket}/acme/"
    gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1)
    ref1, t1 = cache.load_gcs(uri, parse_any)
    assert t1.num_rows == 2

    g2 = gcs_emulator.upload(bucket, "acme/products.csv", CSV_V2)
    clock.now += 5  # within the TTL the memoised generation still stands
    assert cache.load_gcs(uri, parse_any)[1] is t1

    clock.now += 6  # past the TTL: the new generation is seen and read
    ref2, t2 = cache.load_gcs(uri, parse_any)
    assert ref2.generation == g2 != ref1.generation
    assert t2.num_rows == 3
    assert len(gcs_emulator.downloads(bucket, "acme/products.csv")) == 2


def test_concurrent_loads_download_once(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products.parquet", parquet_bytes(1000))
    uri = f"gs://{bucket}/acme/products.parquet"
    gcs.resolve(uri)
    gcs_emulator.reset_requests()
    barrier = threading.Barrier(8)
    results: list[pa.Table] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait()
            results.append(cache.load_gcs(uri, parse_any)[1])
        except BaseException as exc:  # noqa: BLE001 - surfaced by the asserts below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert len(results) == 8 and all(r is results[0] for r in results)
    assert len(gcs_emulator.downloads(bucket, "acme/products.parquet")) == 1


# --- generation preconditions against fake-gcs-server ------------------------------------------------


def test_replaced_between_resolve_and_download(fake_gcs):
    bucket = fake_gcs.create_bucket()
    fake_gcs.upload(bucket, "acme/products.csv", CSV_V1)
    uri = f"gs://{bucket}/acme/products.csv"
    stale = gcs.resolve(uri)
    fake_gcs.upload(bucket, "acme/products.csv", CSV_V2)
    with pytest.raises(gcs.SnapshotChanged) as info:
        gcs.download(stale)
    assert isinstance(info.value, gcs.SourceUnavailable)
    assert bucket not in str(info.value)
    assert gcs.RESOLVE_MEMO.get(uri) is None  # the stale resolution is forgotten


def test_load_recovers_from_a_replacement_mid_read(fake_gcs):
    bucket = fake_gcs.create_bucket()
    fake_gcs.upload(bucket, "acme/products.csv", CSV_V1)
    uri = f"gs://{bucket}/acme/products.csv"
    gcs.resolve(uri)  # memoised: load_gcs will first try this (soon stale) generation
    g2 = fake_gcs.upload(bucket, "acme/products.csv", CSV_V2)
    ref, table = cache.load_gcs(uri, parse_any)
    assert ref.generation == g2
    assert table.num_rows == 3


def test_fake_gcs_refuses_stale_writes(fake_gcs):
    """The fixture other tests rely on for generation preconditions really enforces them."""
    from google.api_core.exceptions import PreconditionFailed

    bucket = fake_gcs.create_bucket()
    g1 = fake_gcs.upload(bucket, "state.json", b"{}")
    fake_gcs.upload(bucket, "state.json", b'{"v": 2}')
    blob = fake_gcs.client.bucket(bucket).blob("state.json")
    with pytest.raises(PreconditionFailed):
        blob.upload_from_string(b'{"v": 3}', if_generation_match=g1)


def test_import_is_cheap():
    """Cold start: importing the module must not pull in google.cloud (client() does, lazily)."""
    import subprocess
    import sys
    from pathlib import Path

    code = "import sys, agent.catalog.gcs, agent.catalog.cache; print('google.cloud.storage' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == "False"


def test_storage_that_never_answers_times_out(monkeypatch):
    """A loopback endpoint that accepts connections and never replies: a hung store, not a mock."""
    import socket
    import time

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # the kernel completes handshakes; nobody ever reads or answers
    try:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{listener.getsockname()[1]}")
        monkeypatch.setattr(gcs, "TIMEOUT", (0.5, 0.3))
        monkeypatch.setattr(gcs, "RETRY_DEADLINE_S", 0.5)
        gcs.RESOLVE_MEMO.clear()
        started = time.monotonic()
        with pytest.raises(gcs.SourceUnavailable) as info:
            gcs.resolve("gs://hung-bucket-name/acme/products.csv")
        assert time.monotonic() - started < 5
        assert info.value.reason == "timeout"
        assert "hung-bucket-name" not in str(info.value)
    finally:
        listener.close()


def test_failure_reasons_from_real_exception_types():
    import requests
    from google.api_core import exceptions as api
    from google.auth import exceptions as auth

    cases = {
        api.NotFound("gs://b/x"): "not_found",
        api.Forbidden("gs://b/x"): "forbidden",
        api.Unauthorized("gs://b/x"): "forbidden",
        api.PreconditionFailed("gs://b/x"): "changed",
        api.ServiceUnavailable("gs://b/x"): "unavailable",
        api.RetryError("deadline", cause=requests.ConnectionError("refused")): "unreachable",
        api.RetryError("deadline", cause=None): "timeout",
        requests.ReadTimeout("slow"): "timeout",
        auth.DefaultCredentialsError("no ADC"): "credentials",
        ValueError("odd"): "unavailable",
    }
    for exc, reason in cases.items():
        assert gcs._reason_for(exc) == reason, exc
        raised = gcs._fail("test", "gs://secret-bucket/x", exc)
        assert raised.reason == reason
        assert "secret" not in str(raised) and str(raised) == gcs.MESSAGES[reason]


def test_concurrent_resolves_share_one_metadata_call(gcs_emulator):
    bucket = gcs_emulator.create_bucket()
    gcs_emulator.upload(bucket, "acme/products.csv", CSV_V1)
    uri = f"gs://{bucket}/acme/products.csv"
    gcs_emulator.reset_requests()
    barrier = threading.Barrier(12)
    refs: list[gcs.ObjectRef] = []

    def worker() -> None:
        barrier.wait()
        refs.append(gcs.resolve(uri))

    threads = [threading.Thread(target=worker) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(refs) == 12 and len(set(refs)) == 1
    # One metadata GET for the burst (a thread that came late may hit the memo instead).
    assert len(gcs_emulator.requests()) == 1


# --- through the catalog layer (agent.catalog.sources, which calls this module) ----------------------

SHOPIFY_CSV = (
    b"Handle,Title,Body (HTML),Vendor,Type,Published,Option1 Name,Option1 Value,Variant SKU,"
    b"Variant Inventory Qty,Variant Price,Status\n"
    b"teak-chair,Teak Chair,<p>Chair</p>,Acme,Chairs,TRUE,Color,Natural,TC-1,4,199.00,active\n"
    b"teak-chair,,,,,,,Grey,TC-2,0,199.00,\n"
    b"oak-table,Oak Table,<p>Table</p>,Acme,Tables,TRUE,Title,Default Title,OT-1,2,499.00,active\n"
)


def flat_parquet_with_snapshot_date() -> bytes:
    table = pa.table(
        {
            "id": ["A-1", "A-2", "B-1"],
            "title": ["Teak chair", "Teak chair", "Oak table"],
            "brand": ["Acme", "Acme", "Acme"],
            "price": [199.0, 209.0, 499.0],
        }
    ).replace_schema_metadata({"snapshot_date": "2026-11-28"})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_configured_catalog_from_a_prefix_through_sources(gcs_emulator):
    import datetime as dt

    from agent.catalog.sources import load_catalog_inputs

    bucket = gcs_emulator.create_bucket()
    generation = gcs_emulator.upload(bucket, "acme/products-2026-11-28.csv", SHOPIFY_CSV, "text/csv")
    inputs = load_catalog_inputs([], catalog_uri=f"gs://{bucket}/acme/")
    assert inputs.problems == []
    assert inputs.own is not None and inputs.own.table.num_rows == 3
    (ev,) = inputs.own.sources
    assert ev.name == f"gs://{bucket}/acme/products-2026-11-28.csv"
    assert ev.generation == generation and ev.kind == "Cloud Storage"
    assert ev.format.startswith("Shopify")
    assert ev.rows_read == 3

    pq_generation = gcs_emulator.upload(bucket, "flat/products.parquet", flat_parquet_with_snapshot_date())
    inputs = load_catalog_inputs([], catalog_uri=f"gs://{bucket}/flat/products.parquet")
    (ev,) = inputs.own.sources
    assert ev.generation == pq_generation and ev.rows_read == 3
    assert ev.snapshot_date == dt.date(2026, 11, 28)


def test_unreadable_configured_catalog_is_a_fixed_line(fresh_gcs_emulator, monkeypatch):
    from agent.catalog.sources import CATALOG_PROBLEM, load_catalog_inputs

    monkeypatch.setattr(gcs, "RETRY_DEADLINE_S", 0.5)
    inputs = load_catalog_inputs([], catalog_uri="gs://missing-bucket-zz7/acme/")
    assert inputs.problems == [CATALOG_PROBLEM] and inputs.own is None
    fresh_gcs_emulator.stop()
    inputs = load_catalog_inputs([], catalog_uri="gs://missing-bucket-zz7/acme/products.csv")
    assert inputs.problems == [CATALOG_PROBLEM] and inputs.own is None
    assert all("missing-bucket" not in p for p in inputs.problems)
