"""The layer rules, read from the imports of every module in agent/ (issue 13).

Data flows one way: request → protocol → service → catalog → analysis → render → protocol events. A
layer imports only the layers below it, where "below" is what it calls or whose types it uses:

- `protocol` (JSON-RPC, SSE, the card, A2A objects) defines the contract it calls — `RequestHandler`
  and `CallContext` in agent/protocol — so it imports no other layer; the service implements that
  contract and raises the protocol's errors, and `agent.app` / `main.py` wire the two together;
- `service` runs a turn: it uses the stores, the catalog, the analysis and the renderers;
- `store` keeps tasks and contexts (A2A task objects, catalog evidence);
- `render` turns analysis results into Markdown and A2UI; `analysis` computes over catalog tables;
  `catalog` reads sources into tables;
- the base modules (`agent`, `config`, `logs`, `budget`, `errors`, `gsuri`, `bqref`) import only each other.

`agent/config.py` is the only reader of the environment.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ROOT

BASE = "base"
WIRING = "wiring"  # agent.app and the preview page: they may import anything (main.py is outside agent/)
ALLOWED: dict[str, set[str]] = {
    BASE: {BASE},
    "protocol": {BASE},
    "catalog": {BASE},
    "analysis": {"catalog", BASE},
    "render": {"analysis", "catalog", BASE},
    "store": {"protocol", "catalog", BASE},
    "service": {"protocol", "store", "render", "analysis", "catalog", BASE},
}
BASE_MODULES = {"agent", "agent.config", "agent.logs", "agent.budget", "agent.errors", "agent.gsuri", "agent.bqref"}
WIRING_MODULES = {"agent.app", "agent.preview"}


def layer_of(module: str) -> str:
    """The layer a dotted module name of the agent belongs to."""
    if module in BASE_MODULES:
        return BASE
    if module in WIRING_MODULES or module.startswith("agent.preview."):
        return WIRING
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in ALLOWED:
        return parts[1]
    raise AssertionError(f"{module} belongs to no layer: add it to tests/test_layers.py")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def agent_imports(source: str, module: str, is_package: bool) -> set[str]:
    """Every agent module that `source` imports, at the top or inside a function, relative ones resolved."""
    found: set[str] = set()
    for stem, names in imports(source, module, is_package):
        if stem is not None:
            # `from agent import budget` imports the module agent.budget; `from .x import y` the module .x
            names = [f"{stem}.{name}" if _is_module(f"{stem}.{name}") else stem for name in names]
        found |= {name for name in names if name == "agent" or name.startswith("agent.")}
    return found


def imports(source: str, module: str, is_package: bool) -> Iterator[tuple[str | None, list[str]]]:
    """Every import of `source`, at the top or inside a function: (None, modules) for `import a, b`,
    (the resolved module, imported names) for `from … import …` (relative ones resolved against `module`)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield None, [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level else []
            yield ".".join(base + ([node.module] if node.module else [])), [alias.name for alias in node.names]


@functools.cache
def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of `module` that break the layer rules, as readable lines."""
    mine = layer_of(module)
    if mine == WIRING:
        return []
    out = []
    for imported in sorted(agent_imports(source, module, is_package)):
        theirs = layer_of(imported)
        if theirs != mine and theirs not in ALLOWED[mine]:
            out.append(f"{module} ({mine}) imports {imported} ({theirs})")
    return out


def agent_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "agent").rglob("*.py") if "static" not in p.parts)


def test_every_module_imports_only_layers_below_it():
    broken = []
    for path in agent_modules():
        broken += violations(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
    assert not broken, "layer rule broken:\n" + "\n".join(broken)


def test_the_protocol_layer_calls_the_service_only_through_its_own_contract():
    http = (ROOT / "agent" / "protocol" / "http.py").read_text(encoding="utf-8")
    assert not {m for m in agent_imports(http, "agent.protocol.http", False) if m.startswith("agent.service")}
    assert "service: RequestHandler" in http and "service: Any" not in http and "call: Any" not in http


@pytest.mark.parametrize(
    "source, module, expected",
    [
        ("from agent.service.handler import Service", "agent.protocol.http", "agent.service.handler (service)"),
        ("def f():\n    from agent.render import text", "agent.catalog.sources", "agent.render.text (render)"),
        ("from ..analysis import result", "agent.catalog.sources", "agent.analysis.result (analysis)"),
        (
            "from agent import config, logs\nfrom agent.catalog import cache",
            "agent.logs",
            "agent.catalog.cache (catalog)",
        ),
    ],
)
def test_the_checker_finds_an_import_that_climbs(source, module, expected):
    found = violations(source, module)
    assert found and expected in found[0]


@pytest.mark.parametrize(
    "source, module",
    [
        ("from agent.protocol import errors\nfrom agent.catalog.evidence import LoadedCatalog", "agent.store.gcs"),
        ("from . import common\nfrom agent.catalog import taxonomy", "agent.analysis.gaps"),
        ("from agent.service.handler import Service", "agent.app"),
    ],
)
def test_the_checker_lets_an_import_downwards_pass(source, module):
    assert violations(source, module) == []


def environment_reads(source: str) -> list[int]:
    """Lines that read the process environment: os.environ, os.getenv, os.putenv, environ.get."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("environ", "getenv", "environb")
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            lines.append(node.lineno)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in ("environ", "getenv", "environb") for a in node.names)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_only_config_reads_the_environment():
    readers = {module_name(p): environment_reads(p.read_text(encoding="utf-8")) for p in agent_modules()}
    readers = {m: lines for m, lines in readers.items() if lines}
    assert set(readers) == {"agent.config"}, readers


def test_the_environment_checker_sees_every_spelling():
    assert environment_reads("import os\nx = os.environ.get('A')\ny = os.getenv('B')") == [2, 3]
    assert environment_reads("from os import environ") == [1]
    assert environment_reads("import os\nos.path.join('a')") == []


# --- tests: shared helpers live in helper modules, never in another test module ---------------------------


def imported_test_modules(source: str, module: str, is_package: bool = False) -> list[str]:
    """The test_* modules that `source` (the test-side module `module`) imports, relative ones resolved.

    Helpers and tables two test modules share belong in tests/helpers.py (or a non-test module such as
    tests/planner_questions.py), and fixtures in conftest / its `pytest_plugins`: a test module that
    imports another runs or collects the other's module-level work and ties the two together."""
    found: set[str] = set()
    for stem, names in imports(source, module, is_package):
        candidates = names if stem is None else [stem] + [f"{stem}.{name}" for name in names]
        found |= {n for n in candidates if n.startswith("tests.") and n.rsplit(".", 1)[-1].startswith("test_")}
    return sorted(found)


def test_no_test_module_imports_another_test_module():
    broken = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        found = imported_test_modules(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
        if found:
            broken[module_name(path)] = found
    assert not broken, f"move what they share into tests/helpers.py: {broken}"


@pytest.mark.parametrize(
    "source, module, expected",
    [
        ("from tests.test_trust import SECRET", "tests.test_parties", ["tests.test_trust"]),
        ("def f():\n    from tests.test_front_door import run", "tests.test_x", ["tests.test_front_door"]),
        ("from tests import test_planner", "tests.test_x", ["tests.test_planner"]),
        ("from ..test_state_instances import CSV", "tests.reliability.test_y", ["tests.test_state_instances"]),
        ("import tests.test_deploy", "tests.test_x", ["tests.test_deploy"]),
        ("from tests.helpers import footer\nfrom tests import bq_seed", "tests.test_x", []),
    ],
)
def test_the_test_import_checker_sees_every_spelling(source, module, expected):
    assert imported_test_modules(source, module) == expected
