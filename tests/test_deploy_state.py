"""deploy.sh and the state bucket: lifecycle TTL shared with the agent, least roles, secret access."""

from __future__ import annotations

import json
import os
import re
import subprocess

from agent import config
from tests.conftest import ROOT


def dry_run(**env: str) -> subprocess.CompletedProcess:
    full = {"PATH": os.environ["PATH"], **env}
    return subprocess.run(["bash", "deploy.sh", "--dry-run"], cwd=ROOT, env=full, capture_output=True, text=True, timeout=60)


def test_lifecycle_rule_and_agent_ttl_are_the_same_number():
    out = dry_run(STATE_BUCKET="acme-state", STATE_TTL_DAYS="3").stdout
    rule = json.loads(re.search(r"# lifecycle rule: (\{.*\})", out).group(1))
    assert rule == {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 3}}]}
    deploy = next(line for line in out.splitlines() if "--set-env-vars" in line).replace("\\", "")
    assert "STATE_TTL_DAYS=3" in deploy and "STATE_BUCKET=acme-state" in deploy
    assert config.load({"STATE_TTL_DAYS": "3"}).state_ttl_days == 3
    assert "--public-access-prevention" in out and "--uniform-bucket-level-access" in out


def test_least_roles_per_bucket_and_secret():
    out = dry_run(STATE_BUCKET="acme-state", CATALOG_URI="gs://acme-catalog/acme/",
                  ALLOWED_CATALOG_PREFIXES="gs://acme-catalog/{merchant_id}/,gs://market-feeds/x/",
                  CATALOG_CONTEXT_SECRET_NAME="cc-secret").stdout
    grants = re.findall(r"buckets add-iam-policy-binding gs://(\S+) .*--role (\S+)", out)
    assert sorted(grants) == [("acme-catalog", "roles/storage.objectViewer"), ("acme-state", "roles/storage.objectUser"),
                              ("market-feeds", "roles/storage.objectViewer")]
    assert "projects add-iam-policy-binding" not in out  # nothing project-wide
    assert re.search(r"gcloud secrets add-iam-policy-binding cc-secret .*roles/secretmanager.secretAccessor", out)
    assert "CATALOG_CONTEXT_SECRET=cc-secret:latest" in out


def test_bad_ttl_stops_the_deploy():
    done = dry_run(STATE_BUCKET="acme-state", STATE_TTL_DAYS="seven")
    assert done.returncode == 2 and "STATE_TTL_DAYS must be a whole number" in done.stderr
