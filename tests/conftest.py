"""Shared fixtures: a real functions-framework process on a free loopback port, and schema validators.

Every front-door test talks HTTP to a real server process, exactly as a client would.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
# Everything the tests read is in the repository (copied from the project's reference folder with its
# licences and sources): a clean clone runs on its own.
REFERENCE = ROOT / "tests" / "reference"
A2A_SCHEMA = REFERENCE / "a2a-v0.3.0" / "a2a.json"
CATALOGS = ROOT / "tests" / "corpus" / "seed"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


AGENT_SETTINGS = (
    "CATALOG_",
    "A2UI_",
    "STATE_",
    "REFERENCE_",
    "ALLOWED_",
    "CONTEXT_",
    "MAX_BODY_BYTES",
    "LOG_LEVEL",
    "GOOGLE_CLOUD_PROJECT",
    "STORAGE_EMULATOR_HOST",
    "TEST_STEP_GATE",
    "CALLER_",
    "MEMORY_",
    "BODY_READ_SECONDS",
    "TURN_STORAGE_SECONDS",
)

# the card's provider, and what Cloud Run sets (it switches the logs to JSON): never from the developer's shell
AGENT_SETTINGS += ("PROVIDER_", "K_SERVICE")
AGENT_SETTINGS += ("PREVIEW",)  # `make run` sets it; a test that wants the preview page says so
AGENT_SETTINGS += ("BIGQUERY_", "MERCHANT_CENTER_ID")  # bq:// sources (issue 15)


class Server:
    """A running `functions-framework --target=a2a` process and what it printed."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"cga-server-{self.port}.log"
        # the agent's own settings (agent/config.py) never leak in from the developer's shell
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS)}
        full_env.update({"PUBLIC_URL": self.url, "THREADS": "8", "PYTHONUNBUFFERED": "1"})
        full_env.update(env or {})
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "functions_framework", "--target=a2a", "--host=127.0.0.1", f"--port={self.port}"],
            cwd=ROOT,
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited at start:\n" + self.output())
            try:
                if httpx.get(self.url, timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError("server did not start:\n" + self.output())

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
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
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
