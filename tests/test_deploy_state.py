"""deploy.sh and the state bucket (dry run, as in a fresh project): lifecycle TTL shared with the agent, least
roles, secret access pinned to a version."""

from __future__ import annotations

import json
import re

from agent import config
from tests.helpers import commands, deploy_env, dry_run, flags, the


def test_new_bucket_is_created_private_with_the_lifecycle_rule_the_agent_shares():
    out = dry_run(STATE_BUCKET="acme-state", STATE_TTL_DAYS="3").stdout
    rule = json.loads(re.search(r"# lifecycle rule: (\{.*\})", out).group(1))
    assert rule == {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 3}}]}
    cmds = commands(out)
    create = the(cmds, "gcloud", "storage", "buckets", "create")
    assert create[4] == "gs://acme-state"
    f = flags(create)
    assert "--uniform-bucket-level-access" in f and "--public-access-prevention" in f and f["--lifecycle-file"]
    assert not any(c[:4] == ["gcloud", "storage", "buckets", "update"] for c in cmds)  # set once, at creation
    env = deploy_env(the(cmds, "gcloud", "functions", "deploy"))
    assert env["STATE_TTL_DAYS"] == "3" and env["STATE_BUCKET"] == "acme-state"
    assert config.load({"STATE_TTL_DAYS": "3"}).state_ttl_days == 3


def test_least_roles_per_bucket_and_secret():
    out = dry_run(
        STATE_BUCKET="acme-state",
        CATALOG_URI="gs://acme-catalog/acme/",
        ALLOWED_CATALOG_PREFIXES="gs://acme-catalog/{merchant_id}/,gs://market-feeds/x/",
        CATALOG_CONTEXT_SECRET_NAME="cc-secret",
    ).stdout
    cmds = commands(out)
    sa = "serviceAccount:catalog-gap-analyst@my-project.iam.gserviceaccount.com"
    grants = sorted(
        (c[4], flags(c)["--role"])
        for c in cmds
        if c[:4] == ["gcloud", "storage", "buckets", "add-iam-policy-binding"] and flags(c)["--member"] == sa
    )
    assert grants == [
        ("gs://acme-catalog", "roles/storage.objectViewer"),
        ("gs://acme-state", "roles/storage.objectUser"),
        ("gs://market-feeds", "roles/storage.objectViewer"),
    ]
    assert not any(c[:3] == ["gcloud", "projects", "add-iam-policy-binding"] for c in cmds)  # nothing project-wide
    secret = the(cmds, "gcloud", "secrets", "add-iam-policy-binding")
    assert secret[3] == "cc-secret" and flags(secret)["--role"] == "roles/secretmanager.secretAccessor"
    assert flags(secret)["--member"] == sa
    deploy = the(cmds, "gcloud", "functions", "deploy")
    assert flags(deploy)["--set-secrets"] == "CATALOG_CONTEXT_SECRET=cc-secret:1"  # a version, never latest
    env = deploy_env(deploy)
    assert env["ALLOWED_CATALOG_PREFIXES"] == "gs://acme-catalog/{merchant_id}/,gs://market-feeds/x/"
    order = [" ".join(c[:4]) for c in cmds]
    assert order.index("gcloud secrets add-iam-policy-binding cc-secret") < order.index(
        "gcloud functions deploy catalog-gap-analyst"
    )


def test_explicit_secret_version_is_pinned_and_checked():
    out = dry_run(CATALOG_CONTEXT_SECRET_NAME="cc", CATALOG_CONTEXT_SECRET_VERSION="12").stdout
    assert flags(the(commands(out), "gcloud", "functions", "deploy"))["--set-secrets"] == "CATALOG_CONTEXT_SECRET=cc:12"
    done = dry_run(CATALOG_CONTEXT_SECRET_NAME="cc", CATALOG_CONTEXT_SECRET_VERSION="latest")
    assert done.returncode == 2 and "version number" in done.stderr


def test_bad_ttl_stops_the_deploy():
    done = dry_run(STATE_BUCKET="acme-state", STATE_TTL_DAYS="seven")
    assert done.returncode == 2 and "STATE_TTL_DAYS must be a whole number" in done.stderr
    assert not commands(done.stdout)
