"""deploy.sh --dry-run prints the whole deployment without running anything (no gcloud needed): the exact
commands, each once, in the order a fresh project needs them."""

from __future__ import annotations

import json
import re
import sys

from tests.conftest import ROOT
from tests.helpers import commands, deploy_env, dry_run, flags, the

CARD_URL_TAIL = ".well-known/agent-card.json"


def test_fresh_project_order_apis_account_deploy_invoker():
    done = dry_run()
    assert done.returncode == 0, done.stderr
    cmds = commands(done.stdout)
    heads = [" ".join(c[:3]) for c in cmds]
    assert heads == [
        "gcloud services enable",
        "gcloud iam service-accounts",
        "gcloud functions deploy",
        "gcloud functions add-invoker-policy-binding",
    ]
    assert len(heads) == len(set(heads))  # each once: one build, no second deploy


def test_apis_enabled_and_secret_manager_only_with_a_secret():
    apis = set(the(commands(dry_run().stdout), "gcloud", "services", "enable")[3:-1])
    assert {
        "cloudfunctions.googleapis.com",
        "run.googleapis.com",
        "cloudbuild.googleapis.com",
        "artifactregistry.googleapis.com",
        "storage.googleapis.com",
        "discoveryengine.googleapis.com",
    } <= apis
    assert "secretmanager.googleapis.com" not in apis
    with_secret = the(commands(dry_run(CATALOG_CONTEXT_SECRET_NAME="cc").stdout), "gcloud", "services", "enable")
    assert "secretmanager.googleapis.com" in with_secret


def test_one_build_with_its_public_url_project_and_sizes():
    deploy = the(commands(dry_run().stdout), "gcloud", "functions", "deploy")
    f = flags(deploy)
    assert deploy[3] == "catalog-gap-analyst"
    for flag in ("--gen2", "--trigger-http", "--no-allow-unauthenticated"):
        assert flag in f, flag
    assert f["--runtime"] == "python311"
    assert f["--runtime"] == f"python{sys.version_info.major}{sys.version_info.minor}"  # the Python running this test
    locked_for = re.search(r"pip-compile with Python (\d+)\.(\d+)", (ROOT / "requirements.txt").read_text()).groups()
    assert f["--runtime"] == "python" + "".join(locked_for)  # and the one the lock was resolved for
    assert f["--entry-point"] == "a2a" and f["--source"] == "."
    assert f["--memory"] == "2Gi" and f["--concurrency"] == "32"
    assert f["--min-instances"] == "0" and f["--max-instances"] == "1"  # in-memory state: one instance
    env = deploy_env(deploy)
    # the deterministic run.app URL, https://SERVICE-PROJECT_NUMBER.REGION.run.app/, in the same build
    assert env["PUBLIC_URL"] == "https://catalog-gap-analyst-123456789012.us-central1.run.app/"
    assert env["GOOGLE_CLOUD_PROJECT"] == "my-project"
    assert env["THREADS"] == f["--concurrency"]


def test_memory_is_the_agents_one_budget():
    """The agent derives every cache and store bound from MEMORY_BUDGET_BYTES: the instance's memory."""
    env = deploy_env(the(commands(dry_run().stdout), "gcloud", "functions", "deploy"))
    assert env["MEMORY_BUDGET_BYTES"] == str(2 * 1024**3)
    deploy = the(commands(dry_run(MEMORY="512Mi").stdout), "gcloud", "functions", "deploy")
    assert flags(deploy)["--memory"] == "512Mi" and deploy_env(deploy)["MEMORY_BUDGET_BYTES"] == str(512 * 1024**2)
    for bad in ("2GB", "xGi", "0Gi"):
        done = dry_run(MEMORY=bad)
        assert done.returncode == 2 and "MEMORY must be" in done.stderr and not commands(done.stdout), bad


def test_concurrency_threads_instances_follow_settings():
    out = dry_run(
        CONCURRENCY="4",
        MIN_INSTANCES="1",
        MAX_INSTANCES="3",
        STATE_BUCKET="acme-state",
        REGION="europe-west1",
        FUNCTION="cga-agent",
        PROJECT_NUMBER="42",
    ).stdout
    deploy = the(commands(out), "gcloud", "functions", "deploy")
    f = flags(deploy)
    assert (f["--concurrency"], f["--min-instances"], f["--max-instances"]) == ("4", "1", "3")
    env = deploy_env(deploy)
    assert env["THREADS"] == "4" and env["PUBLIC_URL"] == "https://cga-agent-42.europe-west1.run.app/"
    assert (
        flags(the(commands(dry_run(STATE_BUCKET="s-bucket").stdout), "gcloud", "functions", "deploy"))[
            "--max-instances"
        ]
        == "10"
    )


def test_dedicated_runtime_account_never_the_compute_default():
    cmds = commands(dry_run().stdout)
    create = the(cmds, "gcloud", "iam", "service-accounts", "create")
    assert create[4] == "catalog-gap-analyst"
    sa = flags(the(cmds, "gcloud", "functions", "deploy"))["--service-account"]
    assert sa == "catalog-gap-analyst@my-project.iam.gserviceaccount.com"
    refused = dry_run(RUNTIME_SA="123456789012-compute@developer.gserviceaccount.com")
    assert refused.returncode == 2 and "default compute account" in refused.stderr


def test_invoker_is_the_gemini_enterprise_service_agent_on_this_function_only():
    cmds = commands(dry_run().stdout)
    invoker = the(cmds, "gcloud", "functions", "add-invoker-policy-binding")
    assert invoker[3] == "catalog-gap-analyst"
    assert (
        flags(invoker)["--member"]
        == "serviceAccount:service-123456789012@gcp-sa-discoveryengine.iam.gserviceaccount.com"
    )
    assert not any(c[:3] == ["gcloud", "projects", "add-iam-policy-binding"] for c in cmds)


def test_too_long_a_name_for_the_deterministic_url_stops_before_anything():
    sa = "cga-runtime@my-project.iam.gserviceaccount.com"
    done = dry_run(FUNCTION="f" * 60, RUNTIME_SA=sa)
    assert done.returncode == 2 and "63" in done.stderr and not commands(done.stdout)
    done = dry_run(FUNCTION="f" * 60, PUBLIC_URL="https://agent.example.com/a2a/", RUNTIME_SA=sa)
    assert (
        deploy_env(the(commands(done.stdout), "gcloud", "functions", "deploy"))["PUBLIC_URL"]
        == "https://agent.example.com/a2a/"
    )


def test_short_account_id_is_refused():
    done = dry_run(FUNCTION="cga")
    assert done.returncode == 2 and "6-30 characters" in done.stderr and not commands(done.stdout)


def test_bad_numbers_stop_the_deploy():
    for env in ({"CONCURRENCY": "eight"}, {"MAX_INSTANCES": "0"}, {"MIN_INSTANCES": "5", "MAX_INSTANCES": "2"}):
        done = dry_run(**env)
        assert done.returncode == 2 and not commands(done.stdout), env


def test_provider_settings_reach_the_function():
    env = deploy_env(
        the(
            commands(dry_run(PROVIDER_ORGANIZATION="Acme Retail", PROVIDER_URL="https://acme.example").stdout),
            "gcloud",
            "functions",
            "deploy",
        )
    )
    assert env["PROVIDER_ORGANIZATION"] == "Acme Retail" and env["PROVIDER_URL"] == "https://acme.example"


def test_register_prints_the_agents_api_call_with_the_card_as_a_json_string():
    done = dry_run("--register", "my-app_1")
    assert done.returncode == 0, done.stderr
    curl = the(commands(done.stdout), "curl")
    url = next(a for a in curl if a.startswith("https://"))
    assert url == (
        "https://discoveryengine.googleapis.com/v1alpha/projects/my-project/locations/global/collections/"
        "default_collection/engines/my-app_1/assistants/default_assistant/agents"
    )
    assert "X-Goog-User-Project: my-project" in curl and "-X" in curl and "POST" in curl
    body = json.loads(re.search(r"^# registration body: (.*)$", done.stdout, re.M).group(1))
    assert body["displayName"] == "Catalog Gap Analyst"
    card = body["a2aAgentDefinition"]["jsonAgentCard"]
    assert isinstance(card, str) and CARD_URL_TAIL in json.loads(card)["..."]
    regional = the(commands(dry_run("--register=my-app", GE_LOCATION="eu").stdout), "curl")
    assert any(
        a.startswith("https://eu-discoveryengine.googleapis.com/v1alpha/projects/my-project/locations/eu/")
        for a in regional
    )
    update = the(commands(dry_run("--register", "my-app", GE_AGENT_ID="1234567").stdout), "curl")
    assert "PATCH" in update and any(
        a.endswith(
            "/engines/my-app/assistants/default_assistant/agents/1234567"
            "?updateMask=displayName,description,a2aAgentDefinition"
        )
        for a in update
    )
    assert dry_run("--register", "my-app", GE_AGENT_ID="../x").returncode == 2
    assert dry_run("--register", "bad/app").returncode == 2
    assert dry_run("--register").returncode == 2


def test_runs_on_bash_3_2_constructs_only():
    """macOS ships bash 3.2: none of the bash-4 features, and no bare "${array[@]}" (unbound under set -u
    before bash 4.4). A static check: no bash 3.2 is installed here to run the script under."""
    text = (ROOT / "deploy.sh").read_text(encoding="utf-8")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for pattern, what in (
        (r"declare\s+-[A-Za-z]*[An]", "associative arrays / namerefs"),
        (r"\b(mapfile|readarray)\b", "mapfile"),
        (r"\$\{\w+(,,|\^\^|,|\^)\}", "case modification"),
        (r"\bcoproc\b", "coproc"),
        (r"\|&", "|&"),
        (r"&>>", "&>>"),
        (r";;&", ";;&"),
        (r"\$\{\w+\[-1\]\}", "negative index"),
    ):
        assert not re.search(pattern, code), what
    bare = re.findall(r'(?<!\+)"\$\{(\w+)\[@\]\}"', code)
    guarded = set(re.findall(r'\$\{(\w+)\[@\]\+"\$\{\1\[@\]\}"\}', code))
    assert set(bare) <= guarded, set(bare) - guarded
