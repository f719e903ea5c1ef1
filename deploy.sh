#!/usr/bin/env bash
# Deploy Catalog Gap Analyst as one Cloud Function (2nd gen) and print what to register in Gemini Enterprise.
#
#   ./deploy.sh [--dry-run]
#
# Settings (environment): PROJECT (default: gcloud's), REGION (us-central1), FUNCTION (catalog-gap-analyst),
# MEMORY (1Gi), CPU (1), TIMEOUT (300s), CONCURRENCY (8, also THREADS), CATALOG_URI, REFERENCE_URI,
# STATE_BUCKET, ALLOWED_CATALOG_PREFIXES, CATALOG_CONTEXT_SECRET_NAME (a Secret Manager secret name),
# A2UI_DEFAULT, A2UI_STATUS_COPY, LOG_LEVEL, STATE_TTL_DAYS (7: the bucket's lifecycle rule AND the agent's
# read-side TTL), CONTEXT_MAX_ATTACHED_BYTES, CONTEXT_MAX_TURNS, RUNTIME_SA, GEMINI_SERVICE_AGENT (the Gemini Enterprise
# / Discovery Engine service agent; default service-<project number>@gcp-sa-discoveryengine.iam.gserviceaccount.com).
# --dry-run prints every command instead of running it.
set -euo pipefail

DRY=0
[[ "${1:-}" == "--dry-run" ]] && DRY=1

run() {
  if [[ $DRY == 1 ]]; then
    printf '%q ' "$@"; printf '\n'
  else
    "$@"
  fi
}

PROJECT=${PROJECT:-$( [[ $DRY == 1 ]] && echo my-project || gcloud config get-value project 2>/dev/null )}
REGION=${REGION:-us-central1}
FUNCTION=${FUNCTION:-catalog-gap-analyst}
MEMORY=${MEMORY:-1Gi}
CPU=${CPU:-1}
TIMEOUT=${TIMEOUT:-300s}
CONCURRENCY=${CONCURRENCY:-8}
STATE_TTL_DAYS=${STATE_TTL_DAYS:-7}
if [[ $DRY == 1 ]]; then
  PROJECT_NUMBER=${PROJECT_NUMBER:-123456789012}
else
  PROJECT_NUMBER=${PROJECT_NUMBER:-$(gcloud projects describe "$PROJECT" --format='value(projectNumber)')}
fi
GEMINI_SERVICE_AGENT=${GEMINI_SERVICE_AGENT:-service-${PROJECT_NUMBER}@gcp-sa-discoveryengine.iam.gserviceaccount.com}
RUNTIME_SA=${RUNTIME_SA:-${PROJECT_NUMBER}-compute@developer.gserviceaccount.com}
# 2nd gen functions are served by Cloud Run; the run.app URL is what the card advertises.
if [[ $DRY == 1 ]]; then
  RUN_URL=${PUBLIC_URL:-https://${FUNCTION}-${PROJECT_NUMBER}.${REGION}.run.app/}
fi

ENV_VARS="THREADS=${CONCURRENCY},LOG_LEVEL=${LOG_LEVEL:-INFO},A2UI_DEFAULT=${A2UI_DEFAULT:-off},A2UI_STATUS_COPY=${A2UI_STATUS_COPY:-off}"
ENV_VARS+=",STATE_TTL_DAYS=${STATE_TTL_DAYS}"
for name in CATALOG_URI REFERENCE_URI STATE_BUCKET CONTEXT_MAX_ATTACHED_BYTES CONTEXT_MAX_TURNS; do
  [[ -n "${!name:-}" ]] && ENV_VARS+=",${name}=${!name}"
done
# ALLOWED_CATALOG_PREFIXES holds commas: pass it with gcloud's alternate delimiter syntax.
ENV_ARG="^|^${ENV_VARS//,/|}"
[[ -n "${ALLOWED_CATALOG_PREFIXES:-}" ]] && ENV_ARG+="|ALLOWED_CATALOG_PREFIXES=${ALLOWED_CATALOG_PREFIXES}"

if ! [[ "$STATE_TTL_DAYS" =~ ^[1-9][0-9]{0,3}$ ]] || (( STATE_TTL_DAYS > 3650 )); then
  echo "STATE_TTL_DAYS must be a whole number of days (1-3650), not '${STATE_TTL_DAYS}'" >&2
  exit 2
fi

if [[ -n "${STATE_BUCKET:-}" ]]; then
  # State bucket: tasks and conversations (JSON) and attached catalogs (Parquet). Private, uniform access,
  # created if missing; objects are deleted STATE_TTL_DAYS after they were written (each write makes a new
  # object generation, so the age counts from the last write) — the agent applies the same TTL on read.
  if [[ $DRY == 1 ]] || ! gcloud storage buckets describe "gs://${STATE_BUCKET}" --project "$PROJECT" >/dev/null 2>&1; then
    run gcloud storage buckets create "gs://${STATE_BUCKET}" --project "$PROJECT" --location "$REGION" \
      --uniform-bucket-level-access --public-access-prevention
  else
    echo "State bucket gs://${STATE_BUCKET} exists; checking its lifecycle rule and access."
  fi
  LIFECYCLE=$(mktemp)
  trap 'rm -f "$LIFECYCLE"' EXIT
  printf '{"rule":[{"action":{"type":"Delete"},"condition":{"age":%s}}]}\n' "$STATE_TTL_DAYS" > "$LIFECYCLE"
  [[ $DRY == 1 ]] && echo "# lifecycle rule: $(cat "$LIFECYCLE")"
  run gcloud storage buckets update "gs://${STATE_BUCKET}" --lifecycle-file="$LIFECYCLE" \
    --uniform-bucket-level-access --public-access-prevention
  # Least role that can create, read, overwrite (generation-conditioned) and delete objects — on this
  # bucket only, not the project. No bucket-level permissions are needed.
  run gcloud storage buckets add-iam-policy-binding "gs://${STATE_BUCKET}" \
    --member "serviceAccount:${RUNTIME_SA}" --role roles/storage.objectUser
fi

# Read-only access to every bucket a catalog may come from: the configured locations and the buckets of
# ALLOWED_CATALOG_PREFIXES (where a trusted caller's catalog_context may point).
CATALOG_BUCKETS=()
IFS=',' read -r -a PREFIX_LIST <<< "${ALLOWED_CATALOG_PREFIXES:-}"
for uri in "${CATALOG_URI:-}" "${REFERENCE_URI:-}" "${PREFIX_LIST[@]}"; do
  uri=${uri// /}
  if [[ "$uri" == gs://* ]]; then
    bucket=${uri#gs://}; bucket=${bucket%%/*}
    [[ " ${CATALOG_BUCKETS[*]} " == *" ${bucket} "* ]] || CATALOG_BUCKETS+=("$bucket")
  fi
done
for bucket in "${CATALOG_BUCKETS[@]}"; do
  run gcloud storage buckets add-iam-policy-binding "gs://${bucket}" \
    --member "serviceAccount:${RUNTIME_SA}" --role roles/storage.objectViewer
done

SECRET_ARGS=()
if [[ -n "${CATALOG_CONTEXT_SECRET_NAME:-}" ]]; then
  SECRET_ARGS=(--set-secrets "CATALOG_CONTEXT_SECRET=${CATALOG_CONTEXT_SECRET_NAME}:latest")
  # The function reads this one secret, nothing else in Secret Manager.
  run gcloud secrets add-iam-policy-binding "$CATALOG_CONTEXT_SECRET_NAME" --project "$PROJECT" \
    --member "serviceAccount:${RUNTIME_SA}" --role roles/secretmanager.secretAccessor
fi

run gcloud functions deploy "$FUNCTION" \
  --gen2 --runtime=python313 --region="$REGION" --project="$PROJECT" \
  --source=. --entry-point=a2a --trigger-http --no-allow-unauthenticated \
  --memory="$MEMORY" --cpu="$CPU" --timeout="$TIMEOUT" --concurrency="$CONCURRENCY" \
  --service-account="$RUNTIME_SA" \
  --set-env-vars="$ENV_ARG" "${SECRET_ARGS[@]}"

if [[ $DRY == 0 ]]; then
  RUN_URL=$(gcloud functions describe "$FUNCTION" --gen2 --region "$REGION" --project "$PROJECT" --format='value(serviceConfig.uri)')/
fi
# The card must advertise the public URL: set it now that it is known (a second, quick revision).
run gcloud functions deploy "$FUNCTION" --gen2 --runtime=python313 --region="$REGION" --project="$PROJECT" \
  --source=. --entry-point=a2a --trigger-http --no-allow-unauthenticated \
  --update-env-vars="PUBLIC_URL=${RUN_URL}"

# Let Gemini Enterprise call the function.
run gcloud functions add-invoker-policy-binding "$FUNCTION" --gen2 --region="$REGION" --project="$PROJECT" \
  --member="serviceAccount:${GEMINI_SERVICE_AGENT}"

echo
echo "Endpoint: ${RUN_URL}"
echo "Agent card to register in Gemini Enterprise:"
if [[ $DRY == 1 ]]; then
  echo "(dry run: the card is fetched from ${RUN_URL}.well-known/agent-card.json after deployment)"
else
  curl -fsS -H "Authorization: Bearer $(gcloud auth print-identity-token)" "${RUN_URL}.well-known/agent-card.json"
  echo
fi
