#!/usr/bin/env bash
# Runs a command and then says how long it took, for the Makefile's long steps:
#   scripts/timed-step.sh "what is done" command [args...]
# The command's exit status is kept; a failure says so with the time it took.
set -uo pipefail
what=$1
shift
start=$(date +%s.%N)
"$@"
status=$?
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
if [ "$status" -eq 0 ]; then
  printf 'make: %s in %s s\n' "$what" "$secs"
else
  printf 'make: failed after %s s (exit status %d): %s\n' "$secs" "$status" "$*" >&2
fi
exit "$status"
