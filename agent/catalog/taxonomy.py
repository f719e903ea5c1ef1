"""The Google product taxonomy (bundled, version 2021-09-21), loaded once per process.

The file ships in `data/taxonomy/`; it is read lazily on first use (cold start stays cheap) and kept
for the life of the instance. Lookups are by id, by full path (case-insensitive), and by subtree.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

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
    version = "unknown"
    nodes: dict[int, Node] = {}
    by_path: dict[str, int] = {}
    children: dict[int | None, list[int]] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            if "Version:" in line:
                version = line.split("Version:", 1)[1].strip()
            continue
        match = _LINE.match(line)
        if not match:
            continue
        cid, path = int(match.group(1)), normalise_path(match.group(2))
        levels = path.split(SEPARATOR)
        parent = by_path.get(SEPARATOR.join(levels[:-1]).lower()) if len(levels) > 1 else None
        nodes[cid] = Node(cid, path, levels[-1], parent, len(levels))
        by_path[path.lower()] = cid
        children.setdefault(parent, []).append(cid)
    return Taxonomy(version=version, nodes=nodes, by_path=by_path, children=children)


@functools.lru_cache(maxsize=1)
def load() -> Taxonomy:
    """The bundled taxonomy, parsed once per process."""
    return parse(TAXONOMY_FILE.read_text(encoding="utf-8"))


# --- localised names (same ids, names in another language) ------------------------------------------------------
TAXONOMY_DIR = TAXONOMY_FILE.parent
_LOCALE_FILE = re.compile(r"^google-product-taxonomy-with-ids\.([a-z]{2}-[A-Z]{2})(?:\.(\d{4}-\d{2}-\d{2}))?\.txt$")


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
    current = load().nodes
    for path in TAXONOMY_DIR.glob(f"google-product-taxonomy-with-ids.{locale}*.txt"):
        match = _LOCALE_FILE.match(path.name)
        if not match or match.group(1) != locale:
            continue
        out: dict[int, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            line_match = _LINE.match(line)
            if line_match and int(line_match.group(1)) in current:
                out[int(line_match.group(1))] = normalise_path(line_match.group(2))
        return out
    return {}


@functools.lru_cache(maxsize=1)
def localised_paths() -> dict[str, int]:
    """{lower-cased localised path: Google id} over every bundled locale (a Russian feed's
    `Мебель > Мебель для сада`). A path spelled the same in two locales names the same id."""
    out: dict[str, int] = {}
    for locale in available_locales():
        for cid, path in load_locale(locale).items():
            out.setdefault(path.lower(), cid)
    return out


# --- Shopify Standard Product Taxonomy -> Google (Shopify's own published mapping) -----------------------------
SHOPIFY_MAPPING_FILE = TAXONOMY_DIR.parent / "shopify-taxonomy" / "shopify_to_google_2021-09-21.ids.tsv"


@dataclass(frozen=True)
class ShopifyMapping:
    by_path: dict[str, int]  # lower-cased Shopify path -> Google id
    by_gid: dict[str, int]  # "gid://shopify/TaxonomyCategory/fr-15-4-2" and "fr-15-4-2" -> Google id
    paths: tuple[tuple[str, int], ...]  # (Shopify path as written, Google id), file order

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
    current = load().nodes
    by_path: dict[str, int] = {}
    by_gid: dict[str, int] = {}
    paths: list[tuple[str, int]] = []
    for line in SHOPIFY_MAPPING_FILE.read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) < 3 or not parts[2].strip().isdigit() or int(parts[2]) not in current:
            continue
        gid, path, cid = parts[0].strip(), normalise_path(parts[1]), int(parts[2])
        by_path[path.lower()] = cid
        by_gid[gid] = cid
        by_gid[gid.rsplit("/", 1)[-1]] = cid
        paths.append((path, cid))
    return ShopifyMapping(by_path=by_path, by_gid=by_gid, paths=tuple(paths))
