#!/usr/bin/env bash
# End-to-end check of the image and the Helm chart in a throwaway kind cluster:
#   build the image, create the cluster, load the image, install the chart (with search basic auth
#   on), apply the example Ingress, IngressRoute and push Job, then check the management API, the
#   push gateway and a search round trip, and delete the cluster.
#
# Needs docker, kind, kubectl, curl and node (for helm, see scripts/helm-tool.ts) on the machine,
# and network access from the cluster for the example images (traefik/whoami, python:3.12-slim).
# Run it with `make e2e-kind`.
#
# Environment:
#   KIND_CLUSTER   cluster name (default portico-e2e)
#   PORTICO_IMAGE  image to build and load (default portico:e2e)
#   SKIP_BUILD=1   load an image built before instead of building it
#   KEEP_CLUSTER=1 leave the cluster running at the end, for debugging
#   LOCAL_PORT_BASE first of the three local ports used for port-forwarding (default 18080)
#   HELM           helm binary to use (default: the one scripts/helm-tool.ts extracts)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER="${KIND_CLUSTER:-portico-e2e}"
IMAGE="${PORTICO_IMAGE:-portico:e2e}"
NAMESPACE=portico
RELEASE=portico
PORT_BASE="${LOCAL_PORT_BASE:-18080}"
MGMT_PORT="$PORT_BASE"
PUSH_PORT="$((PORT_BASE + 1))"
SEARCH_PORT="$((PORT_BASE + 2))"
SEARCH_USER=e2e
SEARCH_PASSWORD="e2e-$RANDOM-$RANDOM"

WORK="$(mktemp -d)"
PORT_FORWARD_PID=""

log() { printf '\n==> %s\n' "$*"; }
fail() {
  printf 'e2e-kind: FAILED: %s\n' "$*" >&2
  exit 1
}
need() {
  command -v "$1" >/dev/null 2>&1 || fail "$1 is required: $2"
}

cleanup() {
  local status=$?
  if [ -n "$PORT_FORWARD_PID" ]; then
    kill "$PORT_FORWARD_PID" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && kubectl --context "kind-$CLUSTER" get ns "$NAMESPACE" >/dev/null 2>&1; then
    printf '\n==> diagnostics\n' >&2
    kubectl --context "kind-$CLUSTER" -n "$NAMESPACE" get pods,svc,pvc -o wide >&2 || true
    kubectl --context "kind-$CLUSTER" -n "$NAMESPACE" logs "deployment/$RELEASE" --all-containers --tail=80 >&2 || true
  fi
  if [ "${KEEP_CLUSTER:-0}" = 1 ]; then
    printf 'Cluster %s kept (kind delete cluster --name %s)\n' "$CLUSTER" "$CLUSTER"
  else
    kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit "$status"
}

# Retries a command every 2 s until it succeeds or the timeout (seconds) runs out.
retry() {
  local timeout=$1
  shift
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      return 1
    fi
    sleep 2
  done
}

# Prints a URL's body; fails on a non-2xx status.
get() {
  curl --silent --show-error --fail --max-time 10 "$@"
}

# Succeeds when GET $1 answers 2xx and its body contains $2 (a fixed string).
body_contains() {
  local body
  body="$(get "$1" 2>/dev/null)" || return 1
  grep --quiet --fixed-strings -- "$2" <<<"$body"
}

need docker "https://docs.docker.com/engine/install/"
need kind "go install sigs.k8s.io/kind@latest, or a release binary"
need kubectl "the Kubernetes CLI"
need curl "apt-get install curl"
need node "Node.js 20, also used to provide helm"

HELM="${HELM:-}"
if [ -z "$HELM" ]; then
  HELM="$(cd "$ROOT" && npx --no-install tsx scripts/helm-tool.ts)"
fi

trap cleanup EXIT

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "building $IMAGE"
  docker build --tag "$IMAGE" "$ROOT"
fi

log "creating kind cluster $CLUSTER"
kind delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
kind create cluster --name "$CLUSTER" --wait 180s
kubectl config use-context "kind-$CLUSTER" >/dev/null

log "loading $IMAGE into the cluster"
kind load docker-image "$IMAGE" --name "$CLUSTER"

log "installing the chart (search basic auth on)"
SEARCH_HASH="$(cd "$ROOT" && node -e 'process.stdout.write(require("bcryptjs").hashSync(process.argv[1], 10))' "$SEARCH_PASSWORD")"
cat >"$WORK/values.yaml" <<EOF
image:
  repository: "${IMAGE%:*}"
  tag: "${IMAGE##*:}"
  pullPolicy: Never
server:
  logLevel: debug
  auth:
    search:
      enabled: true
      users:
        - "$SEARCH_USER:$SEARCH_HASH"
operator:
  logLevel: debug
EOF
"$HELM" install "$RELEASE" "$ROOT/charts/portico" \
  --namespace "$NAMESPACE" --create-namespace \
  --values "$WORK/values.yaml" \
  --wait --timeout 5m

log "checking the pod runs as non-root with a read-only root filesystem"
POD="$(kubectl -n "$NAMESPACE" get pods -l "app.kubernetes.io/instance=$RELEASE" -o jsonpath='{.items[0].metadata.name}')"
UID_IN_POD="$(kubectl -n "$NAMESPACE" exec "$POD" -c server -- node -e 'process.stdout.write(String(process.getuid()))')"
[ "$UID_IN_POD" = 65532 ] || fail "server runs as uid $UID_IN_POD, expected 65532"
if kubectl -n "$NAMESPACE" exec "$POD" -c server -- node -e 'require("fs").writeFileSync("/app/probe", "x")' 2>/dev/null; then
  fail "the root filesystem is writable"
fi

log "applying the examples"
kubectl apply -f "$ROOT/examples/whoami.yaml" -f "$ROOT/examples/ingress.yaml" -f "$ROOT/examples/ingressroute.yaml"
kubectl apply -f "$ROOT/examples/pushgateway-job.yaml"
kubectl wait --for=condition=Available deployment/whoami --timeout=180s
kubectl wait --for=condition=Complete job/nightly-backup --timeout=300s || {
  kubectl logs job/nightly-backup >&2 || true
  fail "the push Job did not complete"
}

log "port-forwarding the three APIs to 127.0.0.1:$MGMT_PORT, $PUSH_PORT, $SEARCH_PORT"
kubectl -n "$NAMESPACE" port-forward "svc/$RELEASE" \
  "$MGMT_PORT:8080" "$PUSH_PORT:9091" "$SEARCH_PORT:9200" >"$WORK/port-forward.log" 2>&1 &
PORT_FORWARD_PID=$!
retry 30 body_contains "http://127.0.0.1:$MGMT_PORT/ping" OK || fail "management API /ping did not answer"

MGMT="http://127.0.0.1:$MGMT_PORT"
PUSH="http://127.0.0.1:$PUSH_PORT"
SEARCH="http://127.0.0.1:$SEARCH_PORT"

log "management API: the Ingress and the IngressRoute appear"
retry 90 body_contains "$MGMT/api/http/routers" "whoami" || fail "no router for the whoami Ingress in /api/http/routers"
retry 60 body_contains "$MGMT/api/http/routers" "@kubernetescrd" || fail "no router from the IngressRoute (provider kubernetescrd)"
retry 60 body_contains "$MGMT/api/http/middlewares" "strip-api" || fail "the IngressRoute's middlewares are missing from /api/http/middlewares"
retry 60 body_contains "$MGMT/api/http/services" "whoami" || fail "no whoami service in /api/http/services"

log "push gateway: the Job's metrics are there with their labels"
get "$PUSH/-/healthy" >/dev/null || fail "push gateway /-/healthy"
METRICS="$(get "$PUSH/metrics")"
grep --quiet -E '^nightly_backup_rows\{.*job="nightly-backup".*table="orders".*\} 1250' <<<"$METRICS" ||
  grep --quiet -E '^nightly_backup_rows\{.*table="orders".*job="nightly-backup".*\} 1250' <<<"$METRICS" ||
  fail "nightly_backup_rows{job=\"nightly-backup\",table=\"orders\"} 1250 is not in /metrics"
grep --quiet '^push_time_seconds{' <<<"$METRICS" || fail "push_time_seconds is missing from /metrics"

log "search: basic auth and a round trip"
STATUS="$(curl --silent --output /dev/null --write-out '%{http_code}' "$SEARCH/")"
[ "$STATUS" = 401 ] || fail "search without credentials answered $STATUS, expected 401"
AUTH=(--user "$SEARCH_USER:$SEARCH_PASSWORD" --header 'Content-Type: application/json')
get "${AUTH[@]}" -X PUT "$SEARCH/e2e-docs/_doc/1?refresh=true" -d '{"title":"portico in kind","body":"pushed and searched"}' >/dev/null ||
  fail "indexing a document"
get "${AUTH[@]}" -X PUT "$SEARCH/e2e-docs/_doc/2?refresh=true" -d '{"title":"unrelated","body":"nothing to see"}' >/dev/null ||
  fail "indexing a second document"
RESULT="$(get "${AUTH[@]}" -X POST "$SEARCH/e2e-docs/_search" -d '{"query":{"match":{"title":"kind"}},"from":0,"size":10}')" ||
  fail "searching"
grep --quiet '"_id":"1"' <<<"$RESULT" || fail "the search did not find document 1: $RESULT"
if grep --quiet '"_id":"2"' <<<"$RESULT"; then fail "the search found the unrelated document: $RESULT"; fi

log "restart keeps pushed metrics and documents (persistent volume)"
kubectl -n "$NAMESPACE" rollout restart "deployment/$RELEASE"
kubectl -n "$NAMESPACE" rollout status "deployment/$RELEASE" --timeout=180s
kill "$PORT_FORWARD_PID" 2>/dev/null || true
kubectl -n "$NAMESPACE" port-forward "svc/$RELEASE" \
  "$MGMT_PORT:8080" "$PUSH_PORT:9091" "$SEARCH_PORT:9200" >>"$WORK/port-forward.log" 2>&1 &
PORT_FORWARD_PID=$!
retry 30 body_contains "$PUSH/-/ready" OK || fail "push gateway not ready after the restart"
retry 30 body_contains "$PUSH/metrics" "nightly_backup_rows" || fail "pushed metrics lost across a restart"
RESULT="$(get "${AUTH[@]}" -X POST "$SEARCH/e2e-docs/_search" -d '{"query":{"match":{"title":"kind"}}}')" || fail "searching after the restart"
grep --quiet '"_id":"1"' <<<"$RESULT" || fail "documents lost across a restart: $RESULT"

log "e2e-kind: all checks passed"
