"""One of each thing (issue 13, DEVELOPERS.md): a second cache type, Cloud Storage client module, gs://
reader, set of terminal states, Markdown escaper or error root would fail here, read from agent/'s source.

The checks read the code (AST and text), so each names the module and line a second copy starts at.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import agent
from agent.errors import AgentError
from tests.conftest import ROOT

AGENT = ROOT / "agent"


def sources() -> dict[str, ast.Module]:
    """Every module of agent/ (the preview page's static files are no Python), parsed, by its path."""
    return {str(p.relative_to(ROOT)): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(AGENT.rglob("*.py"))}


def where(found: list[tuple[str, int]]) -> str:
    return ", ".join(f"{name}:{line}" for name, line in found)


def second_caches(trees: dict[str, ast.Module]) -> list[tuple[str, int]]:
    """agent/catalog/cache.py holds the one Cache (LRU by bytes, TTL, single flight); nothing else keeps an
    ordered dict or defines a cache/memo/LRU class."""
    found = []
    for name, tree in trees.items():
        if name == "agent/catalog/cache.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.lower().endswith(("cache", "lru", "memo")):
                found.append((name, node.lineno))
            if isinstance(node, (ast.Name, ast.Attribute)) and "OrderedDict" in (
                getattr(node, "id", None),
                getattr(node, "attr", None),
            ):
                found.append((name, node.lineno))
            if isinstance(node, ast.alias) and (node.name.split(".")[0] == "cachetools" or node.name == "OrderedDict"):
                found.append((name, getattr(node, "lineno", 0)))
    return found


def test_one_cache_type():
    found = second_caches(sources())
    assert not found, "a second cache: " + where(found)


def storage_imports(trees: dict[str, ast.Module]) -> list[tuple[str, int]]:
    """Only agent/catalog/gcs.py imports google.cloud.storage: the one client and the one retry policy,
    which the state store uses too."""
    found = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n.startswith("google.cloud.storage") for n in names) and name != "agent/catalog/gcs.py":
                found.append((name, node.lineno))
    return found


def test_one_cloud_storage_client_module():
    found = storage_imports(sources())
    assert not found, "Cloud Storage imported outside agent/catalog/gcs.py: " + where(found)


def gs_readers(trees: dict[str, ast.Module]) -> list[tuple[str, int]]:
    """Only agent/gsuri.py tests for or takes apart a gs:// address (`is_gs`, `split`)."""
    found = []
    for name, tree in trees.items():
        if name == "agent/gsuri.py":
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "partition", "split", "removeprefix")
                and any(isinstance(a, ast.Constant) and str(a.value).startswith("gs:") for a in node.args)
            ):
                found.append((name, node.lineno))
    return found


def test_one_gs_uri_reader():
    found = gs_readers(sources())
    assert not found, "a second gs:// reader: " + where(found)


def terminal_sets(trees: dict[str, ast.Module]) -> list[tuple[str, int]]:
    """agent.protocol.objects.TERMINAL_STATES is the one set; a literal naming three of them elsewhere is
    a second copy."""
    states = {"completed", "canceled", "failed", "rejected"}
    found = []
    for name, tree in trees.items():
        if name == "agent/protocol/objects.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
                named = {e.value for e in node.elts if isinstance(e, ast.Constant)} & states
                if len(named) >= 3:
                    found.append((name, node.lineno))
    return found


def test_one_set_of_terminal_states():
    found = terminal_sets(sources())
    assert not found, "a second set of terminal states: " + where(found)


def test_one_markdown_escaper():
    """agent/render/markdown.py escapes for the text answer and for A2UI; no other module defines an
    escaper (`md_escape` in render/text is the same function under its old name)."""
    from agent.render import markdown, text

    assert text.md_escape is markdown.escape_text
    found = []
    for name, tree in sources().items():
        if name == "agent/render/markdown.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and "escape" in node.name and "unescape" not in node.name:
                if name == "agent/render/footer.py" and node.name == "_escaper":  # picks one of markdown's two
                    continue
                found.append((name, node.lineno))
    assert not found, "a second escaper: " + where(found)


def test_one_error_hierarchy():
    """Every exception class the agent defines derives from agent.errors.AgentError, except budget's
    Exhausted: a TimeoutError on purpose, so the storage libraries' own timeout handling treats the spent
    budget as the timeout it is."""
    allowed = {"agent.budget.Exhausted"}
    outside = []
    for info in pkgutil.walk_packages(agent.__path__, "agent."):
        if info.name.startswith("agent.preview.build"):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != info.name or not issubclass(cls, BaseException):
                continue
            qualified = f"{info.name}.{cls.__name__}"
            if not issubclass(cls, AgentError) and qualified not in allowed:
                outside.append(qualified)
    assert not outside, "exceptions outside the one hierarchy: " + ", ".join(outside)


def test_the_checks_see_a_second_copy():
    """The checks above can fail: each finds its kind of copy in a made-up module."""
    made_up = {
        "agent/x.py": ast.parse(
            "from collections import OrderedDict\nfrom google.cloud import storage\nclass TinyLRU: pass\n"
            "x = uri.startswith('gs://')\nDONE = {'completed', 'failed', 'canceled'}\n"
        )
    }
    assert sorted(line for _, line in second_caches(made_up)) == [1, 3]
    assert storage_imports(made_up) == [("agent/x.py", 2)]
    assert gs_readers(made_up) == [("agent/x.py", 4)]
    assert terminal_sets(made_up) == [("agent/x.py", 5)]
