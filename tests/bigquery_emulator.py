"""A real BigQuery emulator on loopback for tests: `bqemulator` (REST + gRPC Storage Read, DuckDB inside).

The emulator lives in its own virtual environment, `<venv>/bqemu` (made by `make test` from
requirements-bqemu.txt), because its dependencies cannot share the agent's: it needs protobuf < 7
(through grpcio-health-checking < 1.81) where the runtime lock pins protobuf 7, and DuckDB 1.5.5 (the
only version the `duckdb-extension-spatial` package ships an extension file for) where the test tools
pin DuckDB 2. It runs as a subprocess anyway, so only its interpreter differs.

Offline: the emulator refuses to start without DuckDB's spatial extension, and DuckDB cannot download
extensions here. The fixture gives the subprocess a private HOME (a temp dir) whose
`.duckdb/extensions/v1.5.5/linux_amd64/` holds the extension file copied from the
`duckdb-extension-spatial` package, so `INSTALL spatial` finds it installed and nothing is fetched;
`~/.duckdb` is never written. The optional Avro extension is switched off for the same reason.

Fixture `bq_emulator` (session-wide): a `BqEmulator` with `rest_url`, `grpc_target`, `project`, a
`client` (google-cloud-bigquery) and `env` (the agent settings that point it at the emulator).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.emulators import free_port

PROJECT = "local-project"
DUCKDB_VERSION = "v1.5.5"


def emulator_python() -> Path:
    """The emulator venv's interpreter, beside the one running the tests."""
    return Path(sys.prefix) / "bqemu" / "bin" / "python"


class BqEmulator:
    """One `python -m bqemulator start` process (ephemeral, in memory) and clients bound to it."""

    def __init__(self) -> None:
        self.rest_port, self.grpc_port = free_port(), free_port()
        self.rest_url = f"http://127.0.0.1:{self.rest_port}"
        self.grpc_target = f"127.0.0.1:{self.grpc_port}"
        self.project = PROJECT
        self._home = tempfile.mkdtemp(prefix="bqemu-home-")
        self._proc: subprocess.Popen | None = None
        self._client = None

    def _install_spatial(self, python: Path) -> None:
        found = subprocess.run(
            [
                str(python),
                "-c",
                "import duckdb_extension_spatial, os; print(os.path.dirname(duckdb_extension_spatial.__file__))",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        src = Path(found.stdout.strip()) / "extensions" / DUCKDB_VERSION / "spatial.duckdb_extension"
        dest = Path(self._home) / ".duckdb" / "extensions" / DUCKDB_VERSION / "linux_amd64"
        dest.mkdir(parents=True)
        os.symlink(src, dest / "spatial.duckdb_extension")

    def start(self, timeout: float = 60.0) -> "BqEmulator":
        python = emulator_python()
        if not python.exists():
            raise RuntimeError(f"the BigQuery emulator's venv is missing ({python}): run `make test` once")
        self._install_spatial(python)
        env = {k: v for k, v in os.environ.items() if not k.startswith("BQEMU_")}
        # The emulator sends a read stream in 65,536-row messages, and its gRPC send limit is derived
        # from the Write API's request cap (+1 MiB): 64 MiB lets wide transfer rows through.
        env.update(
            {
                "HOME": self._home,
                "BQEMU_ENABLE_FORMAT_EXTENSIONS": "false",
                "PYTHONUNBUFFERED": "1",
                "BQEMU_WRITE_API_MAX_REQUEST_BYTES": str(64 * 1024 * 1024),
            }
        )
        self._log = open(Path(self._home) / "emulator.log", "wb")
        self._proc = subprocess.Popen(
            [
                str(python),
                "-m",
                "bqemulator",
                "start",
                "--rest-port",
                str(self.rest_port),
                "--grpc-port",
                str(self.grpc_port),
                "--project",
                self.project,
                "--log-level",
                "warning",
                "--log-format",
                "json",
            ],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self._home,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError("the BigQuery emulator exited: " + self.log_tail())
            try:
                urllib.request.urlopen(f"{self.rest_url}/bigquery/v2/projects/{self.project}/datasets", timeout=2)
                return self
            except urllib.error.HTTPError:
                return self  # it answers HTTP: up
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the BigQuery emulator did not start: " + self.log_tail())

    def log_tail(self) -> str:
        try:
            return (Path(self._home) / "emulator.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self._home, ignore_errors=True)

    @property
    def env(self) -> dict[str, str]:
        """The agent's settings that point its clients at this emulator."""
        return {
            "BIGQUERY_EMULATOR_HOST": self.rest_url,
            "BIGQUERY_STORAGE_EMULATOR_HOST": self.grpc_target,
            "GOOGLE_CLOUD_PROJECT": self.project,
        }

    @property
    def client(self):
        if self._client is None:
            from google.api_core.client_options import ClientOptions
            from google.auth.credentials import AnonymousCredentials
            from google.cloud import bigquery

            self._client = bigquery.Client(
                project=self.project,
                credentials=AnonymousCredentials(),
                client_options=ClientOptions(api_endpoint=self.rest_url),
            )
        return self._client


_SHARED: dict[str, BqEmulator] = {}


@pytest.fixture(scope="session")
def bq_emulator() -> Iterator[BqEmulator]:
    if "emu" not in _SHARED:
        _SHARED["emu"] = BqEmulator().start()
        atexit.register(_SHARED["emu"].stop)
    yield _SHARED["emu"]
