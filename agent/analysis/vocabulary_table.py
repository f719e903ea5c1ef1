"""The bundled taxonomy's `TaxonomyIndex`, precomputed (issue 16 item 5: the cold path).

Tokenising and stemming every category name of the bundled taxonomy costs ~40 ms of a cold
instance's first send; unmarshalling the same index costs ~5 ms. `make data` writes it to
`data/taxonomy/vocabulary-index.marshal` (`write_table`); tests/test_vocabulary_table.py fails
while the file is stale. The file is the analysis layer's own (the planner's words over the
catalog's taxonomy), not part of the catalog's derived table.

The file is used only for the bundled taxonomy (`catalog.taxonomy.load()`'s object) and only when
its stamp matches: format, marshal version, Unicode version (stemming folds accents), the taxonomy
file's name and size, and a crc32 of `vocabulary.py` (where the tokenising rules live), so an edited
tokeniser or another taxonomy file is never answered from an old table. Otherwise the index is
computed, exactly as without the file. Sets are stored as sorted tuples so that the file's bytes do
not depend on the process's hash seed (`make data` twice writes the same file).
"""

from __future__ import annotations

import functools
from pathlib import Path

from agent.catalog import taxonomy as catalog_taxonomy

TABLE_FILE = catalog_taxonomy.TAXONOMY_DIR / "vocabulary-index.marshal"
TABLE_FORMAT = 1
_RULES_FILE = Path(__file__).with_name("vocabulary.py")


def stamp() -> dict[str, object]:
    """What the table must have been built against to be used in this process."""
    import marshal
    import unicodedata
    import zlib

    source = catalog_taxonomy.TAXONOMY_FILE
    return {
        "format": TABLE_FORMAT,
        "marshal": marshal.version,
        "unicode": unicodedata.unidata_version,
        "taxonomy": (source.name, source.stat().st_size),
        "rules": zlib.crc32(_RULES_FILE.read_bytes()),
    }


def encode(index_parts: tuple) -> bytes:
    """The table's bytes from (by_tokens, by_joined, by_token, vocab, names), stamped."""
    import marshal

    by_tokens, by_joined, by_token, vocab, names = index_parts
    body = (
        by_tokens,
        by_joined,
        {word: tuple(sorted(ids)) for word, ids in by_token.items()},
        tuple(sorted(vocab)),
        names,
    )
    return marshal.dumps({"stamp": stamp(), "index": body})


@functools.lru_cache(maxsize=1)
def bundled_parts() -> tuple | None:
    """(by_tokens, by_joined, by_token, vocab, names) of the bundled taxonomy, or None when the
    file is missing, unreadable or stale."""
    import marshal

    try:
        table = marshal.loads(TABLE_FILE.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(table, dict) or table.get("stamp") != stamp():
        return None
    by_tokens, by_joined, by_token, vocab, names = table["index"]
    return by_tokens, by_joined, {word: set(ids) for word, ids in by_token.items()}, frozenset(vocab), names


def is_bundled(taxonomy: catalog_taxonomy.Taxonomy) -> bool:
    """Whether `taxonomy` is the bundled one already loaded in this process (never loads it)."""
    return catalog_taxonomy.load.cache_info().currsize > 0 and taxonomy is catalog_taxonomy.load()


def build_table() -> bytes:
    """The table's bytes, computed from the bundled taxonomy: what `make data` writes."""
    from agent.analysis.vocabulary import compute_index

    index = compute_index(catalog_taxonomy.load())
    return encode((index.by_tokens, index.by_joined, index.by_token, index.vocab, index.names))


def write_table() -> None:
    """`make data`: (re)write the table next to the taxonomy it comes from."""
    TABLE_FILE.write_bytes(build_table())
