"""deploy.sh --dry-run prints the whole deployment without running anything (no gcloud needed)."""

from __future__ import annotations

import os
import subprocess

from tests.conftest import ROOT


def dry_run(**env: str) -> str:
    full = {"PATH": os.environ["PATH"], **env}
    done = subprocess.run(["bash", "deploy.sh", "--dry-run"], cwd=ROOT, env=full, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_dry_run_prints_the_spec_deploy_command():
    out = dry_run()
    deploy = next(line for line in out.splitlines() if line.startswith("gcloud functions deploy") and "--set-env-vars" in line)
    for flag in ("--gen2", "--runtime=python313", "--trigger-http", "--no-allow-unauthenticated", "--entry-point=a2a",
                 "--memory=", "--cpu=", "--timeout=", "--concurrency=8"):
        assert flag in deploy, flag
    assert "THREADS=8" in deploy.replace("\\", "")
    assert "add-invoker-policy-binding" in out and "gcp-sa-discoveryengine" in out
    assert "PUBLIC_URL=https://" in out and ".run.app/" in out


def test_dry_run_with_state_bucket_sets_lifecycle_and_roles():
    out = dry_run(STATE_BUCKET="acme-state", CATALOG_URI="gs://acme-catalog/acme/", CONCURRENCY="4")
    assert "gcloud storage buckets create gs://acme-state" in out
    assert "--lifecycle-file=" in out
    assert "roles/storage.objectUser" in out and "roles/storage.objectViewer" in out
    assert "--concurrency=4" in out and "THREADS=4" in out.replace("\\", "")
