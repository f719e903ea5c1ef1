"""The preview page's one script is built, not hand-written: its lock pins Google's A2UI renderer on the
same web_core version as the renderer check (tests/node), it stays small, and rebuilding it from the
committed build script and lock gives the committed file byte for byte.

The rebuild installs the locked packages from the npm registry (the only network, as tests/a2ui_check.py
does) into the git-ignored `.node/preview/`, once per lock version. Node and npm are required, as for the
renderer check.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess

from tests.conftest import ROOT

BUILD = ROOT / "agent" / "preview" / "build"
BUNDLE = ROOT / "agent" / "preview" / "static" / "preview.js"
WORK = ROOT / ".node" / "preview"
MAX_BUNDLE_BYTES = 1024 * 1024


def _lock() -> dict:
    return json.loads((BUILD / "package-lock.json").read_text())


def test_the_lock_pins_what_package_json_asks_for() -> None:
    wanted = json.loads((BUILD / "package.json").read_text())
    packages = _lock()["packages"]
    for section in ("dependencies", "devDependencies"):
        for name, version in wanted.get(section, {}).items():
            assert packages[f"node_modules/{name}"]["version"] == version, name
            assert packages[""][section][name] == version, name


def test_the_renderer_is_the_v0_8_one_on_the_checked_core() -> None:
    packages = _lock()["packages"]
    checked = json.loads((ROOT / "tests" / "node" / "package-lock.json").read_text())["packages"]
    assert packages["node_modules/@a2ui/web_core"]["version"] == checked["node_modules/@a2ui/web_core"]["version"]
    source = (BUILD / "src" / "preview.js").read_text()
    assert 'from "@a2ui/lit/v0_8"' in source and "a2ui/v0.8" in source


def test_the_bundle_is_small_and_minified() -> None:
    size = BUNDLE.stat().st_size
    assert 0 < size <= MAX_BUNDLE_BYTES, size
    text = BUNDLE.read_text()
    assert "sourceMappingURL" not in text
    # minified: lines average well over 100 characters (the renderer's CSS templates keep their newlines;
    # unminified JavaScript averages ~40)
    assert len(text.splitlines()) < size / 100


def test_rebuilding_gives_the_committed_bundle() -> None:
    npm, node = shutil.which("npm"), shutil.which("node")
    assert npm and node, "node and npm are required to rebuild the preview bundle"
    WORK.mkdir(parents=True, exist_ok=True)
    stamp_value = hashlib.sha256((BUILD / "package-lock.json").read_bytes()).hexdigest()
    with open(WORK.parent / "preview.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = WORK / ".installed"
        if not (stamp.exists() and stamp.read_text() == stamp_value and (WORK / "node_modules" / "esbuild").exists()):
            for name in ("package.json", "package-lock.json"):
                shutil.copyfile(BUILD / name, WORK / name)
            done = subprocess.run(
                [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=WORK,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            stamp.write_text(stamp_value)
        shutil.copyfile(BUILD / "build.mjs", WORK / "build.mjs")
        shutil.copytree(BUILD / "src", WORK / "src", dirs_exist_ok=True)
        out = WORK / "preview.js"
        done = subprocess.run([node, "build.mjs", str(out)], cwd=WORK, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert out.read_bytes() == BUNDLE.read_bytes(), (
            "the committed bundle is stale: run `node build.mjs` in agent/preview/build"
        )
