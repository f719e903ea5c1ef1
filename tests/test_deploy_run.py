"""deploy.sh for real, against stand-in `gcloud` and `curl` programs on PATH: what the dry run cannot show —
an existing bucket is checked and never changed, an existing service account is reused, the secret version
is resolved once and pinned, the card is fetched and registered with the body built in a file.

The stand-ins record every call (one line of arguments each) and answer the few reads deploy.sh makes from
files the test writes; every other call succeeds silently, as a real gcloud does for a write."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from tests.conftest import ROOT
from tests.helpers import deploy_env, flags

CARD = {
    "name": "Catalog Gap Analyst",
    "url": "https://catalog-gap-analyst-123456789012.us-central1.run.app/",
    "description": 'a "quoted" card \\ with a backslash',
    "skills": [{"id": "catalog_overview"}],
}
GCLOUD = r"""#!/usr/bin/env bash
printf '%q ' gcloud "$@" >> "$STANDIN/calls"; printf '\n' >> "$STANDIN/calls"
case "$*" in
  "config get-value project") echo my-project ;;
  "projects describe"*) echo 123456789012 ;;
  "iam service-accounts describe"*) [[ -f "$STANDIN/sa-exists" ]] || exit 1 ;;
  "storage buckets describe"*) [[ -f "$STANDIN/bucket.json" ]] || exit 1; cat "$STANDIN/bucket.json" ;;
  "secrets versions describe latest"*) echo "projects/123456789012/secrets/cc-secret/versions/7" ;;
  "run services describe"*) cat "$STANDIN/service.json" ;;
  "auth print-identity-token"*|"auth print-access-token"*) echo token-123 ;;
esac
exit 0
"""
CURL = r"""#!/usr/bin/env bash
printf '%q ' curl "$@" >> "$STANDIN/calls"; printf '\n' >> "$STANDIN/calls"
for arg in "$@"; do
  case "$arg" in
    *agent-card.json) cat "$STANDIN/card.json"; exit 0 ;;
    @*) cp "${arg#@}" "$STANDIN/posted.json"; echo '{"name":"projects/my-project/agents/1"}'; exit 0 ;;
  esac
done
"""


def standins(tmp: Path, *, sa_exists: bool = False, bucket: dict | None = None, service_url: str | None = None) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, text in (("gcloud", GCLOUD), ("curl", CURL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (tmp / "calls").write_text("")
    (tmp / "card.json").write_text(json.dumps(CARD))
    url = service_url or "https://catalog-gap-analyst-123456789012.us-central1.run.app"
    (tmp / "service.json").write_text(json.dumps({"status": {"url": url}}))
    if sa_exists:
        (tmp / "sa-exists").write_text("")
    if bucket is not None:
        (tmp / "bucket.json").write_text(json.dumps(bucket, indent=2))
    return tmp


def deploy(tmp: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
    full = {"PATH": f"{tmp / 'bin'}:{os.environ['PATH']}", "STANDIN": str(tmp), **env}
    done = subprocess.run(["bash", "deploy.sh", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=60)
    calls = [shlex.split(line) for line in (tmp / "calls").read_text().splitlines() if line.strip()]
    return done, calls


def writes(calls: list[list[str]]) -> list[list[str]]:
    """The calls that change something (what the reads around them decide)."""
    reads = ("describe", "get-value", "print-identity-token", "print-access-token")
    return [c for c in calls if c[0] == "gcloud" and not any(r in c for r in reads)]


GOOD_BUCKET = {
    "name": "acme-state",
    "uniform_bucket_level_access": True,
    "public_access_prevention": "enforced",
    "lifecycle_config": {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 7}}]},
}


def test_existing_state_bucket_is_checked_not_changed(tmp_path):
    tmp = standins(tmp_path, bucket=GOOD_BUCKET)
    done, calls = deploy(tmp, STATE_BUCKET="acme-state")
    assert done.returncode == 0, done.stderr
    assert "exists: checking it, not changing it" in done.stdout and "WARNING" not in done.stderr
    changed = [c for c in writes(calls) if c[1:3] == ["storage", "buckets"]]
    # only our account's object role on it; no create, no update of lifecycle or access settings
    assert [c[3] for c in changed] == ["add-iam-policy-binding"]


def test_existing_bucket_that_differs_is_reported_not_rewritten(tmp_path):
    lax = {
        "name": "acme-state",
        "uniform_bucket_level_access": False,
        "public_access_prevention": "inherited",
        "lifecycle_config": {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 30}}]},
    }
    tmp = standins(tmp_path, bucket=lax)
    done, calls = deploy(tmp, STATE_BUCKET="acme-state")
    assert done.returncode == 0, done.stderr
    assert "deletes objects after 30 days but STATE_TTL_DAYS is 7" in done.stderr
    assert "uniform bucket-level access" in done.stderr and "public access prevention" in done.stderr
    assert not any(c[3] in ("create", "update") for c in writes(calls) if c[1:3] == ["storage", "buckets"])
    no_rule = dict(GOOD_BUCKET, lifecycle_config={})
    tmp2 = standins(tmp_path / "second", bucket=no_rule)
    done, _ = deploy(tmp2, STATE_BUCKET="acme-state")
    assert "no age-based Delete rule" in done.stderr


def test_missing_bucket_and_account_are_created_once(tmp_path):
    tmp = standins(tmp_path)
    done, calls = deploy(tmp, STATE_BUCKET="acme-state")
    assert done.returncode == 0, done.stderr
    heads = [" ".join(c[1:4]) for c in writes(calls)]
    assert heads.count("iam service-accounts create") == 1 and heads.count("storage buckets create") == 1
    assert heads.count("functions deploy catalog-gap-analyst") == 1


def test_existing_account_is_reused_and_secret_version_pinned(tmp_path):
    tmp = standins(tmp_path, sa_exists=True)
    done, calls = deploy(tmp, CATALOG_CONTEXT_SECRET_NAME="cc-secret")
    assert done.returncode == 0, done.stderr
    assert not any(c[1:4] == ["iam", "service-accounts", "create"] for c in calls)
    deploys = [c for c in calls if c[1:3] == ["functions", "deploy"]]
    assert len(deploys) == 1
    f = flags(deploys[0])
    assert f["--set-secrets"] == "CATALOG_CONTEXT_SECRET=cc-secret:7"
    assert f["--service-account"] == "catalog-gap-analyst@my-project.iam.gserviceaccount.com"
    assert deploy_env(deploys[0])["PUBLIC_URL"] == "https://catalog-gap-analyst-123456789012.us-central1.run.app/"
    assert "WARNING" not in done.stderr


def test_a_url_the_service_does_not_have_is_reported(tmp_path):
    tmp = standins(tmp_path, service_url="https://catalog-gap-analyst-abc123-uc.a.run.app")
    done, _ = deploy(tmp)
    assert done.returncode == 0 and "PUBLIC_URL" in done.stderr


def test_register_posts_the_fetched_card_as_a_json_string(tmp_path):
    tmp = standins(tmp_path, sa_exists=True)
    done, calls = deploy(tmp, "--register", "my-app")
    assert done.returncode == 0, done.stderr
    posts = [c for c in calls if c[0] == "curl" and "POST" in c]
    assert len(posts) == 1
    post = posts[0]
    assert "Authorization: Bearer token-123" in post and "X-Goog-User-Project: my-project" in post
    assert post[post.index("POST") + 1].endswith("/engines/my-app/assistants/default_assistant/agents")
    body = json.loads((tmp / "posted.json").read_text())
    assert body["displayName"] == "Catalog Gap Analyst"
    assert json.loads(body["a2aAgentDefinition"]["jsonAgentCard"]) == CARD
    fetches = [c for c in calls if c[0] == "curl" and c[-1].endswith("/.well-known/agent-card.json")]
    assert len(fetches) == 1 and "Authorization: Bearer token-123" in fetches[0]


def test_register_with_an_agent_id_updates_it_in_place(tmp_path):
    tmp = standins(tmp_path, sa_exists=True)
    done, calls = deploy(tmp, "--register", "my-app", GE_AGENT_ID="98765")
    assert done.returncode == 0, done.stderr
    sent = [c for c in calls if c[0] == "curl" and "-X" in c]
    assert len(sent) == 1 and sent[0][sent[0].index("-X") + 1] == "PATCH"
    assert "/agents/98765?updateMask=" in " ".join(sent[0])
    assert json.loads(json.loads((tmp / "posted.json").read_text())["a2aAgentDefinition"]["jsonAgentCard"]) == CARD
