#!/usr/bin/env bash
# Deploy Catalog Gap Analyst as one Cloud Function (2nd gen), in one build, and print what to register in
# Gemini Enterprise (or register it: --register APP_ID).
#
#   ./deploy.sh [--dry-run] [--register APP_ID]
#
# Runs on bash 3.2 (macOS's default) and later: no associative arrays, ${var,,}, mapfile or readarray, and
# every possibly-empty array is expanded as ${a[@]+"${a[@]}"} (bash < 4.4 calls "${a[@]}" unbound under set -u).
#
# What it does, in this order (--dry-run prints each command instead of running it, as in a fresh project):
#   1. enables the APIs it needs (Secret Manager only when a secret is used);
#   2. creates the runtime service account if it is absent (never the default compute account);
#   3. state bucket: creates it private with its lifecycle rule, or, when it exists, CHECKS it (lifecycle
#      rule, uniform access, public access prevention) and warns — an existing bucket is never changed;
#   4. grants that account only what it needs, each on its own resource: object user on the state bucket,
#      object viewer on each catalog bucket, secret accessor on the one secret;
#   5. deploys once, with PUBLIC_URL already set to the function's deterministic run.app URL
#      (https://FUNCTION-PROJECT_NUMBER.REGION.run.app/, known before the function exists);
#   6. lets the Gemini Enterprise (Discovery Engine) service agent invoke the function;
#   7. prints the agent card, or registers it in the Gemini Enterprise app APP_ID (--register).
#
# Settings (environment):
#   PROJECT (default: gcloud's), PROJECT_NUMBER (looked up), REGION (us-central1), FUNCTION (catalog-gap-analyst)
#   MEMORY (2Gi; passed to the agent as MEMORY_BUDGET_BYTES, from which it derives every cache and store bound,
#     leaving about half for the turns in flight), CPU (1), TIMEOUT (300s)
#   CONCURRENCY (32; THREADS is set to the same number), MIN_INSTANCES (0), MAX_INSTANCES (10 with STATE_BUCKET;
#     1 without, since in-memory tasks and conversations live on one instance)
#   RUNTIME_SA (the runtime service account's e-mail; default FUNCTION@PROJECT.iam.gserviceaccount.com, created
#     if absent), BUILD_SA (optional: --build-service-account for Cloud Build)
#   CATALOG_URI, REFERENCE_URI, STATE_BUCKET, STATE_TTL_DAYS (7: the bucket's lifecycle rule AND the agent's
#     read-side TTL), ALLOWED_CATALOG_PREFIXES, CONTEXT_MAX_ATTACHED_BYTES, CONTEXT_MAX_TURNS, A2UI_DEFAULT,
#     A2UI_STATUS_COPY, LOG_LEVEL, PROVIDER_ORGANIZATION, PROVIDER_URL (the card's provider)
#   CATALOG_CONTEXT_SECRET_NAME (a Secret Manager secret), CATALOG_CONTEXT_SECRET_VERSION (default: the version
#     `latest` names at deploy time; the function is pinned to that number, never to `latest` itself)
#   GEMINI_SERVICE_AGENT (default service-PROJECT_NUMBER@gcp-sa-discoveryengine.iam.gserviceaccount.com)
#   PUBLIC_URL (only to override the computed URL, e.g. behind a load balancer)
#   --register: GE_LOCATION (global; or us, eu), AGENT_DISPLAY_NAME (Catalog Gap Analyst), GE_AGENT_ID (update
#     that registration in place instead of adding one)
set -euo pipefail

DRY=0
REGISTER_APP=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --register) [[ $# -ge 2 ]] || { echo "--register needs the Gemini Enterprise app id" >&2; exit 2; }
                REGISTER_APP=$2; shift ;;
    --register=*) REGISTER_APP=${1#--register=} ;;
    *) echo "unknown argument: $1 (usage: ./deploy.sh [--dry-run] [--register APP_ID])" >&2; exit 2 ;;
  esac
  shift
done

# Run a command, or print it (shell-quoted) in a dry run.
run() {
  if [[ $DRY == 1 ]]; then
    printf '%q ' "$@"; printf '\n'
  else
    "$@"
  fi
}

fail() { echo "$*" >&2; exit 2; }
warn() { echo "WARNING: $*" >&2; }

if [[ $DRY == 1 ]]; then
  PROJECT=${PROJECT:-my-project}
  PROJECT_NUMBER=${PROJECT_NUMBER:-123456789012}
else
  PROJECT=${PROJECT:-$(gcloud config get-value project 2>/dev/null)}
  [[ -n "$PROJECT" ]] || fail "PROJECT is not set and gcloud has no default project"
  PROJECT_NUMBER=${PROJECT_NUMBER:-$(gcloud projects describe "$PROJECT" --format='value(projectNumber)')}
fi
REGION=${REGION:-us-central1}
FUNCTION=${FUNCTION:-catalog-gap-analyst}
MEMORY=${MEMORY:-2Gi}
CPU=${CPU:-1}
TIMEOUT=${TIMEOUT:-300s}
CONCURRENCY=${CONCURRENCY:-32}  # request threads = concurrent requests: a burst of 32 streams gets its first frames at once (bench/README.md)
STATE_TTL_DAYS=${STATE_TTL_DAYS:-7}
MIN_INSTANCES=${MIN_INSTANCES:-0}
if [[ -n "${STATE_BUCKET:-}" ]]; then MAX_INSTANCES=${MAX_INSTANCES:-10}; else MAX_INSTANCES=${MAX_INSTANCES:-1}; fi
GEMINI_SERVICE_AGENT=${GEMINI_SERVICE_AGENT:-service-${PROJECT_NUMBER}@gcp-sa-discoveryengine.iam.gserviceaccount.com}
RUNTIME_SA=${RUNTIME_SA:-${FUNCTION}@${PROJECT}.iam.gserviceaccount.com}
GE_LOCATION=${GE_LOCATION:-global}
GE_AGENT_ID=${GE_AGENT_ID:-}
AGENT_DISPLAY_NAME=${AGENT_DISPLAY_NAME:-Catalog Gap Analyst}

# -- checks before anything is changed -----------------------------------------------------------------
if ! [[ "$STATE_TTL_DAYS" =~ ^[1-9][0-9]{0,3}$ ]] || (( STATE_TTL_DAYS > 3650 )); then
  fail "STATE_TTL_DAYS must be a whole number of days (1-3650), not '${STATE_TTL_DAYS}'"
fi
for setting in CONCURRENCY MIN_INSTANCES MAX_INSTANCES; do
  value=${!setting}
  [[ "$value" =~ ^[0-9]+$ ]] || fail "$setting must be a whole number, not '$value'"
done
(( CONCURRENCY >= 1 )) || fail "CONCURRENCY must be at least 1"
(( MAX_INSTANCES >= 1 && MIN_INSTANCES <= MAX_INSTANCES )) || fail "need 1 <= MAX_INSTANCES and MIN_INSTANCES <= MAX_INSTANCES"
if [[ -z "${STATE_BUCKET:-}" && $MAX_INSTANCES -gt 1 ]]; then
  warn "MAX_INSTANCES=$MAX_INSTANCES without STATE_BUCKET: tasks and conversations live in one instance's memory, so another instance will not find them"
fi
if [[ -n "$REGISTER_APP" ]] && ! [[ "$REGISTER_APP" =~ ^[A-Za-z0-9_-]+$ ]]; then
  fail "--register needs a Gemini Enterprise app id (letters, digits, _ and -), not '$REGISTER_APP'"
fi
[[ "$GE_LOCATION" =~ ^(global|us|eu)$ ]] || fail "GE_LOCATION must be global, us or eu, not '$GE_LOCATION'"
[[ -z "$GE_AGENT_ID" || "$GE_AGENT_ID" =~ ^[0-9A-Za-z_-]+$ ]] || fail "GE_AGENT_ID must be the agent's id (the last part of its name), not '$GE_AGENT_ID'"
SA_ID=${RUNTIME_SA%%@*}
if (( ${#SA_ID} < 6 || ${#SA_ID} > 30 )); then
  fail "the service account id '${SA_ID}' must be 6-30 characters: set RUNTIME_SA (or a longer FUNCTION)"
fi
if [[ "$RUNTIME_SA" == *-compute@developer.gserviceaccount.com ]]; then
  fail "RUNTIME_SA must not be the default compute account (it often holds Editor); leave it unset to use ${FUNCTION}@${PROJECT}.iam.gserviceaccount.com"
fi

# The agent sizes every cache and store from MEMORY_BUDGET_BYTES (agent/config.py): the instance's memory.
[[ "$MEMORY" =~ ^[1-9][0-9]*(Gi|Mi|G|M)$ ]] || fail "MEMORY must be a whole number with a unit (Gi, Mi, G or M), like 2Gi, not '$MEMORY'"
case "$MEMORY" in
  *Gi) MEMORY_BYTES=$(( ${MEMORY%Gi} * 1073741824 )) ;;
  *Mi) MEMORY_BYTES=$(( ${MEMORY%Mi} * 1048576 )) ;;
  *G)  MEMORY_BYTES=$(( ${MEMORY%G} * 1000000000 )) ;;
  *M)  MEMORY_BYTES=$(( ${MEMORY%M} * 1000000 )) ;;
  *)   MEMORY_BYTES="" ;;
esac
MEMORY_BUDGET_BYTES=${MEMORY_BUDGET_BYTES:-$MEMORY_BYTES}

# The function's URL before it exists: Cloud Run's deterministic URL, https://SERVICE-PROJECT_NUMBER.REGION.run.app
# (a 2nd gen function is a Cloud Run service of the same name), available while SERVICE-PROJECT_NUMBER fits one
# 63-character DNS label. Knowing it now puts PUBLIC_URL in the one and only build.
if [[ -n "${PUBLIC_URL:-}" ]]; then
  RUN_URL=$PUBLIC_URL
else
  label="${FUNCTION}-${PROJECT_NUMBER}"
  (( ${#label} <= 63 )) || fail "FUNCTION is too long for a deterministic run.app URL (${label} is over 63 characters): choose a shorter FUNCTION or set PUBLIC_URL"
  RUN_URL="https://${label}.${REGION}.run.app/"
fi
[[ "$RUN_URL" == */ ]] || RUN_URL="${RUN_URL}/"

# -- 1. APIs -----------------------------------------------------------------------------------------------
APIS="cloudfunctions.googleapis.com run.googleapis.com cloudbuild.googleapis.com artifactregistry.googleapis.com"
APIS="$APIS storage.googleapis.com iam.googleapis.com discoveryengine.googleapis.com"
if [[ -n "${CATALOG_CONTEXT_SECRET_NAME:-}" ]]; then APIS="$APIS secretmanager.googleapis.com"; fi
# shellcheck disable=SC2086  # one word per API
run gcloud services enable $APIS --project="$PROJECT"

# -- 2. runtime service account ----------------------------------------------------------------------------
if [[ "$RUNTIME_SA" == *@"${PROJECT}".iam.gserviceaccount.com ]]; then
  if [[ $DRY == 1 ]] || ! gcloud iam service-accounts describe "$RUNTIME_SA" --project="$PROJECT" >/dev/null 2>&1; then
    run gcloud iam service-accounts create "$SA_ID" --project="$PROJECT" \
      --display-name="Catalog Gap Analyst runtime" \
      --description="Runs the ${FUNCTION} function: reads catalogs, writes its state bucket, nothing else"
  else
    echo "Runtime service account ${RUNTIME_SA} exists; using it."
  fi
fi

# -- 3. state bucket ---------------------------------------------------------------------------------------
# Tasks and conversations (JSON) and attached catalogs (Parquet). Private, uniform access; objects are deleted
# STATE_TTL_DAYS after they were written (each write makes a new generation, so the age counts from the last
# write) — the agent applies the same TTL on read.
LIFECYCLE_RULE=$(printf '{"rule":[{"action":{"type":"Delete"},"condition":{"age":%s}}]}' "$STATE_TTL_DAYS")
check_state_bucket() {
  # $1: `gcloud storage buckets describe --format=json` of the existing bucket. Read, compare, warn; never change.
  local described=$1 flat age=""
  flat=$(printf '%s' "$described" | tr -d ' \n\t')
  if [[ "$flat" =~ \"type\":\"Delete\"\},\"condition\":\{\"age\":([0-9]+) ]]; then age=${BASH_REMATCH[1]}; fi
  if [[ -z "$age" ]]; then
    warn "gs://${STATE_BUCKET} has no age-based Delete rule: state is kept forever there (the agent still ignores objects older than ${STATE_TTL_DAYS} days). To add it: gcloud storage buckets update gs://${STATE_BUCKET} --lifecycle-file=<file with ${LIFECYCLE_RULE}>"
  elif [[ "$age" != "$STATE_TTL_DAYS" ]]; then
    warn "gs://${STATE_BUCKET} deletes objects after ${age} days but STATE_TTL_DAYS is ${STATE_TTL_DAYS}: set STATE_TTL_DAYS=${age} or change the bucket's rule yourself"
  fi
  [[ "$flat" == *'"uniform_bucket_level_access":true'* ]] \
    || warn "gs://${STATE_BUCKET} does not use uniform bucket-level access: object ACLs could expose state"
  [[ "$flat" == *'"public_access_prevention":"enforced"'* ]] \
    || warn "gs://${STATE_BUCKET} does not enforce public access prevention"
}
if [[ -n "${STATE_BUCKET:-}" ]]; then
  DESCRIBED=""
  if [[ $DRY == 0 ]]; then
    DESCRIBED=$(gcloud storage buckets describe "gs://${STATE_BUCKET}" --project="$PROJECT" --format=json 2>/dev/null) || DESCRIBED=""
  fi
  if [[ -z "$DESCRIBED" ]]; then
    LIFECYCLE=$(mktemp)
    trap 'rm -f "$LIFECYCLE"' EXIT
    printf '%s\n' "$LIFECYCLE_RULE" > "$LIFECYCLE"
    if [[ $DRY == 1 ]]; then echo "# lifecycle rule: ${LIFECYCLE_RULE}"; fi
    run gcloud storage buckets create "gs://${STATE_BUCKET}" --project="$PROJECT" --location="$REGION" \
      --uniform-bucket-level-access --public-access-prevention --lifecycle-file="$LIFECYCLE"
  else
    echo "State bucket gs://${STATE_BUCKET} exists: checking it, not changing it."
    check_state_bucket "$DESCRIBED"
  fi
fi

# -- 4. least roles, each on its own resource ----------------------------------------------------------------
if [[ -n "${STATE_BUCKET:-}" ]]; then
  # Create, read, overwrite (generation-conditioned) and delete objects — on this bucket only.
  run gcloud storage buckets add-iam-policy-binding "gs://${STATE_BUCKET}" \
    --member="serviceAccount:${RUNTIME_SA}" --role=roles/storage.objectUser
fi
# Read-only access to every bucket a catalog may come from: the configured locations and the buckets of
# ALLOWED_CATALOG_PREFIXES (where a trusted caller's catalog_context may point).
CATALOG_BUCKETS=" "
PREFIX_LIST=()
IFS=',' read -r -a PREFIX_LIST <<< "${ALLOWED_CATALOG_PREFIXES:-}" || true
for uri in "${CATALOG_URI:-}" "${REFERENCE_URI:-}" ${PREFIX_LIST[@]+"${PREFIX_LIST[@]}"}; do
  uri=${uri// /}
  [[ "$uri" == gs://* ]] || continue
  bucket=${uri#gs://}; bucket=${bucket%%/*}
  if [[ "$CATALOG_BUCKETS" == *" ${bucket} "* ]]; then continue; fi
  CATALOG_BUCKETS="${CATALOG_BUCKETS}${bucket} "
  run gcloud storage buckets add-iam-policy-binding "gs://${bucket}" \
    --member="serviceAccount:${RUNTIME_SA}" --role=roles/storage.objectViewer
done
SECRET_ARGS=()
if [[ -n "${CATALOG_CONTEXT_SECRET_NAME:-}" ]]; then
  SECRET_VERSION=${CATALOG_CONTEXT_SECRET_VERSION:-}
  if [[ -z "$SECRET_VERSION" ]]; then
    if [[ $DRY == 1 ]]; then
      SECRET_VERSION=1
      echo "# secret version: a real run pins the version number that latest names now for ${CATALOG_CONTEXT_SECRET_NAME} (shown here as 1)"
    else
      SECRET_VERSION=$(gcloud secrets versions describe latest --secret="$CATALOG_CONTEXT_SECRET_NAME" \
        --project="$PROJECT" --format='value(name)')
      SECRET_VERSION=${SECRET_VERSION##*/}
    fi
  fi
  [[ "$SECRET_VERSION" =~ ^[1-9][0-9]*$ ]] \
    || fail "CATALOG_CONTEXT_SECRET_VERSION must be a version number (the function is pinned to it), not '${SECRET_VERSION}'"
  # The function reads this one secret, nothing else in Secret Manager.
  run gcloud secrets add-iam-policy-binding "$CATALOG_CONTEXT_SECRET_NAME" --project="$PROJECT" \
    --member="serviceAccount:${RUNTIME_SA}" --role=roles/secretmanager.secretAccessor
  SECRET_ARGS=(--set-secrets="CATALOG_CONTEXT_SECRET=${CATALOG_CONTEXT_SECRET_NAME}:${SECRET_VERSION}")
fi

# -- 5. one build ------------------------------------------------------------------------------------------------
ENV_VARS="PUBLIC_URL=${RUN_URL}|GOOGLE_CLOUD_PROJECT=${PROJECT}|THREADS=${CONCURRENCY}|LOG_LEVEL=${LOG_LEVEL:-INFO}"
ENV_VARS="${ENV_VARS}|A2UI_DEFAULT=${A2UI_DEFAULT:-off}|A2UI_STATUS_COPY=${A2UI_STATUS_COPY:-off}|STATE_TTL_DAYS=${STATE_TTL_DAYS}"
ENV_VARS="${ENV_VARS}|MEMORY_BUDGET_BYTES=${MEMORY_BUDGET_BYTES}"
for name in CATALOG_URI REFERENCE_URI STATE_BUCKET ALLOWED_CATALOG_PREFIXES CONTEXT_MAX_ATTACHED_BYTES \
            CONTEXT_MAX_TURNS PROVIDER_ORGANIZATION PROVIDER_URL; do
  value=${!name:-}
  if [[ "$value" == *"|"* ]]; then fail "$name must not contain '|'"; fi
  if [[ -n "$value" ]]; then ENV_VARS="${ENV_VARS}|${name}=${value}"; fi
done
BUILD_ARGS=()
if [[ -n "${BUILD_SA:-}" ]]; then BUILD_ARGS=(--build-service-account="projects/${PROJECT}/serviceAccounts/${BUILD_SA}"); fi
# ^|^ makes '|' gcloud's delimiter: ALLOWED_CATALOG_PREFIXES holds commas.
run gcloud functions deploy "$FUNCTION" \
  --gen2 --runtime=python311 --region="$REGION" --project="$PROJECT" \
  --source=. --entry-point=a2a --trigger-http --no-allow-unauthenticated \
  --memory="$MEMORY" --cpu="$CPU" --timeout="$TIMEOUT" --concurrency="$CONCURRENCY" \
  --min-instances="$MIN_INSTANCES" --max-instances="$MAX_INSTANCES" \
  --service-account="$RUNTIME_SA" \
  --set-env-vars="^|^${ENV_VARS}" ${SECRET_ARGS[@]+"${SECRET_ARGS[@]}"} ${BUILD_ARGS[@]+"${BUILD_ARGS[@]}"}

if [[ $DRY == 0 && -z "${PUBLIC_URL:-}" ]]; then
  # A read, not a build: the URLs the platform gave the function. The card advertises RUN_URL.
  SERVICE_JSON=$(gcloud run services describe "$FUNCTION" --region="$REGION" --project="$PROJECT" --format=json)
  if [[ "$SERVICE_JSON" != *"${RUN_URL%/}"* ]]; then
    warn "the function's service does not list ${RUN_URL} among its URLs (run.app URLs disabled?); the card advertises it: deploy again with PUBLIC_URL set to the function's URL"
  fi
fi

# -- 6. Gemini Enterprise may call it ------------------------------------------------------------------------------
run gcloud functions add-invoker-policy-binding "$FUNCTION" --gen2 --region="$REGION" --project="$PROJECT" \
  --member="serviceAccount:${GEMINI_SERVICE_AGENT}"

# -- 7. the card, printed or registered ---------------------------------------------------------------------------
CARD_URL="${RUN_URL}.well-known/agent-card.json"
echo
echo "Endpoint: ${RUN_URL}"
if [[ $DRY == 1 ]]; then
  echo "(dry run: the agent card is fetched from ${CARD_URL} after deployment)"
  CARD='{"...":"the agent card from '"${CARD_URL}"'"}'
else
  CARD=$(curl -fsS -H "Authorization: Bearer $(gcloud auth print-identity-token)" "$CARD_URL")
  echo "Agent card to register in Gemini Enterprise:"
  printf '%s\n' "$CARD"
fi

if [[ -n "$REGISTER_APP" ]]; then
  # Discovery Engine agents API (v1alpha): an A2A agent is registered with its card as a JSON string in
  # a2aAgentDefinition.jsonAgentCard. The body goes in a file (-d @file): a card is too long for an argument.
  if [[ "$GE_LOCATION" == global ]]; then GE_HOST=discoveryengine.googleapis.com; else GE_HOST="${GE_LOCATION}-discoveryengine.googleapis.com"; fi
  AGENTS_URL="https://${GE_HOST}/v1alpha/projects/${PROJECT}/locations/${GE_LOCATION}/collections/default_collection/engines/${REGISTER_APP}/assistants/default_assistant/agents"
  json_string() { printf '"%s"' "$(printf '%s' "$1" | tr -d '\n\r' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')"; }
  BODY=$(mktemp)
  trap 'rm -f "${LIFECYCLE:-}" "$BODY"' EXIT
  printf '{"displayName":%s,"description":%s,"a2aAgentDefinition":{"jsonAgentCard":%s}}\n' \
    "$(json_string "$AGENT_DISPLAY_NAME")" \
    "$(json_string "Answers merchants' questions about their product catalog: gaps, prices, attributes, brands, stock, feed readiness.")" \
    "$(json_string "$CARD")" > "$BODY"
  # A new registration (POST), or with GE_AGENT_ID the existing one updated in place (PATCH): Gemini Enterprise
  # keeps a copy of the card, so a redeploy that changes it re-registers without making a second agent.
  if [[ -n "$GE_AGENT_ID" ]]; then
    VERB=PATCH; TARGET="${AGENTS_URL}/${GE_AGENT_ID}?updateMask=displayName,description,a2aAgentDefinition"
  else
    VERB=POST; TARGET=$AGENTS_URL
  fi
  echo
  echo "Registering the agent in Gemini Enterprise app ${REGISTER_APP} (${GE_LOCATION}${GE_AGENT_ID:+, agent ${GE_AGENT_ID}}):"
  if [[ $DRY == 1 ]]; then
    echo "# registration body: $(cat "$BODY")"
    printf '%s\n' "curl -fsS -X ${VERB} $(printf '%q' "$TARGET") -H 'Authorization: Bearer \$(gcloud auth print-access-token)' -H 'Content-Type: application/json' -H 'X-Goog-User-Project: ${PROJECT}' -d @<registration body>"
  else
    curl -fsS -X "$VERB" "$TARGET" -H "Authorization: Bearer $(gcloud auth print-access-token)" \
      -H "Content-Type: application/json" -H "X-Goog-User-Project: ${PROJECT}" -d @"$BODY"
    echo
    if [[ -z "$GE_AGENT_ID" ]]; then
      echo "To update this registration on the next deploy instead of adding another: GE_AGENT_ID=<the last part of \"name\" above>"
    fi
  fi
fi
