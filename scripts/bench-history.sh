#!/usr/bin/env bash
# History memory benchmark on a long real history: clones REPO (default:
# prometheus in $KONTEKS_REPOS, 18,000+ commits) into a temporary
# directory, extracts memory (history included), and reports the history
# stage's time, the commits and segments recorded and the size of
# history/ in the memory ref; then the one-commit append: the history
# stage's time and the whole one-file `changed` run (process start
# included), median of BENCH_RUNS.
#   usage: scripts/bench-history.sh [REPO] [BINARY]
set -euo pipefail
if [ $# -eq 0 ] && [ -z "${KONTEKS_REPOS:-}" ]; then
  echo "bench-history: pass REPO, or set KONTEKS_REPOS to the directory scripts/fetch-repos.sh fills" >&2; exit 2
fi
src=${1:-$KONTEKS_REPOS/prometheus+prometheus}
bin=${2:-$(pwd)/bin/git-konteks}
runs=${BENCH_RUNS:-5}
if [ ! -d "$src" ]; then
  echo "bench-history: no repository at $src (pass one: scripts/bench-history.sh REPO)"; exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-history.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/hermetic-git.sh" bench

# Bare: the extraction reads only objects, and a mirror may lack a blob
# that a checkout would need.
root=$(pwd)
git clone -q --bare "$src" "$work/repo"
cd "$work/repo"
commits=$(git rev-list --count HEAD)
echo "history: ${src#"${KONTEKS_REPOS:-}/"}, $commits commits"
now() { date +%s.%N; }
t0=$(now)
if git log --raw --numstat -M --root --diff-merges=off -z --format=%H HEAD >/dev/null 2>&1; then
  t1=$(now)
  printf 'git log --raw --numstat -M alone: %.2fs\n' "$(echo "$t1 - $t0" | bc -l)"
else
  echo "git log --raw --numstat -M alone: fails (a blob is missing; the history stage walks around it)"
fi

hist() { "$bin" manifest --json | python3 -c 'import json,sys; m=json.load(sys.stdin); h=m.get("history") or {}; print(m["timings_ms"].get("history", 0), h.get("commits", 0), h.get("new", 0), h.get("segments", 0))'; }
t0=$(now); "$bin" extract --quiet; t1=$(now)
read -r ms total new segs <<<"$(hist)"
size=$(git ls-tree -r -l refs/konteks history | awk '{s+=$4} END {print s+0}')
objs=$(git ls-tree -r refs/konteks history | wc -l)
printf 'first extraction: %.1fs in all; history stage %.0f ms for %d commits (%.0f commits/s), %d segments\n' \
  "$(echo "$t1 - $t0" | bc -l)" "$ms" "$total" "$(echo "$total*1000/$ms" | bc -l)" "$segs"
printf 'history/ in the memory ref: %d objects, %.2f MB (zstd; %.0f bytes a commit)\n' "$objs" "$(echo "$size/1000000" | bc -l)" "$(echo "$size/$total" | bc -l)"

target=$(git ls-tree -r --name-only HEAD | awk '/\.(go|py|js|ts|rs|java|rb|c|md)$/ && !/testdata|vendor/ { n++; if (n <= 50) t = $0 } END { print t }')
export GIT_INDEX_FILE="$work/index"
stage=(); wall=()
for i in $(seq 1 "$runs"); do
  # One commit changing one file, made with plumbing (no work tree).
  blob=$( (git cat-file blob "HEAD:$target"; echo "// bench edit $i") | git hash-object -w --stdin)
  git read-tree HEAD
  git update-index --cacheinfo "100644,$blob,$target"
  c=$(echo "bench edit $i" | git commit-tree "$(git write-tree)" -p HEAD)
  git update-ref HEAD "$c"
  t0=$(now); "$bin" extract --quiet; t1=$(now)
  wall+=("$(echo "($t1 - $t0)*1000" | bc -l)")
  read -r ms total new segs <<<"$(hist)"
  stage+=("$ms")
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($#+1)/2 ))p"; }
printf 'one-commit append: history stage median %.1f ms (max %.1f); whole one-file changed run median %.0f ms, over %d runs\n' \
  "$(med "${stage[@]}")" "$(printf '%s\n' "${stage[@]}" | sort -n | tail -1)" "$(med "${wall[@]}")" "$runs"
printf 'after: %d commits recorded\n' "$total"

# The trees-only walk answers as the complete -M --numstat walk did: every
# record of the whole history, why for 200 files and history for 50
# questions (history/walk_test.go, TestTreesOnlyWalkOnARealRepository).
cd "$root"
if [ -z "${BENCH_NO_COMPARE:-}" ]; then
  KONTEKS_HISTORY_COMPARE="$src" go test ./history -run '^TestTreesOnlyWalkOnARealRepository$' -count=1 -v -timeout 30m |
    grep -E 'commits:|^(--- |ok|FAIL)' || true
fi
