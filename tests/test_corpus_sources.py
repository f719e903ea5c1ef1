"""Every corpus file has a source, and its bytes are the ones published there.

Each folder of `tests/corpus/` has a `SOURCES.md` whose table names, per file, the repository,
commit, size and git blob. A file that is not listed, or whose bytes no longer match the recorded
blob and size, fails: a corpus of real exports is only worth something if each file is traceable
and unedited (no re-encoding, no "fixing" a row to make a reader pass).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
NOT_DATA = {"SOURCES.md", "README.md"}


def git_blob(data: bytes) -> str:
    """The SHA-1 `git hash-object` prints for these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def source_rows(sources: Path) -> list[dict[str, str]]:
    """The rows of the first Markdown table in a SOURCES.md, keyed by lower-cased header."""
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for line in sources.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            if header is not None and rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
        elif set("".join(cells)) <= set("-: "):
            continue
        else:
            rows.append(dict(zip(header, cells)))
    return rows


def listed() -> list[tuple[Path, dict[str, str]]]:
    out = []
    for sources in sorted(CORPUS.glob("*/SOURCES.md")):
        for row in source_rows(sources):
            out.append((sources.parent / row["file"].strip("`"), row))
    return out


def test_every_folder_has_sources_and_rows() -> None:
    folders = [p for p in CORPUS.iterdir() if p.is_dir()]
    assert folders, "no corpus folders"
    for folder in folders:
        assert (folder / "SOURCES.md").is_file(), f"{folder.name} has no SOURCES.md"
        assert source_rows(folder / "SOURCES.md"), f"{folder.name}/SOURCES.md lists no file"


@pytest.mark.parametrize(
    "path,row", listed(), ids=lambda v: v.parent.name + "/" + v.name if isinstance(v, Path) else ""
)
def test_listed_file_matches_its_source(path: Path, row: dict[str, str]) -> None:
    assert path.is_file(), f"{path.name} is listed but missing"
    data = path.read_bytes()
    assert len(data) == int(row["bytes"]), "size differs from SOURCES.md"
    assert git_blob(data) == row["git blob"], "bytes differ from the published blob"
    assert row["repository"] and len(row["commit"]) == 40, "source repository and commit are stated"
    assert row.get("licence") or row.get("license"), "licence column is filled (or 'none stated')"
    # 1.5 MB per file keeps the repository small; two real exports are the only ones of their class we
    # found (a store-view-only Magento export, a real BigCommerce shop export), so they may be larger.
    limit = 2_500_000 if path.name in LARGE_ALLOWED else 1_500_000
    assert len(data) <= limit, f"corpus files stay at or under {limit:,} bytes"


LARGE_ALLOWED = {"geekbars-store-view-only.csv", "cottoncuts-fabrics.csv"}


def test_every_corpus_file_is_listed() -> None:
    names = {p for p, _ in listed()}
    unlisted = [
        str(p.relative_to(CORPUS))
        for p in sorted(CORPUS.glob("*/*"))
        if p.is_file() and p.name not in NOT_DATA and p not in names
    ]
    assert not unlisted, f"files without a source: {unlisted}"


def test_corpus_stays_small() -> None:
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert total <= 25_000_000
