#!/usr/bin/env bash
# MCP server benchmark on a large real tree: commits SRC (default: the Go
# toolchain's own $(go env GOROOT)/src) into a temporary repository,
# extracts memory, then measures recall and context through the server
# (p50/p95): in the handler, through the SDK in-process, and over stdio
# to `git-konteks mcp` as an agent calls it. Then it runs the official MCP
# inspector in CLI mode (npm @modelcontextprotocol/inspector, installed
# into $KONTEKS_INSPECTOR_DIR, default ~/.cache/konteks-bench/inspector,
# never into the repository) against `git-konteks mcp --http` over every
# tool, prompt and resource, and prints each call's latency as the
# inspector sees it (Node's start included) and whether it succeeded.
# KONTEKS_BENCH_REPO=DIR reuses a repository that already has memory
# instead (the inspector pass then skips the tools that write).
# BENCH_INSPECTOR=0 skips the inspector.
#   usage: scripts/bench-mcp.sh [SRC_DIR] [BINARY]
# Target: recall p50 under 20 ms in the server.
set -euo pipefail
src=${1:-$(go env GOROOT)/src}
bin=${2:-$(pwd)/bin/git-konteks}
calls=${BENCH_CALLS:-200}
root=$(pwd)
repo=${KONTEKS_BENCH_REPO:-}
writes=0
if [ -z "$repo" ]; then
  writes=1
  work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-mcp.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  . "$(dirname "$0")/hermetic-git.sh" bench
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

[ "${BENCH_INSPECTOR:-1}" = 0 ] && exit 0

# ---- the official inspector, CLI mode, over streamable HTTP
insp=${KONTEKS_INSPECTOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/konteks-bench/inspector}
if [ ! -x "$insp/node_modules/.bin/mcp-inspector" ]; then
  echo "installing @modelcontextprotocol/inspector into $insp"
  mkdir -p "$insp"
  (cd "$insp" && npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector >/dev/null)
fi
echo "inspector: $(node -p "require('$insp/node_modules/@modelcontextprotocol/inspector/package.json').version") (node $(node --version))"
log=$(mktemp "${TMPDIR:-/tmp}/konteks-mcp-http.XXXXXX")
"$bin" mcp --http 127.0.0.1:0 --repo "$repo" 2>"$log" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -f "$log"; [ -n "${work:-}" ] && rm -rf "$work"' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[^ ]*' "$log" | head -1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the HTTP server did not start:"; cat "$log"; exit 1; }
echo "server: $url"

# paths to ask about, from memory itself
read -r file dir < <(cd "$repo" && "$bin" recall --json -n 1 "parse HTTP request headers" 2>/dev/null |
  python3 -c 'import json,sys,os; h=json.load(sys.stdin)["hits"][0]["path"]; print(h, os.path.dirname(h))')
if [ "$writes" = 1 ]; then
  skill=$(mktemp "${TMPDIR:-/tmp}/SKILL.XXXXXX.md")
  printf -- '---\nname: bench-skill\ndescription: Run the benchmarks of this repository\n---\n\nRun make bench.\n' >"$skill"
  (cd "$repo" && "$bin" skill add "$skill" >/dev/null)
  rm -f "$skill"
fi

[ "$dir" = . ] && dir=
fails=0
results=()
call() { # call LABEL inspector-args...
  local label=$1; shift
  local t0 t1 out ok=ok
  t0=$(date +%s%N)
  out=$(node "$insp/node_modules/.bin/mcp-inspector" --cli "$url" --transport http "$@" 2>&1) || ok=FAIL
  t1=$(date +%s%N)
  if grep -q '"isError": true' <<<"$out"; then ok=FAIL; fi
  [ "$ok" = ok ] || { fails=$((fails+1)); echo "  $label: $(head -c 300 <<<"$out")" >&2; }
  local ms=$(( (t1 - t0) / 1000000 ))
  results+=("$label $ms")
  printf '  %-34s %6d ms  %s\n' "$label" "$ms" "$ok"
}
tool() { local name=$1; shift; local a=(); for kv in "$@"; do a+=(--tool-arg "$kv"); done; call "tools/call $name" --method tools/call --tool-name "$name" "${a[@]}"; }

echo "per call, as the inspector sees it (each starts Node and a session):"
call "tools/list" --method tools/list
call "prompts/list" --method prompts/list
call "resources/list" --method resources/list
call "resources/templates/list" --method resources/templates/list
tool recall task="parse HTTP request headers" limit=5
tool context task="add a timeout to DNS lookups" budget=1500
if [ -n "$dir" ]; then tool overview path="$dir"; else tool overview; fi
tool skeleton path="$file"
tool show path="$file"
tool graph name="$file"
tool memories
tool skills
tool status
tool why target="$file"
tool history question="fix a race"
if [ "$writes" = 1 ]; then
  tool remember text="The bench repository is throwaway: nothing saved here is kept." kind=note
  id=$(cd "$repo" && "$bin" memories --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null || true)
  tool diary entry="Ran the MCP benchmark." subject=bench
  [ -n "$id" ] && tool forget id="$id" reason="bench cleanup"
  tool refresh
fi
call "prompts/get warm-up" --method prompts/get --prompt-name warm-up --prompt-args task="add a timeout to DNS lookups"
call "prompts/get recall-before-change" --method prompts/get --prompt-name recall-before-change --prompt-args change="let ServeMux match methods"
call "prompts/get save-after-work" --method prompts/get --prompt-name save-after-work --prompt-args summary="benchmarked"
call "resources/read project" --method resources/read --uri "konteks://project"
call "resources/read dir" --method resources/read --uri "konteks://dir/$dir"
call "resources/read file" --method resources/read --uri "konteks://file/$file"
[ "$writes" = 1 ] && call "resources/read skill" --method resources/read --uri "konteks://skill/bench-skill"

echo "recall through the inspector, ${BENCH_INSPECTOR_RECALLS:-10} tasks:"
rms=()
tasks=("parse HTTP request headers" "gzip writer compression level" "where are goroutine stacks grown" "TLS handshake client certificate verification"
  "format a time with a layout string" "map iteration order randomization" "URL query parameter encoding" "mutex starvation mode"
  "utf8 decode rune from string" "regular expression syntax parsing")
for task in "${tasks[@]:0:${BENCH_INSPECTOR_RECALLS:-10}}"; do
  t0=$(date +%s%N)
  node "$insp/node_modules/.bin/mcp-inspector" --cli "$url" --transport http --method tools/call --tool-name recall --tool-arg task="$task" >/dev/null 2>&1 || fails=$((fails+1))
  t1=$(date +%s%N)
  rms+=($(( (t1 - t0) / 1000000 )))
done
sorted=($(printf '%s\n' "${rms[@]}" | sort -n))
echo "  inspector recall p50 ${sorted[$(( ${#sorted[@]} / 2 ))]} ms (min ${sorted[0]}, max ${sorted[-1]}); the server's own share is the stdio figure above"
t0=$(date +%s%N); node "$insp/node_modules/.bin/mcp-inspector" --cli "$url" --transport http --method tools/list >/dev/null 2>&1; t1=$(date +%s%N)
echo "  inspector floor (tools/list): $(( (t1 - t0) / 1000000 )) ms"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
if [ "$fails" -gt 0 ]; then
  echo "$fails inspector calls failed"
  exit 1
fi
