"""Small functions (issue 13, DEVELOPERS.md): no function in agent/ is longer than CEILING lines unless it
is in ALLOWED, each with the reason it is still long. Read from the source (AST), so a new long function —
or one that grew — fails here with its module, line and length.

Lines are counted from `def` to the function's last line, docstring and comments included: what a reader
has to hold at once. A nested function counts in its parent too (it is part of what the parent reads).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

CEILING = 80

# module:qualified name -> why it is still over CEILING. Keep this short: split a function rather than
# add it here; an entry that is no longer over the ceiling fails `test_allowed_functions_are_still_long`.
ALLOWED: dict[str, str] = {}


def function_lengths(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Every function and method of `root`/agent by "path:Qualified.name": (first line, lines)."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted((root / "agent").rglob("*.py")):
        module = path.relative_to(root).as_posix()
        _collect(ast.parse(path.read_text(encoding="utf-8")), f"{module}:", found)
    return found


def _collect(node: ast.AST, prefix: str, found: dict[str, tuple[int, int]]) -> None:
    """Functions below `node`, named `prefix` + their class and enclosing function names."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert child.end_lineno is not None
            found[prefix + child.name] = (child.lineno, child.end_lineno - child.lineno + 1)
            _collect(child, f"{prefix}{child.name}.", found)
        elif isinstance(child, ast.ClassDef):
            _collect(child, f"{prefix}{child.name}.", found)
        else:
            _collect(child, prefix, found)


def test_no_function_is_longer_than_the_ceiling():
    long = {name: size for name, (_, size) in function_lengths().items() if size > CEILING and name not in ALLOWED}
    assert not long, f"functions over {CEILING} lines (split them where a split names something): " + ", ".join(
        f"{name} ({size})" for name, size in sorted(long.items())
    )


def test_allowed_functions_are_still_long():
    """An allow-list entry whose function was split (or renamed away) goes, so the list only shrinks."""
    lengths = function_lengths()
    stale = [name for name in ALLOWED if name not in lengths or lengths[name][1] <= CEILING]
    assert not stale, "no longer over the ceiling, remove from ALLOWED: " + ", ".join(stale)


def test_the_scan_counts_methods_and_nested_functions(tmp_path):
    """The scan is not vacuous: a long method and a function nested in one are found, with their lines."""
    body = "\n".join(f"            x{i} = {i}" for i in range(CEILING))
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "m.py").write_text(f"class C:\n    def outer(self):\n        def inner():\n{body}\n")
    lengths = function_lengths(tmp_path)
    assert lengths["agent/m.py:C.outer"] == (2, CEILING + 2)
    assert lengths["agent/m.py:C.outer.inner"] == (3, CEILING + 1)
    assert len(function_lengths()) > 500  # and the real tree is read
