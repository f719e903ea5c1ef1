"""Reusable A2UI validators for tests: the official JSON Schema, our structural checks, and the
official renderer core (`@a2ui/web_core`) run under Node.

Any test that has A2UI messages in hand (unit tests of the builder, protocol tests of artifacts and
status copies) can call `check_surfaces(list_of_surfaces)`; it asserts everything at once and returns
what the renderer built, so the caller can look at rendered Text HTML too.

The Node packages are installed on first use from the npm registry (the only network this touches),
pinned by tests/node/package-lock.json, into the git-ignored `.node/a2ui/`, and reused while the lock
file is unchanged. Node and npm are required: a missing toolchain fails the test, it never skips.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import jsonschema

from agent.render.a2ui import MIME_TYPE
from agent.render.a2ui_structure import validate_structure

REPO = Path(__file__).resolve().parents[1]
SCHEMA_PATH = (
    Path(__file__).resolve().parent / "reference" / "a2ui-v0.8" / "server_to_client_with_standard_catalog.json"
)
NODE_SRC = REPO / "tests" / "node"
INSTALL_DIR = REPO / ".node" / "a2ui"
SCRIPT = "a2ui_render_check.mjs"
_PACKAGE_FILES = ("package.json", "package-lock.json")


@lru_cache(maxsize=1)
def schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(message: dict) -> list[str]:
    """Every violation of the official v0.8 schema (standard catalog) by one message."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in schema_validator().iter_errors(message)]


def surface_id(messages: list[dict]) -> str:
    return next(iter(messages[0].values()))["surfaceId"]


def components_of(messages: list[dict]) -> list[dict]:
    return [c for m in messages if "surfaceUpdate" in m for c in m["surfaceUpdate"]["components"]]


def assert_parts(parts: list[dict]) -> list[dict]:
    """A2A DataParts carrying A2UI: shape and mime type; returns the messages inside."""
    messages = []
    for part in parts:
        assert set(part) == {"kind", "data", "metadata"}, part.keys()
        assert part["kind"] == "data"
        assert part["metadata"] == {"mimeType": MIME_TYPE}
        assert isinstance(part["data"], dict) and len(part["data"]) == 1
        messages.append(part["data"])
    return messages


def check_surfaces(surfaces: list[list[dict]]) -> dict:
    """Assert schema, structure, distinct surface ids and the renderer's node counts; return its report.

    `surfaces` is a list of message lists, one per surface (one per skill artifact). The returned dict
    maps surfaceId → {"root", "nodes", "texts": {component id: {"hint", "weight", "html"}}, "buttons": {component id: action}}.
    """
    ids = [surface_id(messages) for messages in surfaces]
    assert len(set(ids)) == len(ids), f"surface ids reused across artifacts: {ids}"
    for messages in surfaces:
        for message in messages:
            problems = schema_errors(message)
            assert not problems, problems[:5]
            assert "version" not in _all_keys(message), "A2UI v0.8 messages carry no version key"
        problems = validate_structure(messages)
        assert not problems, problems
    report = run_renderer(surfaces)
    for messages in surfaces:
        sid = surface_id(messages)
        assert sid in report, f"renderer has no surface {sid!r}"
        assert report[sid]["nodes"] == len(components_of(messages)), (sid, report[sid]["nodes"])
    return report


def _all_keys(value: object) -> set[str]:
    keys: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            keys |= _all_keys(item)
    elif isinstance(value, list):
        for item in value:
            keys |= _all_keys(item)
    return keys


# --- Node renderer core -----------------------------------------------------------------------------


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise AssertionError(f"{name} is required for the A2UI renderer check (it is never skipped)")
    return path


def ensure_installed() -> Path:
    """Install the pinned Node packages into .node/a2ui once per lock-file version; return the folder."""
    INSTALL_DIR.mkdir(parents=True, exist_ok=True)
    stamp_value = hashlib.sha256(b"".join((NODE_SRC / name).read_bytes() for name in _PACKAGE_FILES)).hexdigest()
    stamp = INSTALL_DIR / ".installed"
    with open(INSTALL_DIR.parent / "a2ui.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test processes install once
        marker = INSTALL_DIR / "node_modules" / "@a2ui" / "web_core" / "package.json"
        if not (stamp.exists() and stamp.read_text() == stamp_value and marker.exists()):
            for name in _PACKAGE_FILES:
                shutil.copyfile(NODE_SRC / name, INSTALL_DIR / name)
            done = subprocess.run(
                [_tool("npm"), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=INSTALL_DIR,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, f"npm ci failed: {done.stderr[-2000:]}"
            stamp.write_text(stamp_value)
        shutil.copyfile(NODE_SRC / SCRIPT, INSTALL_DIR / SCRIPT)
    return INSTALL_DIR


def run_renderer(surfaces: list[list[dict]]) -> dict:
    """Process all surfaces with one A2uiMessageProcessor under Node; return its per-surface report."""
    folder = ensure_installed()
    done = subprocess.run(
        [_tool("node"), SCRIPT],
        cwd=folder,
        input=json.dumps({"surfaces": surfaces}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"renderer check printed no JSON: {done.stdout[-500:]} {done.stderr[-2000:]}") from None
    assert done.returncode == 0 and out.get("ok"), out.get("error") or done.stderr[-2000:]
    return out["surfaces"]
