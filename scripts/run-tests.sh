#!/usr/bin/env bash
# The test step of `make test`: every vitest project, in two vitest processes at once.
#   - the kube project (suites against a real kube-apiserver and etcd, one file at a time: each file
#     starts its own control plane) runs in the background, its output kept in a file;
#   - the unit and integration projects run in the foreground, two files at a time.
# Most of the kube suites' time is spent waiting for the API server, etcd and the operator
# processes, so running them beside the rest shortens the step by about their length. The kube
# project's output is printed after the rest's, whole, and the step fails when either run fails.
#   scripts/run-tests.sh [extra vitest arguments for both runs]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

log=$(mktemp "${TMPDIR:-/tmp}/portico-kube-tests.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "run-tests: the kube project runs in the background (its output follows the others')"
npx vitest run --project kube --passWithNoTests "$@" >"$log" 2>&1 &
kube=$!
# A Ctrl-C or a kill of this script stops the background run too.
trap 'kill "$kube" 2>/dev/null; rm -f "$log"' EXIT INT TERM

npx vitest run --project unit --project integration --passWithNoTests "$@"
main_status=$?
wait "$kube"
kube_status=$?
echo
echo "run-tests: ---- the kube project (real kube-apiserver and etcd), run beside the above ----"
cat "$log"
if [ "$main_status" -ne 0 ] || [ "$kube_status" -ne 0 ]; then
  echo "run-tests: failed (unit and integration: exit $main_status; kube: exit $kube_status)" >&2
  exit 1
fi
