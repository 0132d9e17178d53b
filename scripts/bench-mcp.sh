#!/usr/bin/env bash
# MCP server benchmark on a large real tree: commits SRC (default: the Go
# toolchain's own $(go env GOROOT)/src) into a temporary repository,
# extracts memory, then measures recall and context through the server
# (p50/p95): in the handler, through the SDK in-process, and over stdio
# to `git-konteks mcp` as an agent calls it. KONTEKS_BENCH_REPO=DIR reuses
# a repository that already has memory instead.
#   usage: scripts/bench-mcp.sh [SRC_DIR] [BINARY]
# Target: recall p50 under 20 ms in the server.
set -euo pipefail
src=${1:-$(go env GOROOT)/src}
bin=${2:-$(pwd)/bin/git-konteks}
calls=${BENCH_CALLS:-200}
root=$(pwd)
repo=${KONTEKS_BENCH_REPO:-}
if [ -z "$repo" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-mcp.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
  export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  echo "source: $src"
  repo="$work/repo"
  git init -q "$repo"
  cp -r "$src/." "$repo/"
  (cd "$repo" && git add -A >/dev/null 2>&1 && git commit -qm "import source" >/dev/null && "$bin" extract --mode full --quiet)
fi
echo "repository: $repo ($(cd "$repo" && "$bin" status --json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["included"], "files,", s["sections"], "sections")'))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
cd "$root"
KONTEKS_BENCH_REPO="$repo" KONTEKS_BENCH_BIN="$bin" \
  go test -run '^$' -bench 'MCP' -benchtime "${calls}x" ./mcp/ | grep -E '^Benchmark'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
