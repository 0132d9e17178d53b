#!/usr/bin/env bash
# git konteks side by side with a search-engine indexer, in one run on the
# same checkouts: zoekt-index (with universal-ctags) and
# `git konteks extract --mode full`, BENCH_RUNS times each (default 3),
# medians and their ratio; `git log --raw --no-renames` as the floor of a
# history walk, measured after each extraction and set against that run's
# history stage; the peak RSS of the extraction; a one-file `changed` run
# (process start included). Repositories: prometheus and rails from
# $KONTEKS_REPOS (scripts/fetch-repos.sh), and $GOROOT/src committed into a
# repository.
#
# zoekt-index is built from sourcegraph/zoekt in $KONTEKS_REPOS in a
# temporary directory outside this repository (never vendored); the
# binary is kept in $BENCH_CACHE for the next run. universal-ctags comes
# from Debian (installed with apt-get when missing and we are root).
#   usage: scripts/bench-peers.sh [BINARY]
#   BENCH_REPOS="prometheus rails goroot" selects repositories.
set -euo pipefail
bin=${1:-$(pwd)/bin/git-konteks}
runs=${BENCH_RUNS:-3}
repos=${BENCH_REPOS:-prometheus rails goroot}
mirror=${KONTEKS_REPOS:-}
if [ -z "$mirror" ]; then
  echo "bench-peers: set KONTEKS_REPOS to the directory scripts/fetch-repos.sh fills" >&2; exit 2
fi
cache=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/konteks-bench}
work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

echo "load average at start: $(cat /proc/loadavg)"

# --- peers ---------------------------------------------------------------
if ! command -v universal-ctags >/dev/null && ! ctags --version 2>/dev/null | grep -q Universal; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq universal-ctags >/dev/null
  else
    echo "bench-peers: universal-ctags is missing (apt-get install universal-ctags)"; exit 1
  fi
fi
ctags_bin=$(command -v universal-ctags || command -v ctags)
export CTAGS_COMMAND=$ctags_bin
zoekt=$cache/zoekt-index
if [ ! -x "$zoekt" ]; then
  if [ ! -d "$mirror/sourcegraph+zoekt" ]; then
    echo "bench-peers: no zoekt at $mirror/sourcegraph+zoekt (scripts/fetch-repos.sh)"; exit 1
  fi
  mkdir -p "$cache"
  git clone -q "$mirror/sourcegraph+zoekt" "$work/zoekt-src"
  (cd "$work/zoekt-src" && go build -o "$zoekt" ./cmd/zoekt-index)
  rm -rf "$work/zoekt-src"
fi
echo "zoekt-index: $zoekt ($(git --git-dir="$mirror/sourcegraph+zoekt" rev-parse --short HEAD)), ctags: $($ctags_bin --version | head -1)"

# --- helpers -------------------------------------------------------------
now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
# timed CMD...: runs CMD, sets secs and rss_mb (peak resident set of the
# process tree's largest process, from /usr/bin/time -v).
timed() {
  local t0 t1
  # Dirty pages of what ran before (the clone, the other tool's index)
  # are written out first: their writeback, 30 s after the writes, would
  # otherwise land in whichever run comes then (measured: a first run's
  # history stage or floor 3-8x its others).
  sync
  t0=$(now)
  /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; return 1; }
  t1=$(now)
  secs=$(echo "$t1 - $t0" | bc -l)
  rss_mb=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time")
  cpu=$(awk -F: '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$work/time")
}
manifest() { "$bin" manifest --json | python3 -c "import json,sys; m=json.load(sys.stdin); $1"; }
# wait_runner: the background runner (older history) finished.
wait_runner() {
  local i
  for i in $(seq 1 1200); do
    if [ "$(manifest 'print((m.get("history") or {}).get("pending", False))')" = False ] &&
      { [ ! -e .git/konteks/runner.lock ] || flock -n .git/konteks/runner.lock true; }; then
      return 0
    fi
    sleep 0.5
  done
}

bench_repo() {
  local name=$1 dir=$2
  cd "$dir"
  local files commits
  files=$(git ls-tree -r HEAD | wc -l)
  commits=$(git rev-list --count HEAD)
  echo
  echo "== $name: $files files, $commits commits, $(du -sh --exclude=.git . | cut -f1) checkout"
  local z=() zr=() zc=() k=() kr=() kc=() kh=() kall=() kb=() floor=() floor_recent=() hratio=() recent=0
  for i in $(seq 1 "$runs"); do
    rm -rf "$work/idx"; mkdir -p "$work/idx"
    timed "$zoekt" -index "$work/idx" -require_ctags "$dir"
    z+=("$secs"); zr+=("$rss_mb"); zc+=("$cpu")
  done
  for i in $(seq 1 "$runs"); do
    git update-ref -d refs/konteks 2>/dev/null || true
    git update-ref -d refs/konteks-wip 2>/dev/null || true
    rm -rf .git/konteks
    local t0 t1
    t0=$(now)
    timed "$bin" extract --mode full --quiet
    k+=("$secs"); kr+=("$rss_mb"); kc+=("$cpu")
    kh+=("$(manifest 'print(m["timings_ms"].get("history", 0)/1000)')")
    recent=$(manifest 'print((m.get("history") or {}).get("commits", 0))')
    # Older history, recorded by the background runner after the command
    # returned (after it warms recall's caches): its own time is in its log.
    wait_runner
    local back
    back=$( (sed -n 's/.*older history recorded: .* in \([0-9.]*\)s$/\1/p' .git/konteks/log 2>/dev/null || true) | tail -1)
    kb+=("${back:-0}")
    kall+=("$(echo "$secs + ${back:-0}" | bc -l)")
    # The floor of this run's history stage, measured at once: on a
    # shared machine the load moves between runs, so each stage is set
    # against its own floor and the ratios' median is reported.
    local t0 t1 f
    sync
    t0=$(now); git log --raw --no-renames --no-abbrev -z --diff-merges=off --format='%H%x00%P%x00%an%x00%ae%x00%at%x00%B' --max-count="$recent" HEAD >/dev/null; t1=$(now)
    f=$(echo "$t1 - $t0" | bc -l)
    floor_recent+=("$f")
    hratio+=("$(echo "${kh[-1]} / $f" | bc -l)")
    t0=$(now); git log --raw --no-renames --no-abbrev -z --diff-merges=off --format='%H%x00%P%x00%an%x00%ae%x00%at%x00%B' HEAD >/dev/null; t1=$(now)
    floor+=("$(echo "$t1 - $t0" | bc -l)")
  done
  # One-file changed run, process start included.
  local target c1=() c1r=()
  target=$(git ls-tree -r --name-only HEAD | awk '/\.(go|rb|py|js|md)$/ && !/testdata|vendor/ { n++; if (n <= 50) t = $0 } END { print t }')
  export GIT_INDEX_FILE="$work/index.$name"
  for i in $(seq 1 "$runs"); do
    local blob c
    blob=$( (git cat-file blob "HEAD:$target"; echo "// bench edit $i") | git hash-object -w --stdin)
    git read-tree HEAD
    git update-index --cacheinfo "100644,$blob,$target"
    c=$(echo "bench edit $i" | git commit-tree "$(git write-tree)" -p HEAD)
    git update-ref HEAD "$c"
    timed "$bin" extract --quiet
    c1+=("$(echo "$secs*1000" | bc -l)"); c1r+=("$rss_mb")
  done
  unset GIT_INDEX_FILE
  local zm km kam khm fm frm c1m
  zm=$(median "${z[@]}"); km=$(median "${k[@]}"); kam=$(median "${kall[@]}"); khm=$(median "${kh[@]}")
  fm=$(median "${floor[@]}"); frm=$(median "${floor_recent[@]}"); c1m=$(median "${c1[@]}")
  local zcm kcm
  zcm=$(median "${zc[@]}"); kcm=$(median "${kc[@]}")
  printf '  zoekt-index:                    %6.2fs  (CPU %.2fs; peak RSS %d MB)\n' "$zm" "$zcm" "$(maxof "${zr[@]}")"
  printf '  extract --mode full:            %6.2fs  = %.2fx zoekt-index  (CPU %.2fs = %.2fx; peak RSS %d MB; history stage %.2fs for %d recent commits)\n' \
    "$km" "$(echo "$km / $zm" | bc -l)" "$kcm" "$(echo "$kcm / $zcm" | bc -l)" "$(maxof "${kr[@]}")" "$khm" "$recent"
  printf '  ... with all history recorded:  %6.2fs  = %.2fx zoekt-index  (the background runner recorded the rest in %.2fs)\n' \
    "$kam" "$(echo "$kam / $zm" | bc -l)" "$(median "${kb[@]}")"
  printf '  history floor, git log --raw --no-renames: %.2fs all %d commits, %.2fs the %d recent: history stage = %.2fx the floor (median of each run against its own floor; runs %s)\n' \
    "$fm" "$commits" "$frm" "$recent" "$(median "${hratio[@]}")" "$(printf '%.2fx ' "${hratio[@]}" | sed 's/ $//')"
  printf '  one-file changed run:           %6.0f ms (process start included; peak RSS %d MB)\n' "$c1m" "$(maxof "${c1r[@]}")"
  cd "$work"
}

for r in $repos; do
  case $r in
    goroot)
      src=$(go env GOROOT)/src
      mkdir -p "$work/goroot"
      cp -r "$src/." "$work/goroot/"
      (cd "$work/goroot" && git init -q && git add -A && git commit -q -m "GOROOT/src")
      bench_repo goroot "$work/goroot"
      ;;
    *)
      m=$(ls -d "$mirror"/*+"$r" 2>/dev/null | head -1)
      if [ -z "$m" ]; then echo "bench-peers: no $r in $mirror"; continue; fi
      # A mirror may lack a blob: the checkout then has every other file,
      # which both tools index the same way.
      git clone -q "$m" "$work/$r" 2>/dev/null || true
      bench_repo "$r" "$work/$r"
      ;;
  esac
  rm -rf "${work:?}/$r"
done
echo
echo "load average at end: $(cat /proc/loadavg)"
