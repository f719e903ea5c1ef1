"""Source precedence, demo catalog, reference detection, configured locations (local)."""

from __future__ import annotations

import csv
import io
import json
import logging

import pyarrow.compute as pc

from agent.catalog import canonical
from agent.catalog.attachments import Attachment
from agent.catalog.evidence import KIND_ATTACHED, KIND_DEMO, KIND_LOCAL
from agent.catalog.sources import (
    CATALOG_PROBLEM, DEMO_NAME, DEMO_PATH, REFERENCE_PROBLEM, load_catalog_inputs, pick_reference,
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
