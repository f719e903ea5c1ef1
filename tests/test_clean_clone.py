"""A clean clone passes on its own (issue 12 item 10): nothing the code, the tests, the benches or CI run
reaches outside the repository for the product's shared folder beside the checkout, and what the
tests need from it is vendored with its licence (tests/reference/)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The folder's name is put together here rather than written out, so that this file, which only looks
# for the path, does not itself read as a file that reaches for it.
_NAME = "sha" + "red"
OUTSIDE = re.compile(
    "|".join(
        (
            re.escape("..") + "/" + _NAME,
            "/work/" + _NAME,
            r"""/\s*["']""" + _NAME + """["']""",
            r"""["']\.\.["']\s*,\s*["']""" + _NAME + """["']""",
        )
    )
)


def _sources() -> list[Path]:
    files = [ROOT / "main.py", ROOT / "Makefile", ROOT / ".ci" / "run", ROOT / "pytest.ini", ROOT / "pyproject.toml"]
    for folder in ("agent", "tests", "bench"):
        files += [p for p in (ROOT / folder).rglob("*.py")]
    return [p for p in files if p.exists() and p != Path(__file__).resolve()]


def test_nothing_reads_the_shared_folder_beside_the_checkout():
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _sources()
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert offenders == []


def test_the_vendored_schemas_carry_their_licences():
    for folder in ("a2a-v0.3.0", "a2ui-v0.8"):
        base = ROOT / "tests" / "reference" / folder
        assert (base / "LICENSE").is_file(), folder
        assert any(base.rglob("*.json")), folder
