"""Source precedence, demo catalog, reference detection, configured locations (local)."""

from __future__ import annotations

import csv
import json
import logging

import pyarrow.compute as pc
import pytest

from agent.catalog import canonical
from agent.catalog.attachments import Attachment
from agent.catalog.evidence import KIND_ATTACHED, KIND_DEMO, KIND_LOCAL, Unreadable
from agent.catalog.sources import (
    CATALOG_PROBLEM,
    DEMO_NAME,
    DEMO_PATH,
    REFERENCE_PROBLEM,
    load_catalog_inputs,
    pick_reference,
)


def _demo_rows() -> int:
    with DEMO_PATH.open(encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.reader(fh)) - 1


def test_no_input_gives_the_demo_catalog():
    got = load_catalog_inputs([])
    assert got.problems == [] and got.unreadable == [] and got.reference is None
    (ev,) = got.own.sources
    assert (ev.name, ev.kind, ev.format) == (DEMO_NAME, KIND_DEMO, "generic table")
    assert ev.rows_read == _demo_rows() == got.own.table.num_rows
    assert ev.snapshot_origin == "column snapshot_date" and ev.snapshot_date.isoformat() == "2026-11-27"
    assert ev.unmapped_columns == []
    assert got.own.table.schema.equals(canonical.SCHEMA)


def test_demo_is_parsed_once_per_process():
    a = load_catalog_inputs([]).own.table
    b = load_catalog_inputs([]).own.table
    assert a is b  # same cached table object, no re-parse


def test_demo_values_are_canonical():
    t = load_catalog_inputs([]).own.table
    assert set(pc.unique(t["status"].cast("string")).to_pylist()) <= set(canonical.STATUS_VALUES)
    assert set(pc.unique(t["availability"].cast("string")).to_pylist()) <= set(canonical.AVAILABILITY_VALUES)
    assert set(pc.unique(t["category_mapping"].cast("string")).to_pylist()) <= set(canonical.MAPPING_METHODS)
    # one product key per product id
    pairs = {(k, p) for k, p in zip(t["product_key"].to_pylist(), t["product_id"].to_pylist())}
    assert len({k for k, _ in pairs}) == len({p for _, p in pairs}) == len(pairs)


# ---------------------------------------------------------------- attachments and precedence

OWN = b"sku,title,price,currency\nA-1,Teak chair,199.00,USD\nA-2,Teak table,499.00,USD\n"
RIVAL = b"sku,title,price,brand\nR-1,Oak chair,149.00,Rival\nR-2,Oak bench,259.00,Rival\nR-3,Lamp,39.00,Rival\n"


def test_attachment_wins_over_configured_and_demo(tmp_path):
    (tmp_path / "catalog.csv").write_bytes(RIVAL)
    messages: list[str] = []
    got = load_catalog_inputs(
        [Attachment("catalog.csv", OWN, "text/csv")],
        catalog_uri=str(tmp_path),
        local_root=str(tmp_path),
        progress=messages.append,
    )
    (ev,) = got.own.sources
    assert (ev.name, ev.kind, ev.rows_read) == ("catalog.csv", KIND_ATTACHED, 2)
    assert got.own.table["sku"].to_pylist() == ["A-1", "A-2"]
    assert messages == ["Reading catalog.csv…"]


def test_several_attachments_combine_with_unique_product_keys():
    got = load_catalog_inputs([Attachment("a.csv", OWN, None), Attachment("b.csv", RIVAL, None)])
    assert [s.name for s in got.own.sources] == ["a.csv", "b.csv"]
    t = got.own.table
    assert t.num_rows == 5 and len(set(t["product_key"].to_pylist())) == 5
    assert t["source"].to_pylist() == ["a.csv"] * 2 + ["b.csv"] * 3


def test_unreadable_attachment_is_reported_and_the_demo_not_substituted():
    got = load_catalog_inputs([Attachment("notes.csv", b"a,b\n1,2\n", "text/csv")])
    assert got.unreadable == [Unreadable("notes.csv", "no product columns recognised (such as title, SKU or price)")]
    assert got.own is None and got.problems == []


def test_unreadable_attachment_next_to_a_good_one():
    got = load_catalog_inputs([Attachment("empty.csv", b"", None), Attachment("ok.csv", OWN, None)])
    assert [u.name for u in got.unreadable] == ["empty.csv"]
    assert got.unreadable[0].reason == "not a readable CSV: the file is empty"
    assert [s.name for s in got.own.sources] == ["ok.csv"]


@pytest.mark.parametrize(
    ("question", "names", "expected"),
    [
        ("Compare my catalog with the competitor file", ["mine.csv", "theirs.csv"], 1),
        ("Use rival.csv as the reference, mine is shop.csv", ["rival.csv", "shop.csv"], 0),
        ("which brands do competitors carry?", ["market-prices.csv", "shop.csv"], 0),
        ("Where are the gaps?", ["a.csv", "b.csv"], None),  # no reference word: both are mine
        ("Compare with the competitor", ["only.csv"], None),  # a single file is always mine
    ],
)
def test_reference_attachment_detection(question, names, expected):
    atts = [Attachment(n, OWN, None) for n in names]
    assert pick_reference(atts, question) == expected


def test_reference_attachment_is_loaded_as_reference():
    got = load_catalog_inputs(
        [Attachment("shop.csv", OWN, None), Attachment("competitor.csv", RIVAL, None)],
        question="How do my prices compare with the competitor file?",
    )
    assert [s.name for s in got.own.sources] == ["shop.csv"]
    assert [(s.name, s.role) for s in got.reference.sources] == [("competitor.csv", "reference")]
    assert got.reference.table.num_rows == 3


def test_earlier_catalogs_come_before_configured_and_demo():
    first = load_catalog_inputs([Attachment("shop.csv", OWN, None)])
    got = load_catalog_inputs([], earlier=[first.own], catalog_uri="/nonexistent/zz")
    assert got.own.table is first.own.table or got.own.table.equals(first.own.table)
    assert got.problems == []


# ---------------------------------------------------------------- local configured locations


def test_local_folder_uses_latest_json_then_last_name(tmp_path):
    (tmp_path / "products-2026-11-27.csv").write_bytes(OWN)
    (tmp_path / "products-2026-11-28.csv").write_bytes(RIVAL)
    got = load_catalog_inputs([], catalog_uri=str(tmp_path), local_root=str(tmp_path))
    (ev,) = got.own.sources
    assert (ev.name, ev.kind, ev.rows_read) == ("products-2026-11-28.csv", KIND_LOCAL, 3)
    (tmp_path / "latest.json").write_text(json.dumps({"snapshot": "products-2026-11-27.csv"}))
    got = load_catalog_inputs([], catalog_uri=str(tmp_path), local_root=str(tmp_path))
    assert got.own.sources[0].name == "products-2026-11-27.csv"


def test_local_file_is_cached_until_it_changes(tmp_path):
    path = tmp_path / "c.csv"
    path.write_bytes(OWN)
    a = load_catalog_inputs([], catalog_uri=str(path), local_root=str(tmp_path)).own.table
    b = load_catalog_inputs([], catalog_uri=str(path), local_root=str(tmp_path)).own.table
    assert a is b
    path.write_bytes(RIVAL)
    c = load_catalog_inputs([], catalog_uri=str(path), local_root=str(tmp_path)).own.table
    assert c.num_rows == 3


def test_failed_configured_catalog_is_a_fixed_sentence_not_the_demo(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    for uri in (str(tmp_path / "missing.csv"), "/etc/passwd", str(tmp_path / "empty")):
        if uri.endswith("empty"):
            (tmp_path / "empty").mkdir()
        got = load_catalog_inputs([], catalog_uri=uri, local_root=str(tmp_path))
        assert got.own is None and got.problems == [CATALOG_PROBLEM]
        assert all(str(tmp_path) not in p and "passwd" not in p for p in got.problems)
    assert "passwd" in caplog.text  # the detail goes to the log


def test_reference_uri_failure_keeps_the_own_catalog(tmp_path):
    got = load_catalog_inputs([], reference_uri=str(tmp_path / "nope.parquet"), local_root=str(tmp_path))
    assert got.own.sources[0].kind == KIND_DEMO and got.reference is None
    assert got.problems == [REFERENCE_PROBLEM]


def test_local_reference_uri(tmp_path):
    (tmp_path / "market.csv").write_bytes(RIVAL)
    got = load_catalog_inputs([], reference_uri=str(tmp_path / "market.csv"), local_root=str(tmp_path))
    assert [(s.name, s.role, s.kind) for s in got.reference.sources] == [("market.csv", "reference", KIND_LOCAL)]


# ---------------------------------------------------------------- Cloud Storage (real emulator)


def test_cloud_storage_catalog_and_reference(gcs_emulator):
    from agent.catalog.evidence import KIND_GCS

    bucket = gcs_emulator.create_bucket()
    gen = gcs_emulator.upload(bucket, "acme/2026-11-28.csv", b"snapshot_date,sku,title,price\n2026-11-28,A,Chair,10\n")
    gcs_emulator.upload(bucket, "market/rival.csv", RIVAL)
    got = load_catalog_inputs([], catalog_uri=f"gs://{bucket}/acme/", reference_uri=f"gs://{bucket}/market/rival.csv")
    (ev,) = got.own.sources
    assert (ev.name, ev.kind, ev.generation) == (f"gs://{bucket}/acme/2026-11-28.csv", KIND_GCS, gen)
    assert ev.snapshot_date.isoformat() == "2026-11-28" and ev.snapshot_origin == "column snapshot_date"
    assert got.reference.sources[0].role == "reference" and got.reference.table.num_rows == 3
    # warm: the parsed table comes from the cache, nothing is downloaded again
    gcs_emulator.reset_requests()
    again = load_catalog_inputs([], catalog_uri=f"gs://{bucket}/acme/")
    assert again.own.table is got.own.table
    assert gcs_emulator.downloads(bucket) == []


def test_two_earlier_catalogs_keep_product_keys_apart():
    a = load_catalog_inputs([Attachment("a.csv", OWN, None)]).own
    b = load_catalog_inputs([Attachment("b.csv", RIVAL, None)]).own
    got = load_catalog_inputs([], earlier=[a, b]).own
    assert [s.name for s in got.sources] == ["a.csv", "b.csv"]
    assert len(set(got.table["product_key"].to_pylist())) == 5


def test_a_refused_own_file_stops_every_fallback(tmp_path):
    (tmp_path / "catalog.csv").write_bytes(RIVAL)
    refused = [Unreadable("stock.pdf", "application/pdf is not CSV")]
    got = load_catalog_inputs(
        [], question="what is out of stock?", catalog_uri=str(tmp_path), local_root=str(tmp_path), refused=refused
    )
    assert got.own is None and got.unreadable == refused
    assert load_catalog_inputs([], refused=refused).own is None  # nor the demo


def test_a_refused_reference_leaves_the_own_catalog_and_is_said(tmp_path):
    (tmp_path / "catalog.csv").write_bytes(OWN)
    refused = [Unreadable("competitor-prices.pdf", "application/pdf is not CSV")]
    got = load_catalog_inputs(
        [],
        question="compare my prices with the competitor file",
        catalog_uri=str(tmp_path),
        local_root=str(tmp_path),
        refused=refused,
    )
    assert [s.name for s in got.own.sources] == ["catalog.csv"] and got.reference is None
    assert got.unreadable == refused
    # with nothing configured, the demo does not stand in for the merchant's catalog
    assert load_catalog_inputs([], question="compare with the competitor file", refused=refused).own is None
