"""The planner's taxonomy index comes precomputed for the bundled taxonomy (issue 16 item 5, cold path).

What holds it:
- the bundled table is current (rebuilt here, byte for byte; `make data` rewrites it), and its bytes
  do not depend on the hash seed (two processes with different seeds build the same bytes);
- the index read from it equals the one computed from the names, field by field;
- a stale table (the tokeniser's source or the taxonomy file differs, another format) or a missing
  one is not used: the index is computed, and it is the same;
- another taxonomy object than the bundled one is never answered from the table;
- the planner's answers for the demo questions are the same with the table as without it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent.analysis import vocabulary, vocabulary_table
from agent.analysis.planner import plan
from agent.catalog import taxonomy
from tests.conftest import ROOT
from tests.helpers import clean_env

QUESTIONS = ("gaps in outdoor furniture", "price ladder for sofas", "brands in garden", "availability overall")


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts without a cached index or table (both are per process)."""
    vocabulary._TAX_CACHE.clear()
    vocabulary_table.bundled_parts.cache_clear()
    yield
    vocabulary._TAX_CACHE.clear()
    vocabulary_table.bundled_parts.cache_clear()


def test_the_bundled_table_is_current():
    assert vocabulary_table.TABLE_FILE.read_bytes() == vocabulary_table.build_table(), "stale: run `make data`"


def test_the_table_does_not_depend_on_the_hash_seed():
    build = "import sys, hashlib; from agent.analysis import vocabulary_table as t; print(hashlib.sha1(t.build_table()).hexdigest())"
    digests = {
        subprocess.run(
            [sys.executable, "-c", build],
            cwd=ROOT,
            env=clean_env(PYTHONHASHSEED=seed),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1, digests


def test_the_tables_index_is_the_computed_one():
    bundled = taxonomy.load()
    assert vocabulary_table.bundled_parts() is not None, "stale or missing: run `make data`"
    read = vocabulary.taxonomy_index(bundled)
    computed = vocabulary.compute_index(bundled)
    assert read is not computed
    assert read == computed


def _answers() -> list[object]:
    vocabulary._TAX_CACHE.clear()
    bundled = taxonomy.load()
    return [repr(plan(question, None, bundled)) for question in QUESTIONS]


def test_a_stale_table_is_not_used_and_the_answers_stay(monkeypatch):
    with_table = _answers()
    assert vocabulary_table.bundled_parts() is not None
    real = vocabulary_table.stamp()
    monkeypatch.setattr(vocabulary_table, "stamp", lambda: {**real, "rules": real["rules"] + 1})
    vocabulary_table.bundled_parts.cache_clear()
    assert vocabulary_table.bundled_parts() is None
    assert _answers() == with_table


def test_a_table_of_another_format_is_not_used(monkeypatch):
    monkeypatch.setattr(vocabulary_table, "TABLE_FORMAT", vocabulary_table.TABLE_FORMAT + 1)
    assert vocabulary_table.bundled_parts() is None


def test_a_missing_or_broken_table_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setattr(vocabulary_table, "TABLE_FILE", tmp_path / "none.marshal")
    assert vocabulary_table.bundled_parts() is None
    broken = tmp_path / "broken.marshal"
    broken.write_bytes(b"\x00not marshal")
    monkeypatch.setattr(vocabulary_table, "TABLE_FILE", broken)
    vocabulary_table.bundled_parts.cache_clear()
    assert vocabulary_table.bundled_parts() is None
    assert vocabulary.taxonomy_index(taxonomy.load()) == vocabulary.compute_index(taxonomy.load())


def test_another_taxonomy_is_computed_not_read():
    bundled = taxonomy.load()
    first = next(iter(bundled.nodes.values()))
    other = taxonomy.assemble("other", [(first.id, first.path)])
    assert not vocabulary_table.is_bundled(other)
    assert vocabulary.taxonomy_index(other).names == {first.id: vocabulary.name_tokens(first.name)}
