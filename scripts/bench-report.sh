#!/usr/bin/env bash
# Writes docs/performance.md from one run of the benchmarks: the machine,
# the date and the load, then each benchmark's own printed figures (each
# prints its peer or floor beside it). Nothing in the page is typed by
# hand, so it is always the figures of one run of the current code.
#   usage: scripts/bench-report.sh [MAKE-TARGET...]
set -uo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(bench-peers bench-extract bench-recall bench-growth bench-history bench-mcp)
out=docs/performance.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
  echo "# Performance"
  echo
  echo "Figures of one run of \`scripts/bench-report.sh\` (\`make bench-report\`) on the"
  echo "current code; every benchmark prints its peer or floor beside it in the same"
  echo "run, so ratios hold even where the machine is shared and absolute times drift."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u +%Y-%m-%d) |"
  echo "| commit | $(git describe --always --dirty 2>/dev/null) |"
  echo "| machine | $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') |"
  echo "| load before | $(cut -d' ' -f1-3 /proc/loadavg) |"
  echo "| go | $(go version | cut -d' ' -f3) |"
  echo "| git | $(git --version | cut -d' ' -f3) |"
} >"$tmp"
for t in "${targets[@]}"; do
  echo "== $t" >&2
  log=$(mktemp)
  start=$(cut -d' ' -f1 /proc/loadavg)
  make --no-print-directory "$t" >"$log" 2>&1
  rc=$?
  {
    echo
    echo "## \`make $t\`"
    echo
    echo "Load $start at the start$([ $rc -eq 0 ] || echo ", exit status $rc")."
    echo
    echo '```'
    grep -v -e '^go build' -e '^mkdir' -e '^install' -e '^scripts/' -e '^BINARY=' "$log"
    echo '```'
  } >>"$tmp"
  rm -f "$log"
done
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out" >&2
