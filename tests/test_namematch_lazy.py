"""The name index is lazy (issue 16 item 5, cold path): a cold instance builds only the entries its
catalog's words need, from the lines `data/taxonomy/derived.marshal` points at, and every answer is the
one the whole index built from the files gives.

What holds it:
- the bundled table is current (rebuilt from the files here, byte for byte; `make data` rewrites it);
- entry by entry, the lazy index equals the full one: every noun's entries and implied words, the
  localised words (every 5th, plus the first and last), whole localised names and localised paths;
- per row, every corpus file maps the same with the table as without it (a process each: the full
  index and every locale file read, against the lazy index and the table);
- a stale table (a source file's size differs, another format) is not used, and the answers stay;
- a fresh process's first lookups read no locale file whole and never build the full index.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent.catalog import namematch, taxonomy
from tests.conftest import ROOT
from tests.helpers import clean_env


@pytest.fixture(autouse=True, scope="module")
def current_table() -> None:
    """Every test here reads the bundled table: a stale one fails them all (never skips), with the fix."""
    assert taxonomy.derived_table_current(), "data/taxonomy/derived.marshal is stale or missing: run `make data`"


@pytest.fixture(scope="module")
def full() -> namematch.FullIndex:
    return namematch.full_index()


@pytest.fixture(scope="module")
def lazy() -> namematch.LazyIndex:
    return namematch.LazyIndex()


def test_the_bundled_table_is_current():
    assert taxonomy.DERIVED_FILE.read_bytes() == namematch.build_table(), "stale: run `make data`"


def test_the_table_is_small_enough_to_ship():
    assert taxonomy.DERIVED_FILE.stat().st_size < 8_000_000


def test_the_same_nouns(full, lazy):
    assert lazy.sorted_heads() == full.sorted_heads()
    assert all(lazy.is_head(head) for head in full.by_head)
    assert not lazy.is_head("zzzz") and not full.is_head("zzzz")


def test_every_noun_has_the_same_entries_in_the_same_order(full, lazy):
    differ = [head for head in full.by_head if lazy.entries(head) != full.entries(head)]
    assert not differ, differ[:10]
    assert lazy.entries("zzzz") == full.entries("zzzz") == []


def test_every_noun_implies_the_same_words(full, lazy):
    differ = [head for head in full.by_head if lazy.implied_by(head) != full.implied_by(head)]
    assert not differ, differ[:10]
    assert lazy.implied_by("zzzz") == full.implied_by("zzzz") == frozenset()


def test_localised_words_hold_the_same_entries(full, lazy):
    words = sorted(full.local_by_word)
    sample = words[::5] + [words[0], words[-1], "mobel", "garten", "мебел"]
    differ = [word for word in sample if lazy.local_entries(word) != full.local_entries(word)]
    assert not differ, differ[:10]
    assert lazy.local_entries("zzzz") == []


def test_whole_localised_names_name_the_same_ids(full, lazy):
    keys = sorted(full.localised)
    sample = keys[::7] + ["gartenmöbel", "мебель для сада", "curated bundle", "misc"]
    differ = [key for key in sample if lazy.localised_id(key) != full.localised_id(key)]
    assert not differ, differ[:10]


def test_a_name_two_ids_share_is_no_whole_name_lazily_either(full, lazy):
    """A leaf spelled alike in two places (or two locales naming two ids) is left out by both."""
    from collections import defaultdict

    ids = defaultdict(set)
    for locale in taxonomy.available_locales():
        for cid, path in taxonomy.load_locale(locale).items():
            ids[namematch._key(path.split(taxonomy.SEPARATOR)[-1])].add(cid)
    shared = sorted(key for key, found in ids.items() if len(found) > 1)
    assert shared  # the files do hold such names
    assert all(lazy.localised_id(key) is None and full.localised_id(key) is None for key in shared[:200])


def test_localised_paths_name_the_same_ids():
    eager = taxonomy.localised_paths()
    paths = sorted(eager)
    sample = paths[::11] + [paths[0], paths[-1], "мебель > мебель для сада", "furniture", "möbel > nope"]
    assert [taxonomy.localised_path_id(path) for path in sample] == [eager.get(path) for path in sample]


def test_a_path_of_two_locales_names_the_first_locales_id():
    """`localised_paths` keeps the first locale's id for a path two spell alike: so does the lazy lookup."""
    seen: dict[str, tuple[str, int]] = {}
    twice = []
    for locale in taxonomy.available_locales():
        for cid, path in taxonomy.load_locale(locale).items():
            first = seen.setdefault(path.lower(), (locale, cid))
            if first[0] != locale:
                twice.append(path.lower())
    assert twice
    assert all(taxonomy.localised_path_id(path) == taxonomy.localised_paths()[path] for path in twice[:300])


def test_locale_lines_end_at_newlines_only():
    """The table points at byte offsets of lines that end at "\\n": no other line break in a file."""
    for path in taxonomy.TAXONOMY_DIR.glob("google-product-taxonomy-with-ids.*.txt"):
        text = path.read_bytes().decode("utf-8")
        assert not any(brk in text for brk in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), path.name
        assert text.splitlines() == text.split("\n")[: len(text.splitlines())]


def test_the_taxonomy_read_from_the_table_is_the_files():
    assert taxonomy.load() == taxonomy.parse(taxonomy.TAXONOMY_FILE.read_text(encoding="utf-8"))
    assert taxonomy.load().version == "2021-09-21"


def test_shopify_lookups_through_the_table_are_the_files():
    """Every Shopify path (as written, lower-cased, with a prefix beyond it), gid and gid tail."""
    table, files = taxonomy.shopify_lookups(), taxonomy.shopify_mapping()
    assert not table.paths and files.paths  # one through the table, one from the file
    asks = [value for _, gid, path, _ in taxonomy.shopify_rows() for value in (path, path.upper(), gid, gid[-12:])]
    asks += ["", "  ", "nope", "Furniture > Nope", "gid://shopify/TaxonomyCategory/zz-1"]
    assert [table.lookup(value) for value in asks] == [files.lookup(value) for value in asks]
    prefixes = [path + " > Teak Sets" for _, _, path, _ in taxonomy.shopify_rows()[::13]] + ["Nope > Nope"]
    assert [table.longest_prefix(value) for value in prefixes] == [files.longest_prefix(value) for value in prefixes]


def test_a_stale_table_is_not_used(monkeypatch):
    sources = taxonomy.derived_sources()
    name = next(iter(sources))
    monkeypatch.setattr(taxonomy, "derived_sources", lambda: {**sources, name: sources[name] + 1})
    _reload_table()
    try:
        assert not taxonomy.derived_table_current()
        assert taxonomy.derived("h:chair") is None
        assert taxonomy.localised_path_id("мебель > мебель для сада") == taxonomy.localised_paths().get(
            "мебель > мебель для сада"
        )
    finally:
        monkeypatch.undo()
        _reload_table()
    assert taxonomy.derived_table_current()


def test_a_table_of_another_format_is_not_used(monkeypatch):
    monkeypatch.setattr(taxonomy, "DERIVED_FORMAT", taxonomy.DERIVED_FORMAT + 1)
    _reload_table()
    try:
        assert not taxonomy.derived_table_current()
    finally:
        monkeypatch.undo()
        _reload_table()


def test_a_missing_table_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setattr(taxonomy, "DERIVED_FILE", tmp_path / "none.marshal")
    _reload_table()
    try:
        assert not taxonomy.derived_table_current()
        assert taxonomy.derived_header() == {}
    finally:
        monkeypatch.undo()
        _reload_table()


def test_a_shard_key_is_stable_across_processes():
    """crc32, not hash(): a table built in one process is read in another (hash randomisation on)."""
    code = "from agent.catalog import taxonomy; print(taxonomy.shard_of('h:chair'), taxonomy.shard_of('w:mobel'))"
    out = {
        subprocess.run(
            [sys.executable, "-c", code], env=clean_env(PYTHONHASHSEED=str(seed)), capture_output=True, text=True
        ).stdout
        for seed in (1, 2)
    }
    assert out == {f"{taxonomy.shard_of('h:chair')} {taxonomy.shard_of('w:mobel')}\n"}


# Map every corpus file in a child process, with the table (lazy) or without it (everything from the files).
MAP_CORPUS = r"""
import json, sys
from pathlib import Path
from agent.catalog import namematch, taxonomy
if sys.argv[1] == "full":
    taxonomy.derived_table_current = lambda: False
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.ingest import read_table_bytes
out = {}
for path in sorted(p for p in Path("tests/corpus").glob("*/*") if p.suffix in {".csv", ".tsv", ".txt"}):
    try:
        table = read_table_bytes(path.read_bytes(), path.name, KIND_ATTACHED)[0]
    except Exception as exc:  # a file the readers refuse is refused alike both ways
        out[str(path)] = type(exc).__name__
        continue
    out[str(path)] = [table.column(name).to_pylist() for name in ("google_category_id", "category_mapping")]
out["index"] = type(namematch.index()).__name__
out["parsed_every_locale"] = taxonomy.localised_paths.cache_info().currsize
print("MAPPED " + json.dumps(out))
"""


def _map_corpus(kind: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MAP_CORPUS, kind], cwd=ROOT, env=clean_env(), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("MAPPED "))
    return json.loads(line[len("MAPPED ") :])


def test_every_corpus_row_maps_the_same_with_the_table_as_without():
    lazy, full = _map_corpus("lazy"), _map_corpus("full")
    assert (lazy.pop("index"), full.pop("index")) == ("LazyIndex", "FullIndex")
    assert (lazy.pop("parsed_every_locale"), full.pop("parsed_every_locale")) == (0, 1)
    assert sum(isinstance(value, list) for value in lazy.values()) > 30  # files read, not refused
    differ = [path for path in full if lazy.get(path) != full[path]]
    assert not differ, differ
    mapped = sum(1 for value in lazy.values() if isinstance(value, list) for cid in value[0] if cid is not None)
    assert mapped > 1000  # the comparison covers real placements, not only refusals


COLD_LOOKUPS = r"""
import json
from agent.catalog import namematch, taxonomy
found = [namematch.match(p) for p in ("Gartenmöbel", "Patio Chair Cover", "Curated Bundle", "Floreros", "Мебель для сада")]
print("COLD " + json.dumps({
    "ids": [m.google_id if m else None for m in found],
    "index": type(namematch.index()).__name__,
    "every_locale": taxonomy.localised_paths.cache_info().currsize,
    "shopify_parsed": taxonomy.shopify_mapping.cache_info().currsize,
    "locale_files_mapped": taxonomy._locale_file.cache_info().currsize,
}))
"""


def test_a_cold_process_reads_only_what_its_lookups_need(full):
    done = subprocess.run(
        [sys.executable, "-c", COLD_LOOKUPS], cwd=ROOT, env=clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cold = json.loads(next(ln for ln in done.stdout.splitlines() if ln.startswith("COLD "))[len("COLD ") :])
    assert cold["index"] == "LazyIndex"
    assert cold["every_locale"] == 0 and cold["shopify_parsed"] == 0
    assert cold["locale_files_mapped"] <= len(taxonomy.available_locales())  # mapped, lines read as pointed at
    assert cold["ids"][1] is not None and cold["ids"][2] is None  # a real answer, and a real miss


def test_the_cold_answers_are_the_full_indexs(monkeypatch, full):
    """The same five lookups, here with the full index (caches cleared both ways)."""
    phrases = ("Gartenmöbel", "Patio Chair Cover", "Curated Bundle", "Floreros", "Мебель для сада")
    lazy_ids = [m.google_id if m else None for m in map(namematch.match, phrases)]
    _clear_caches()
    monkeypatch.setattr(namematch, "index", lambda: full)
    try:
        full_ids = [m.google_id if m else None for m in map(namematch.match, phrases)]
    finally:
        monkeypatch.undo()
        _clear_caches()
    assert lazy_ids == full_ids


def _clear_caches() -> None:
    namematch._CACHE.clear()
    for cached in (namematch._votes, namematch._vocabulary, namematch._closed_compounds, namematch._sorted_heads):
        cached.cache_clear()


def _reload_table() -> None:
    taxonomy._derived_file.cache_clear()
    taxonomy._derived_shard.cache_clear()


def test_accents_fold_alike_with_the_marks_met_as_they_come():
    """`_fold_accents` fills its table of combining marks as characters are met: the same text as a
    test of every character, over every bundled locale (and a character beyond the plane)."""
    import unicodedata

    for locale in taxonomy.available_locales():
        text = unicodedata.normalize("NFKD", "\n".join(taxonomy.load_locale(locale).values()).casefold())
        assert namematch._fold_accents(text) == "".join(ch for ch in text if not unicodedata.combining(ch)), locale
    assert namematch._fold_accents("e\u0301\U0001d400") == "e\U0001d400"
