"""Shared fixtures: a real functions-framework process on a free loopback port, and schema validators.

Every front-door test talks HTTP to a real server process, exactly as a client would.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.agent_process import AgentProcess

ROOT = Path(__file__).resolve().parents[1]
# Everything the tests read is in the repository (copied from the project's reference folder with its
# licences and sources): a clean clone runs on its own.
REFERENCE = ROOT / "tests" / "reference"
A2A_SCHEMA = REFERENCE / "a2a-v0.3.0" / "a2a.json"
CATALOGS = ROOT / "tests" / "corpus" / "seed"


class Server(AgentProcess):
    """A running `functions-framework --target=a2a` process and what it printed (tests/agent_process.py)."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self._log = tempfile.NamedTemporaryFile(prefix="cga-server-", suffix=".log", delete=False)
        self.log_path = Path(self._log.name)
        super().__init__(env, output=self._log)

    def output(self) -> str:
        self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_records(self) -> list[dict]:
        records = []
        for line in self.output().splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    records.append(json.loads(line))
                except ValueError:
                    pass
        return records

    def stop(self) -> None:
        super().stop()
        self._log.close()


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def start_server():
    """Factory for servers with their own environment (A2UI_DEFAULT, CATALOG_URI…)."""
    started: list[Server] = []

    def start(env: dict[str, str] | None = None) -> Server:
        srv = Server(env)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture(scope="session")
def a2a_schema() -> dict:
    return json.loads(A2A_SCHEMA.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def a2a_validate(a2a_schema):
    """validate(instance, "Task") against the official A2A 0.3.0 JSON Schema definitions."""
    from jsonschema import Draft7Validator

    validators: dict[str, Draft7Validator] = {}

    def validate(instance: object, definition: str) -> None:
        if definition not in validators:
            schema = dict(a2a_schema)
            schema["$ref"] = f"#/definitions/{definition}"
            validators[definition] = Draft7Validator(schema)
        errors = sorted(validators[definition].iter_errors(instance), key=lambda e: list(e.path))
        assert not errors, f"{definition} invalid: " + "; ".join(
            f"{list(e.path)}: {e.message[:200]}" for e in errors[:5]
        )

    return validate


# --- plugins and markers (issue 13) ------------------------------------------------------------------
# The storage-emulator fixtures (gcs_emulator, fresh_gcs_emulator, fake_gcs) for every module: no test
# module imports a fixture. Helpers shared between modules are in tests/helpers.py.
pytest_plugins = ["tests.emulators"]

MARKERS = {
    "unit": "fast, in-process: no server process, emulator, browser or Node (`make test-fast`, `pytest -m unit`)",
    "server": "starts the agent as a real functions-framework process",
    "emulator": "uses a Cloud Storage emulator process",
    "browser": "drives Chromium (the preview page) or runs the A2UI renderer under Node",
    "slow": "in-process but slow (whole corpora, large generated catalogs, deploy.sh runs)",
}
# Fixtures that start a process: a test that names one (directly or through another fixture) is not `unit`.
PROCESS_FIXTURES = {
    "server": "server",
    "start_server": "server",
    "gcs_emulator": "emulator",
    "fresh_gcs_emulator": "emulator",
    "fake_gcs": "emulator",
}
# Modules that start processes without a fixture, or are slow in-process (measured with --durations).
MODULE_MARKS = {
    "test_preview_browser": "browser",
    "test_a2ui_renderer": "browser",
    "test_preview_bundle": "browser",
    "test_state_instances": "emulator",
    "test_store_faults": "emulator",
    "test_slow_storage": "emulator",
    "test_readme": "server",
    "test_make": "server",
    "test_preview_page": "server",
    "test_config": "server",
    "test_deploy_run": "slow",
    "test_deploy": "slow",
    "test_deploy_state": "slow",
    "test_demo_data": "slow",
    # whole corpora, every planner question, every card, large generated files: seconds each
    "test_analysis_demo": "slow",
    "test_a2ui_catalogs": "slow",
    "test_a2ui_followups": "slow",
    "test_catalog_formats": "slow",
    "test_catalog_ragged": "slow",
    "test_catalog_messy": "slow",
    "test_scope_corpus": "slow",
    "test_mapping_eval": "slow",
    "test_planner_languages": "slow",
    "test_corpus_money": "slow",
    "test_corpus_rows": "slow",
    "test_corpus_sources": "slow",
}
# Parametrised fixtures that reach an emulator through request.getfixturevalue (tests/test_store.py).
PARAM_MARKS = {("backend", "gcs"): "emulator"}


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test by what it starts, so `-m unit` is exactly the tests that start nothing."""
    for item in items:
        kinds = {PROCESS_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in PROCESS_FIXTURES}
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        if module in MODULE_MARKS:
            kinds.add(MODULE_MARKS[module])
        params = getattr(getattr(item, "callspec", None), "params", {})
        kinds |= {kind for (name, value), kind in PARAM_MARKS.items() if params.get(name) == value}
        kinds |= {m.name for m in item.iter_markers() if m.name in MARKERS and m.name != "unit"}
        for kind in sorted(kinds):
            item.add_marker(kind)
        if not kinds:
            item.add_marker("unit")
