"""Public parameters say what they hold (issue 13): no public function or method of agent/ takes a one- or
two-letter parameter (`d`, `n`, `fn`, `pk` …) beyond the few names that are what they are (`i`, `j`, `x`,
`y`, `id`), unless ALLOWED lists it. Read from the source (AST); a caller reads the name at every keyword
call and in every signature help, so it is part of the interface.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PLAIN = frozenset({"i", "j", "x", "y", "id"})

# module:function(parameter) -> why it stays
ALLOWED = {}


def short_public_parameters(root: Path = ROOT) -> list[str]:
    """ "module:Qualified.function(parameter)" for each short parameter of a public function or method
    (of a public class) below `root`/agent; `self`/`cls` are not parameters a caller names."""
    found = []
    for path in sorted((root / "agent").rglob("*.py")):
        module = path.relative_to(root).as_posix()
        _scan(ast.parse(path.read_text(encoding="utf-8")), f"{module}:", True, found)
    return found


def _scan(node: ast.AST, prefix: str, public: bool, found: list[str]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            _scan(child, f"{prefix}{child.name}.", public and not child.name.startswith("_"), found)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            dunder = child.name.startswith("__") and child.name.endswith("__")
            if public and (dunder or not child.name.startswith("_")):
                args = child.args
                for arg in args.posonlyargs + args.args + args.kwonlyargs:
                    if len(arg.arg) <= 2 and arg.arg not in PLAIN:
                        found.append(f"{prefix}{child.name}({arg.arg})")
            # a function nested in a function is no interface
        elif not isinstance(child, ast.Lambda):
            _scan(child, prefix, public, found)


def test_public_parameters_have_names_that_say_what_they_hold():
    short = [name for name in short_public_parameters() if name not in ALLOWED]
    assert not short, "rename to what each holds (and its keyword callers): " + ", ".join(short)


def test_allowed_names_are_still_there():
    stale = set(ALLOWED) - set(short_public_parameters())
    assert not stale, "renamed: remove from ALLOWED: " + ", ".join(sorted(stale))


def test_the_scan_sees_short_names_on_public_functions_only(tmp_path):
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "m.py").write_text(
        "def f(d, i, row_count): pass\n"
        "def _g(n): pass\n"
        "class C:\n    def __init__(self, n): pass\n    def m(self, *, fn): pass\n    def _p(self, k): pass\n"
        "class _D:\n    def m(self, d): pass\n"
    )
    assert short_public_parameters(tmp_path) == ["agent/m.py:f(d)", "agent/m.py:C.__init__(n)", "agent/m.py:C.m(fn)"]


def test_no_function_is_named_underscore():
    """The templates once were ~45 functions all called `_`: each has a name that says what it renders."""
    unnamed = [
        f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
        for path in sorted((ROOT / "agent").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "_"
    ]
    assert not unnamed, "functions named _: " + ", ".join(unnamed)
