"""What ships is pinned, and only what is used: every distribution agent/ and main.py import is declared in
requirements.in, nothing else is; requirements.txt is its lock (same pins, every package hashed); test
tools stay in requirements-dev.txt."""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import re
import sys

from tests.conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9_.\[\]-]+)==([^\s\\;#]+)")


def _name(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist.split("[")[0]).lower()


def pins(path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = PIN.match(line.strip())
        if m:
            out[_name(m.group(1))] = m.group(2)
    return out


@functools.lru_cache(maxsize=None)
def _top_level() -> dict[str, list[str]]:
    return md.packages_distributions()


def imported_modules() -> set[str]:
    """Dotted names of every absolute import in agent/ and main.py, outside the package and the stdlib."""
    found: set[str] = set()
    for path in [ROOT / "main.py", *sorted((ROOT / "agent").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [f"{node.module}.{alias.name}" for alias in node.names]  # from google.cloud import storage
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("agent", "__future__"):
                    found.add(name)
    return found


@functools.lru_cache(maxsize=None)
def _files(dist: str) -> tuple[str, ...]:
    return tuple(str(f) for f in (md.distribution(dist).files or []))


def distribution_of(module: str) -> str:
    """The installed distribution that holds `module` (namespace packages such as google.* by their files)."""
    candidates = _top_level().get(module.split(".")[0], [])
    if len(set(candidates)) == 1:
        return _name(candidates[0])
    parts = module.split(".")
    for depth in range(len(parts), 1, -1):
        prefix = "/".join(parts[:depth]) + "/"
        owners = {_name(d) for d in candidates if any(f.startswith(prefix) for f in _files(d))}
        if len(owners) == 1:
            return owners.pop()
    raise AssertionError(f"no single distribution holds {module}: {candidates}")


def test_every_direct_import_is_declared_and_nothing_else():
    declared = pins(ROOT / "requirements.in")
    used = {distribution_of(m) for m in imported_modules()}
    assert used - set(declared) == set(), "imported but not declared in requirements.in"
    assert set(declared) - used == set(), "declared in requirements.in but not imported by agent/ or main.py"
    for needed in ("numpy", "requests", "google-auth", "google-api-core"):
        assert needed in declared
    assert "pandas" not in declared and "pandas" in pins(ROOT / "requirements-dev.txt")


def test_lock_is_the_whole_closure_pinned_and_hashed():
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    locked = pins(ROOT / "requirements.txt")
    for name, version in pins(ROOT / "requirements.in").items():
        assert locked.get(name) == version, f"{name}: requirements.in says {version}, the lock {locked.get(name)}"
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[-1] if "\n\n" in text else text)
    for entry in (e for e in entries if PIN.match(e.strip())):
        assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert "pandas" not in locked and len(locked) > len(pins(ROOT / "requirements.in"))
    assert "--find-links" not in text and "--index-url" not in text  # nothing of this machine in the lock
    # the installed environment the tests run in is the locked one
    for name, version in locked.items():
        try:
            installed = md.version(name)
        except md.PackageNotFoundError:
            continue  # platform-specific extras of the closure
        assert installed == version, f"{name}: installed {installed}, locked {version}"
