"""The Google product taxonomy (bundled, version 2021-09-21), loaded once per process.

The file ships in `data/taxonomy/`; it is read lazily on first use (cold start stays cheap) and kept
for the life of the instance. Lookups are by id, by full path (case-insensitive), and by subtree.
"""

from __future__ import annotations

import functools
import mmap
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, cast

TAXONOMY_FILE = Path(__file__).resolve().parents[2] / "data" / "taxonomy" / "google-product-taxonomy-with-ids.en-US.txt"
SEPARATOR = " > "
_LINE = re.compile(r"^(\d+)\s+-\s+(.+?)\s*$")


@dataclass(frozen=True)
class Node:
    id: int
    path: str  # "Furniture > Outdoor Furniture > Outdoor Seating"
    name: str  # "Outdoor Seating"
    parent_id: int | None
    depth: int  # 1 for top-level categories


@dataclass
class Taxonomy:
    version: str
    nodes: dict[int, Node]
    by_path: dict[str, int] = field(default_factory=dict)  # lower-cased path -> id
    children: dict[int | None, list[int]] = field(default_factory=dict)

    def node(self, category_id: int) -> Node | None:
        return self.nodes.get(category_id)

    def id_for_path(self, path: str) -> int | None:
        """Exact path match, case- and whitespace-insensitive; `>` separators may lack spaces."""
        key = normalise_path(path).lower()
        return self.by_path.get(key)

    def longest_prefix(self, path: str) -> int | None:
        """The deepest taxonomy node whose path is a prefix (by levels) of `path`.

        Merchant paths often extend Google's ("Furniture > Outdoor Furniture > Teak Sets"), so the
        longest matching prefix is the best honest mapping.
        """
        levels = [lvl for lvl in normalise_path(path).split(SEPARATOR) if lvl]
        for depth in range(len(levels), 0, -1):
            found = self.by_path.get(SEPARATOR.join(levels[:depth]).lower())
            if found is not None:
                return found
        return None

    def children_of(self, category_id: int | None) -> list[int]:
        return self.children.get(category_id, [])

    def descendants(self, category_id: int) -> list[int]:
        """All nodes under `category_id`, depth first, not including it."""
        out: list[int] = []
        stack = list(reversed(self.children_of(category_id)))
        while stack:
            cid = stack.pop()
            out.append(cid)
            stack.extend(reversed(self.children_of(cid)))
        return out

    def leaves_under(self, category_id: int) -> list[int]:
        under = self.descendants(category_id)
        return [cid for cid in under if not self.children_of(cid)] or [category_id]

    def is_within(self, category_id: int, ancestor_id: int) -> bool:
        node = self.nodes.get(category_id)
        while node is not None:
            if node.id == ancestor_id:
                return True
            node = self.nodes.get(node.parent_id) if node.parent_id is not None else None
        return False


def normalise_path(path: str) -> str:
    parts = [part.strip() for part in re.split(r"\s*>\s*", path.replace("\u00a0", " ")) if part.strip()]
    return SEPARATOR.join(parts)


def parse(text: str) -> Taxonomy:
    return assemble(*rows(text))


def rows(text: str) -> tuple[str, list[tuple[int, str]]]:
    """(version, [(id, normalised path)] in file order) of a taxonomy file's text."""
    version = "unknown"
    found: list[tuple[int, str]] = []
    for line in text.splitlines():
        if line.startswith("#"):
            if "Version:" in line:
                version = line.split("Version:", 1)[1].strip()
            continue
        match = _LINE.match(line)
        if match:
            found.append((int(match.group(1)), normalise_path(match.group(2))))
    return version, found


def assemble(version: str, id_paths: list[tuple[int, str]] | tuple[tuple[int, str], ...]) -> Taxonomy:
    """The taxonomy of (id, normalised path) rows in file order (a parent before its children)."""
    nodes: dict[int, Node] = {}
    by_path: dict[str, int] = {}
    children: dict[int | None, list[int]] = {}
    for cid, path in id_paths:
        levels = path.split(SEPARATOR)
        parent = by_path.get(SEPARATOR.join(levels[:-1]).lower()) if len(levels) > 1 else None
        nodes[cid] = Node(cid, path, levels[-1], parent, len(levels))
        by_path[path.lower()] = cid
        children.setdefault(parent, []).append(cid)
    return Taxonomy(version=version, nodes=nodes, by_path=by_path, children=children)


@functools.lru_cache(maxsize=1)
def load() -> Taxonomy:
    """The bundled taxonomy, once per process: its rows from the derived table when that is current
    (no regex per line on a cold start), else parsed from the file."""
    bundled = derived_header().get("taxonomy")
    if bundled is not None:
        return assemble(*bundled)
    return parse(TAXONOMY_FILE.read_text(encoding="utf-8"))


# --- localised names (same ids, names in another language) ------------------------------------------------------
TAXONOMY_DIR = TAXONOMY_FILE.parent
_LOCALE_FILE = re.compile(r"^google-product-taxonomy-with-ids\.([a-z]{2}-[A-Z]{2})(?:\.(\d{4}-\d{2}-\d{2}))?\.txt$")


@functools.lru_cache(maxsize=1)
def available_locales() -> tuple[str, ...]:
    """Locales bundled besides en-US ("de-DE", "ru-RU", …), from the file names in data/taxonomy/."""
    found = []
    for path in sorted(TAXONOMY_DIR.glob("google-product-taxonomy-with-ids.*.txt")):
        match = _LOCALE_FILE.match(path.name)
        if match and match.group(1) != "en-US":
            found.append(match.group(1))
    return tuple(dict.fromkeys(found))


@functools.lru_cache(maxsize=16)
def load_locale(locale: str) -> dict[int, str]:
    """{Google id: localised path} for one bundled locale (paths normalised like en-US's).

    Only ids that also exist in the bundled en-US version are kept: the 2015-02-19 files carry a few
    retired ids, which must never become a scope or a mapping target. Unknown locale -> {}.
    """
    return {cid: path for cid, (_, path) in locale_rows(locale).items()}


def locale_rows(locale: str) -> dict[int, tuple[int, str]]:
    """{Google id: (byte offset of its line, localised path)}: `load_locale` with where each path
    was read (a later line of the same id wins, at the id's first place), so the derived table can
    point at lines instead of holding their names (`derived`). Lines end at "\n" only (a test holds
    the files to that)."""
    out: dict[int, tuple[int, str]] = {}
    offset = 0
    for line in _locale_file(locale)[:].split(b"\n"):
        row = _locale_row(line.decode("utf-8"))
        if row is not None:
            out[row[0]] = (offset, row[1])
        offset += len(line) + 1
    return out


def locale_line(locale: str, offset: int) -> tuple[int, str] | None:
    """(Google id, localised path) of the line at a byte offset of a locale's file, as
    `locale_rows` reads it: the file is mapped, and only that line is decoded."""
    data = _locale_file(locale)
    end = data.find(b"\n", offset)
    return _locale_row(data[offset : end if end >= 0 else len(data)].decode("utf-8"))


def _locale_row(line: str) -> tuple[int, str] | None:
    line_match = _LINE.match(line)
    if line_match and int(line_match.group(1)) in load().nodes:
        return int(line_match.group(1)), normalise_path(line_match.group(2))
    return None


@functools.lru_cache(maxsize=32)
def _locale_file(locale: str) -> bytes | mmap.mmap:
    """A locale's file, mapped (pages are read as lines are), or b"" for an unknown locale."""
    for path in TAXONOMY_DIR.glob(f"google-product-taxonomy-with-ids.{locale}*.txt"):
        match = _LOCALE_FILE.match(path.name)
        if match and match.group(1) == locale:
            with path.open("rb") as file:
                return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    return b""


def localised_path_id(path: str) -> int | None:
    """The Google id of a localised path (lower-cased, normalised) in any bundled locale (a Russian
    feed's `мебель > мебель для сада`); a path spelled the same in two locales names the id of the
    first locale. Read through the derived table when it is current (no locale file is parsed on a
    cold start: the table points at the lines whose path has the key's hash, and each is checked),
    else from every locale file once."""
    if not derived_table_current():
        return localised_paths().get(path)
    locales = available_locales()
    for ref in cast("tuple[int, ...]", derived(hashed_key("p:", path)) or ()):
        row = locale_line(locales[ref // LOCALE_REF], ref % LOCALE_REF)
        if row is not None and row[1].lower() == path:
            return row[0]
    return None


def hashed_key(prefix: str, text: str) -> str:
    """A derived-table key that stands for a long text by its crc32 (its values are checked against
    the lines they point at, so two texts sharing a hash only share a list)."""
    import zlib

    return f"{prefix}{zlib.crc32(text.encode('utf-8')):08x}"


LOCALE_REF = 100_000_000  # a localised line's pointer in the derived table: locale number × 10⁸ + byte offset


@functools.lru_cache(maxsize=1)
def localised_paths() -> dict[str, int]:
    """{lower-cased localised path: Google id} over every bundled locale, every file parsed: what
    the derived table holds under "p:" keys, and the fallback without one."""
    out: dict[str, int] = {}
    for locale in available_locales():
        for cid, path in load_locale(locale).items():
            out.setdefault(path.lower(), cid)
    return out


# --- the derived table: what the taxonomy files imply, precomputed -----------------------------------------------
# `data/taxonomy/derived.marshal` is generated from the files above by `make data` (namematch.write_table) and
# checked current by tests/test_namematch_lazy.py. It is split into shards by a stable hash of the key, so a
# lookup loads one small shard, not the table. Its header names the sources (file names and sizes), the
# Unicode version the words were folded with and the format: when any differ (a taxonomy file replaced, another
# Python), it is not used and everything is derived from the files instead, as without it.
DERIVED_FILE = TAXONOMY_DIR / "derived.marshal"
DERIVED_FORMAT = 1
DERIVED_SHARDS = 4096


def derived_sources() -> dict[str, int]:
    """{file name: size} of every file the derived table is built from."""
    files = [*sorted(TAXONOMY_DIR.glob("google-product-taxonomy-with-ids.*.txt")), SHOPIFY_MAPPING_FILE]
    return {path.name: path.stat().st_size for path in files}


def derived_stamp() -> dict[str, object]:
    """What a derived table must have been built against to be used here."""
    import marshal
    import unicodedata

    return {
        "format": DERIVED_FORMAT,
        "marshal": marshal.version,
        "unicode": unicodedata.unidata_version,
        "sources": derived_sources(),
    }


def shard_of(key: str) -> int:
    """The shard a key lives in (crc32: the same in every process, unlike hash())."""
    import zlib

    return zlib.crc32(key.encode("utf-8")) % DERIVED_SHARDS


@functools.lru_cache(maxsize=1)
def _derived_file() -> tuple[dict, memoryview] | None:
    """The table's header and its shards, mapped (not read: a lookup pages in its shard only)."""
    import marshal

    try:
        with DERIVED_FILE.open("rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        size = int.from_bytes(mapped[:8], "little")
        header = marshal.loads(mapped[8 : 8 + size])
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(header, dict) or header.get("stamp") != derived_stamp():
        return None
    return header, memoryview(mapped)[8 + size :]


def derived_table_current() -> bool:
    """Whether the bundled derived table matches the files and this interpreter."""
    return _derived_file() is not None


def derived_header() -> dict:
    """The table's header: its stamp, shard offsets and whatever the builder put beside them."""
    found = _derived_file()
    return found[0] if found is not None else {}


def derived(key: str) -> object | None:
    """The table's value for a key, or None (no such key, or no current table)."""
    shard = _derived_shard(shard_of(key))
    return shard.get(key) if shard is not None else None


@functools.lru_cache(maxsize=DERIVED_SHARDS)
def _derived_shard(number: int) -> dict | None:
    import marshal

    found = _derived_file()
    if found is None:
        return None
    header, shards = found
    start, end = header["offsets"][number], header["offsets"][number + 1]
    return marshal.loads(shards[start:end])


def pack_derived(header: dict, shards: list[dict]) -> bytes:
    """The derived table's bytes: header length, header (with the stamp and the shard offsets), shards."""
    import marshal

    blobs = [marshal.dumps(shard) for shard in shards]
    offsets = [0]
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    head = marshal.dumps({**header, "stamp": derived_stamp(), "offsets": tuple(offsets)})
    return len(head).to_bytes(8, "little") + head + b"".join(blobs)


# --- Shopify Standard Product Taxonomy -> Google (Shopify's own published mapping) -----------------------------
SHOPIFY_MAPPING_FILE = TAXONOMY_DIR.parent / "shopify-taxonomy" / "shopify_to_google_2021-09-21.ids.tsv"


class _Lookup(Protocol):
    def get(self, key: str, /) -> int | None: ...


@dataclass(frozen=True)
class ShopifyMapping:
    by_path: _Lookup  # lower-cased Shopify path -> Google id
    by_gid: _Lookup  # "gid://shopify/TaxonomyCategory/fr-15-4-2" and "fr-15-4-2" -> Google id
    paths: tuple[tuple[str, int], ...]  # (Shopify path as written, Google id), file order; () when table-backed

    def lookup(self, value: str) -> int | None:
        stripped = value.strip()
        hit = self.by_gid.get(stripped) if "/" in stripped or "-" in stripped and " " not in stripped else None
        return hit if hit is not None else self.by_path.get(normalise_path(stripped).lower())

    def longest_prefix(self, path: str) -> tuple[int, int] | None:
        """(Google id, levels matched) of the deepest Shopify path that prefixes `path`, or None."""
        levels = [lvl for lvl in normalise_path(path).split(SEPARATOR) if lvl]
        for depth in range(len(levels), 0, -1):
            found = self.by_path.get(SEPARATOR.join(levels[:depth]).lower())
            if found is not None:
                return found, depth
        return None


@functools.lru_cache(maxsize=1)
def shopify_mapping() -> ShopifyMapping:
    """Shopify's mapping of its 14,528 mapped categories to Google ids, read once per process.
    Targets that are not in the bundled Google file are dropped (there are none in release 2026-08)."""
    by_path: dict[str, int] = {}
    by_gid: dict[str, int] = {}
    paths: list[tuple[str, int]] = []
    for _, row in _shopify_mapped():
        by_path[_shopify_keys(row, 1)[0]] = row[2]
        for key in _shopify_keys(row, 0):
            by_gid[key] = row[2]
        paths.append((row[1], row[2]))
    return ShopifyMapping(by_path=by_path, by_gid=by_gid, paths=tuple(paths))


def shopify_line(offset: int) -> tuple[str, int] | None:
    """(Shopify path, Google id) of the mapping file's line at a byte offset, as `shopify_mapping`
    reads it (the file is mapped; only that line is decoded)."""
    data = _shopify_file()
    end = data.find(b"\n", offset)
    row = _shopify_row(data[offset : end if end >= 0 else len(data)].decode("utf-8")) if offset > 0 else None
    return (row[1], row[2]) if row is not None else None


def shopify_rows() -> list[tuple[int, str, str, int]]:
    """(byte offset, gid, Shopify path, Google id) of every mapped line, in file order."""
    return [(offset, *row) for offset, row in _shopify_mapped()]


def _shopify_mapped() -> list[tuple[int, tuple[str, str, int]]]:
    """(byte offset, (gid, path, Google id)) of every mapped line after the header, in file order."""
    out = []
    offset = 0
    for line_no, line in enumerate(_shopify_file()[:].split(b"\n")):
        row = _shopify_row(line.decode("utf-8")) if line_no else None
        if row is not None:
            out.append((offset, row))
        offset += len(line) + 1
    return out


@functools.lru_cache(maxsize=1)
def shopify_lookups() -> ShopifyMapping:
    """Shopify's mapping for lookups (`lookup`, `longest_prefix`): through the derived table when it
    is current, so a cold instance parses the lines its paths hash to, not the 14,528 of the file."""
    if not derived_table_current():
        return shopify_mapping()
    return ShopifyMapping(by_path=_TableShopify("s:", 1), by_gid=_TableShopify("g:", 0), paths=())


class _TableShopify:
    """{key: Google id} over the derived table's "s:" (lower-cased path) or "g:" (gid and its tail)
    keys: the lines of the key's hash, checked, the last that matches winning (as in the dict
    `shopify_mapping` builds in file order)."""

    def __init__(self, prefix: str, field: int) -> None:
        self._prefix, self._field = prefix, field

    def get(self, key: str, /) -> int | None:
        found = None
        data = _shopify_file()
        for ref in cast("tuple[int, ...]", derived(hashed_key(self._prefix, key)) or ()):
            end = data.find(b"\n", ref)
            row = _shopify_row(data[ref : end if end >= 0 else len(data)].decode("utf-8"))
            if row is not None and key in _shopify_keys(row, self._field):
                found = row[2]
        return found


def _shopify_keys(row: tuple[str, str, int], field: int) -> tuple[str, ...]:
    """The keys a mapped line stands under: its lower-cased path (field 1), or its gid and the gid's tail (0)."""
    return (row[1].lower(),) if field else (row[0], row[0].rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=1)
def _shopify_file() -> mmap.mmap:
    with SHOPIFY_MAPPING_FILE.open("rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


def _shopify_row(line: str) -> tuple[str, str, int] | None:
    parts = line.split("\t")
    if len(parts) < 3 or not parts[2].strip().isdigit() or int(parts[2]) not in load().nodes:
        return None
    return parts[0].strip(), normalise_path(parts[1]), int(parts[2])
