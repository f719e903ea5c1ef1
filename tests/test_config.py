"""Configuration: parsed in one place; a bad value stops start-up with a line that names the variable."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent import config
from tests.agent_process import free_port
from tests.conftest import ROOT


def test_defaults_serve_the_demo_locally():
    cfg = config.load({})
    assert cfg.public_url == "http://127.0.0.1:8080/" and cfg.rpc_path == "/"
    assert cfg.catalog_uri is None and cfg.state_bucket is None
    assert cfg.a2ui_default is False and cfg.allowed_catalog_prefixes == ()
    assert cfg.max_body_bytes == 32 * 1024 * 1024


def test_values_are_parsed():
    cfg = config.load(
        {
            "PUBLIC_URL": "https://x.run.app/a2a",
            "CATALOG_URI": "gs://acme-cat/acme/",
            "A2UI_DEFAULT": "ON",
            "A2UI_STATUS_COPY": "true",
            "THREADS": "16",
            "LOG_LEVEL": "debug",
            "STATE_BUCKET": "gs://acme-state",
        }
    )
    assert cfg.rpc_path == "/a2a" and cfg.catalog_uri == "gs://acme-cat/acme/"
    assert cfg.allowed_catalog_prefixes == ("gs://acme-cat/",)
    assert cfg.a2ui_default and cfg.a2ui_status_copy and cfg.threads == 16 and cfg.log_level == "DEBUG"
    assert cfg.state_bucket == "acme-state"


@pytest.mark.parametrize(
    "name,value,fragment",
    [
        ("A2UI_DEFAULT", "maybe", "A2UI_DEFAULT must be 'on' or 'off'"),
        ("THREADS", "many", "THREADS must be a whole number"),
        ("THREADS", "0", "THREADS must be between"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL must be one of"),
        ("CATALOG_URI", "https://example.com/feed.csv", "CATALOG_URI must be a gs:// URI or a local folder"),
        ("CATALOG_URI", "gs://", "CATALOG_URI must look like gs://bucket/path"),
        ("PUBLIC_URL", "ftp://x", "PUBLIC_URL must be an http(s) URL"),
        ("STATE_BUCKET", "gs://a/b", "STATE_BUCKET must be a bucket name"),
        ("STATE_BUCKET", "Bad Bucket!", "STATE_BUCKET must be a bucket name"),
        ("CATALOG_URI", "gs://BAD_/x", "CATALOG_URI must look like gs://bucket/path"),
        ("REFERENCE_URI", "gs://acme/../other/x.csv", "REFERENCE_URI must look like gs://bucket/path"),
        ("ALLOWED_CATALOG_PREFIXES", "/etc", "ALLOWED_CATALOG_PREFIXES must be"),
        ("TEST_STEP_GATE", "/no/such/folder", "TEST_STEP_GATE must be an existing folder"),
    ],
)
def test_bad_values_fail_with_a_clear_line(name, value, fragment):
    with pytest.raises(config.ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        config.load({name: value})


def test_bad_value_stops_the_function_at_start():
    env = {"PATH": "/usr/bin:/bin", "THREADS": "lots"}
    done = subprocess.run(
        [sys.executable, "-m", "functions_framework", "--target=a2a", f"--port={free_port()}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "Configuration error: THREADS must be a whole number" in done.stderr
    assert "Traceback" not in done.stderr
