#!/usr/bin/env bash
# The test step of `make test`: every vitest project, in two vitest processes at once.
#   - with --with-checks first (make test), the type-check, lint and import-layer check run in the
#     background too, one after another (each is single-threaded: alone before the tests, they
#     left a core idle for about a minute); their output is printed after the tests', whole;
#   - the kube project (suites against a real kube-apiserver and etcd, one file at a time: each file
#     starts its own control plane) runs in the background, its output kept in a file;
#   - the unit and integration projects run in the foreground, two files at a time.
# Most of the kube suites' time is spent waiting for the API server, etcd and the operator
# processes, so running them beside the rest shortens the step by about their length. The kube
# project's output is printed after the rest's, whole, and the step fails when either run fails.
# CI shows only the end of what it printed, so a failed step ends with every failed test of both
# runs, one per line, whichever run it was in.
#   scripts/run-tests.sh [--with-checks] [extra vitest arguments for both runs]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

log=$(mktemp "${TMPDIR:-/tmp}/portico-kube-tests.XXXXXX")
mainlog=$(mktemp "${TMPDIR:-/tmp}/portico-tests.XXXXXX")
checklog=$(mktemp "${TMPDIR:-/tmp}/portico-checks.XXXXXX")
trap 'rm -f "$log" "$mainlog" "$checklog"' EXIT
checks=
if [ "${1:-}" = "--with-checks" ]; then
  shift
  echo "run-tests: the type-check, lint and import-layer check run in the background (their output follows the tests')"
  (
    set -e
    echo "run-tests: type-check (tsc --noEmit)"
    npm run --silent typecheck
    echo "run-tests: lint (eslint)"
    npm run --silent lint
    echo "run-tests: import layers (dependency-cruiser)"
    npm run --silent depcheck
  ) >"$checklog" 2>&1 &
  checks=$!
fi
echo "run-tests: the kube project runs in the background (its output follows the others')"
npx vitest run --project kube --passWithNoTests "$@" >"$log" 2>&1 &
kube=$!
# A Ctrl-C or a kill of this script stops the background run too.
trap 'kill "$kube" ${checks:+"$checks"} 2>/dev/null; rm -f "$log" "$mainlog" "$checklog"' EXIT INT TERM

npx vitest run --project unit --project integration --passWithNoTests "$@" 2>&1 | tee "$mainlog"
main_status=${PIPESTATUS[0]}
wait "$kube"
kube_status=$?
echo
echo "run-tests: ---- the kube project (real kube-apiserver and etcd), run beside the above ----"
cat "$log"
check_status=0
if [ -n "$checks" ]; then
  wait "$checks"
  check_status=$?
  echo
  echo "run-tests: ---- the type-check, lint and import-layer check, run beside the above ----"
  cat "$checklog"
  if [ "$check_status" -ne 0 ]; then
    echo "run-tests: a check failed (exit $check_status): its output is just above" >&2
  fi
fi
if [ "$main_status" -ne 0 ] || [ "$kube_status" -ne 0 ] || [ "$check_status" -ne 0 ]; then
  echo "run-tests: the failed tests and files of both runs:" >&2
  # vitest marks a failed test with ×, and names it again with FAIL above its error; colours are
  # stripped to match, and each FAIL line is followed by its error's first line.
  sed -e 's/\x1b\[[0-9;]*m//g' "$mainlog" "$log" |
    awk '/^ *× /{print; next} /^ *FAIL /{print; want=1; next} want && NF {print "    " $0; want=0}' |
    head -60 >&2
  echo "run-tests: failed (unit and integration: exit $main_status; kube: exit $kube_status; checks: exit $check_status)" >&2
  exit 1
fi
