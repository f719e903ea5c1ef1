"""The demo catalog comes pre-normalised (issue 16 item 5, cold path): `data/demo/catalog.arrow`.

What holds it:
- the bundle is current (rebuilt from the CSV here, byte for byte; `make data` rewrites it);
- its table is the CSV's canonical table (schema with metadata, every chunk's values) and its
  evidence the CSV read's evidence, so every answer is the same;
- `load_demo` answers from it when it is current (the CSV parser is never reached);
- a stale bundle (another CSV, another pyarrow, another format, an edited catalog module) or a
  missing or broken one is not used: the CSV is read, with the same result.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from agent.catalog import demo_bundle, ingest, sources
from agent.catalog.cache import TABLE_CACHE


@pytest.fixture(scope="module")
def from_csv() -> tuple[pa.Table, object]:
    return ingest.read_table_bytes(sources.DEMO_PATH.read_bytes(), sources.DEMO_NAME, sources.KIND_DEMO)


@pytest.fixture(autouse=True)
def no_cached_demo():
    TABLE_CACHE.clear()
    yield
    TABLE_CACHE.clear()


def _bundled() -> tuple[pa.Table, object] | None:
    return demo_bundle.read(sources.DEMO_PATH, sources.DEMO_PATH.read_bytes())


def test_the_bundle_is_current():
    built = demo_bundle.build(sources.DEMO_PATH, sources.DEMO_NAME, sources.KIND_DEMO)
    assert demo_bundle.bundle_path(sources.DEMO_PATH).read_bytes() == built, "stale: run `make data`"


def test_the_bundled_table_is_the_csvs(from_csv):
    bundled = _bundled()
    assert bundled is not None, "stale or missing: run `make data`"
    table, evidence = bundled
    assert table.schema.equals(from_csv[0].schema, check_metadata=True)
    assert table.equals(from_csv[0], check_metadata=True)
    assert [column.num_chunks for column in table.columns] == [column.num_chunks for column in from_csv[0].columns]
    assert evidence == from_csv[1]


def test_load_demo_answers_from_the_bundle(monkeypatch, from_csv):
    def no_parse(*_args):
        raise AssertionError("the CSV was parsed although the bundle is current")

    monkeypatch.setattr(sources, "read_table_bytes", no_parse)
    table, evidence = sources.load_demo()
    assert table.equals(from_csv[0]) and evidence == from_csv[1]


def _assert_falls_back(from_csv) -> None:
    assert _bundled() is None
    table, evidence = sources.load_demo()
    assert table.equals(from_csv[0], check_metadata=True) and evidence == from_csv[1]


def test_another_csv_is_not_answered_from_the_bundle():
    data = sources.DEMO_PATH.read_bytes()
    assert demo_bundle.read(sources.DEMO_PATH, data.replace(b"Oak", b"Elm", 1)) is None
    assert demo_bundle.stamp(data) != demo_bundle.stamp(data + b"\n")


@pytest.mark.parametrize("attribute, value", [("BUNDLE_FORMAT", demo_bundle.BUNDLE_FORMAT + 1)])
def test_a_bundle_of_another_format_is_not_used(monkeypatch, from_csv, attribute, value):
    monkeypatch.setattr(demo_bundle, attribute, value)
    _assert_falls_back(from_csv)


def test_a_bundle_from_other_pyarrow_or_other_rules_is_not_used(monkeypatch, from_csv, tmp_path):
    monkeypatch.setattr(demo_bundle.pa, "__version__", pa.__version__ + ".other")
    _assert_falls_back(from_csv)
    monkeypatch.undo()
    (tmp_path / "reader.py").write_text("# an edited normalisation rule\n")
    monkeypatch.setattr(demo_bundle, "CATALOG_DIR", tmp_path)
    _assert_falls_back(from_csv)


def test_a_missing_or_broken_bundle_is_not_used(monkeypatch, from_csv, tmp_path):
    monkeypatch.setattr(demo_bundle, "bundle_path", lambda _csv: tmp_path / "none.arrow")
    _assert_falls_back(from_csv)
    broken = tmp_path / "broken.arrow"
    broken.write_bytes(b"ARROW1 not really")
    monkeypatch.setattr(demo_bundle, "bundle_path", lambda _csv: broken)
    _assert_falls_back(from_csv)
