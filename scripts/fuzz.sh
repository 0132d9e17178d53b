#!/usr/bin/env bash
# Runs every Go fuzz target in the module for the given time each.
#   usage: scripts/fuzz.sh [DURATION]   (default 30s)
set -euo pipefail
failed=
time=${1:-30s}
cd "$(dirname "$0")/.."
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== $pkg $target ($time)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg" || failed="$failed $pkg.$target"
  done
done
# Every target runs, whatever an earlier one found; the failures are
# listed at the end (a failing input is saved under the package's
# testdata/fuzz, where go test replays it).
if [ -n "${failed:-}" ]; then
  echo "fuzz targets that failed:$failed"
  exit 1
fi
