#!/usr/bin/env bash
# git konteks side by side with a search-engine indexer, in CPU time, on
# the same checkouts: zoekt-index (universal-ctags on) against
# `git konteks extract --mode full` until the first `recall` answers from
# a complete index — the background runner it starts included (every
# process of the tree is accounted, detached ones too: scripts/cpurun.py).
# Also: the peak RSS of extract, of the runner and of a cold recall (the
# local cache deleted); a teammate's first answer (memory signed by a
# trusted signer, pushed to a bare remote; a fresh clone runs `git konteks
# fetch` and asks: both commands' CPU); a one-file `changed` run; `git log --raw` as the floor of the history
# stage. BENCH_RUNS runs each (default 3), medians and ratios, alternating
# the tools. Load averages are printed at the start and the end.
#
#   usage: KONTEKS_REPOS=DIR scripts/bench-peers.sh [BINARY]
#   KONTEKS_REPOS holds the repositories of scripts/bench-repos.tsv
#   (KONTEKS_REPOS=DIR scripts/fetch-repos.sh scripts/bench-repos.tsv
#   clones them), each measured at its pinned commit; zoekt-index is built
#   from zoekt's, outside this repository, and kept in $BENCH_CACHE.
#   BENCH_REPOS="prometheus rails moby goroot" selects repositories; goroot
#   is $(go env GOROOT)/src committed into a repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$(pwd)/bin/git-konteks}
runs=${BENCH_RUNS:-3}
repos=${BENCH_REPOS:-prometheus rails goroot}
src=${KONTEKS_REPOS:-}
if [ -z "$src" ]; then
  echo "bench-peers: set KONTEKS_REPOS to the directory scripts/fetch-repos.sh fills (with scripts/bench-repos.tsv)" >&2; exit 2
fi
query=${BENCH_QUERY:-where is the configuration file loaded and validated}
cache=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/konteks-bench}
work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/hermetic-git.sh" bench

echo "load average at start: $(cat /proc/loadavg)"

# --- helpers -------------------------------------------------------------
# checkout REPO DIR: a work tree of REPO at its pinned commit (refs/eval/pin,
# set by scripts/fetch-repos.sh; HEAD without one). A clone may lack a blob:
# the checkout then has every other file, which both tools index the same
# way.
checkout() {
  local pin
  pin=$(git --git-dir="$1" rev-parse -q --verify refs/eval/pin 2>/dev/null || git --git-dir="$1" rev-parse HEAD)
  git clone -q --no-checkout "$1" "$2"
  git -C "$2" checkout -q --detach "$pin" 2>/dev/null || true
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
# acct CMD...: runs CMD and every process it starts (scripts/cpurun.py);
# sets cpu (seconds, all processes), wall, rss_main and rss_rest (peak
# RSS in MB of CMD itself and of the largest process it started).
acct() {
  # Dirty pages of what ran before are written out first: their
  # writeback would otherwise land in whichever run comes next.
  sync
  python3 "$here/cpurun.py" "$work/acct" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; return 1; }
  read -r _ cpu wall _ < <(tail -1 "$work/acct")
  rss_main=$(awk '$4 == "main" {print $3}' "$work/acct")
  rss_rest=$(awk '$4 == "descendant" && $3 > m {m = $3} END {print m + 0}' "$work/acct")
}
# teammate DIR: publishes DIR's memory, signed, to a bare remote and has a
# fresh clone of it fetch the memory and ask; sets mate_fetch, mate_recall
# (CPU) and mate_rss (the larger peak). The signing clone is a separate
# one, so DIR's memory and settings stay as they are.
teammate() {
  if [ ! -f "$work/key" ]; then
    ssh-keygen -q -t ed25519 -N "" -C bench@example.com -f "$work/key"
    echo "bench@example.com namespaces=\"git\" $(cat "$work/key.pub")" >"$work/allowed"
  fi
  rm -rf "$work/origin.git" "$work/pub" "$work/mate"
  git clone -q --bare "$1" "$work/origin.git"
  git clone -q --no-checkout "$1" "$work/pub"
  git -C "$work/pub" fetch -q "$1" refs/konteks:refs/konteks
  git -C "$work/pub" remote set-url origin "$work/origin.git"
  git -C "$work/pub" config konteks.sign true
  git -C "$work/pub" config konteks.signingkey "$work/key"
  # A signed memory commit on top (push writes one only when it squashes).
  (cd "$work/pub" && "$bin" remember "The benchmark's memory is published by a signing clone." >/dev/null && "$bin" push origin >/dev/null)
  git clone -q "$work/origin.git" "$work/mate" 2>/dev/null || true
  git -C "$work/mate" config konteks.trust "$work/allowed"
  (cd "$work/mate" && acct "$bin" fetch && echo "$cpu $rss_main" >"$work/mate.fetch" && acct "$bin" recall "$query" && echo "$cpu $rss_main" >"$work/mate.recall")
  read -r mate_fetch rf <"$work/mate.fetch"
  read -r mate_recall rr <"$work/mate.recall"
  mate_rss=$(maxof "$rf" "$rr")
  rm -rf "$work/origin.git" "$work/pub" "$work/mate"
}
manifest() { "$bin" manifest --json | python3 -c "import json,sys; m=json.load(sys.stdin); $1"; }

# --- peers ---------------------------------------------------------------
if [ -n "${CTAGS_COMMAND:-}" ]; then
  ctags_bin=$CTAGS_COMMAND
elif command -v universal-ctags >/dev/null; then
  ctags_bin=$(command -v universal-ctags)
elif ctags --version 2>/dev/null | grep -q Universal; then
  ctags_bin=$(command -v ctags)
else
  echo "bench-peers: universal-ctags is missing (apt-get install universal-ctags, or set CTAGS_COMMAND)"; exit 1
fi
export CTAGS_COMMAND=$ctags_bin
zoekt=$cache/zoekt-index
if [ ! -x "$zoekt" ]; then
  if [ ! -d "$src/sourcegraph+zoekt" ]; then
    echo "bench-peers: no zoekt at $src/sourcegraph+zoekt (scripts/fetch-repos.sh scripts/bench-repos.tsv)"; exit 1
  fi
  mkdir -p "$cache"
  checkout "$src/sourcegraph+zoekt" "$work/zoekt-src"
  (cd "$work/zoekt-src" && go build -o "$zoekt" ./cmd/zoekt-index)
  rm -rf "$work/zoekt-src"
fi
echo "zoekt-index: $zoekt, ctags: $($ctags_bin --version | head -1)"

bench_repo() {
  local name=$1 dir=$2
  cd "$dir"
  local files commits
  files=$(git ls-tree -r HEAD | wc -l)
  commits=$(git rev-list --count HEAD)
  echo
  echo "== $name: $files files, $commits commits, $(du -sh --exclude=.git . | cut -f1) checkout"
  local zc=() zr=() ec=() er=() rr=() fc=() fr=() tc=() cc=() cr=() kh=() hratio=() recent=0
  local mc=() mf=() mq=() mr=()
  for i in $(seq 1 "$runs"); do
    rm -rf "$work/idx"; mkdir -p "$work/idx"
    acct "$zoekt" -index "$work/idx" -require_ctags "$dir"
    zc+=("$cpu"); zr+=("$rss_main")

    git update-ref -d refs/konteks 2>/dev/null || true
    git update-ref -d refs/konteks-wip 2>/dev/null || true
    rm -rf .git/konteks
    # extract --mode full, and the runner it starts (older history, warm
    # caches): cpurun waits for every process of the tree.
    acct "$bin" extract --mode full --quiet
    ec+=("$cpu"); er+=("$rss_main"); rr+=("$rss_rest")
    kh+=("$(manifest 'print(m["timings_ms"].get("history", 0)/1000)')")
    recent=$(manifest 'print((m.get("history") or {}).get("commits", 0))')
    # The first recall.
    acct "$bin" recall "$query"
    fc+=("$cpu"); fr+=("$rss_main")
    tc+=("$(echo "${ec[-1]} + $cpu" | bc -l)")
    # A cold recall: memory is there, the local cache is not.
    rm -rf .git/konteks
    acct "$bin" recall "$query"
    cc+=("$cpu"); cr+=("$rss_main")
    # A teammate's first answer, from memory this run extracted (signing
    # needs ssh-keygen).
    if command -v ssh-keygen >/dev/null; then
      teammate "$dir"
      mf+=("$mate_fetch"); mq+=("$mate_recall"); mr+=("$mate_rss")
      mc+=("$(echo "$mate_fetch + $mate_recall" | bc -l)")
    fi
    # The floor of this run's history stage, measured at once.
    local t0 t1
    sync
    t0=$(date +%s.%N)
    git log --raw --no-renames --no-abbrev -z --diff-merges=off --format='%H%x00%P%x00%an%x00%ae%x00%at%x00%B' --max-count="$recent" HEAD >/dev/null
    t1=$(date +%s.%N)
    hratio+=("$(echo "${kh[-1]} / ($t1 - $t0)" | bc -l)")
  done
  # One-file changed runs, process start and index update included.
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
    acct "$bin" extract --quiet
    c1+=("$(echo "$cpu*1000" | bc -l)"); c1r+=("$rss_main")
  done
  unset GIT_INDEX_FILE
  local zm tm
  zm=$(median "${zc[@]}"); tm=$(median "${tc[@]}")
  printf '  zoekt-index (ctags):                     CPU %6.2fs  (peak RSS %d MB)\n' "$zm" "$(maxof "${zr[@]}")"
  printf '  extract --mode full + runner:            CPU %6.2fs  (peak RSS: extract %d MB, runner %d MB)\n' \
    "$(median "${ec[@]}")" "$(maxof "${er[@]}")" "$(maxof "${rr[@]}")"
  printf '  first recall:                            CPU %6.2fs  (peak RSS %d MB)\n' "$(median "${fc[@]}")" "$(maxof "${fr[@]}")"
  printf '  until the first recall answers:          CPU %6.2fs  = %.2fx zoekt-index  (runs %s)\n' \
    "$tm" "$(echo "$tm / $zm" | bc -l)" "$(printf '%.1f ' "${tc[@]}" | sed 's/ $//')"
  printf '  cold recall (local cache deleted):       CPU %6.2fs  (peak RSS %d MB)\n' "$(median "${cc[@]}")" "$(maxof "${cr[@]}")"
  if [ ${#mc[@]} -gt 0 ]; then
    printf '  teammate: fetch of signed memory + first recall: CPU %6.2fs  (fetch %.2fs, recall %.2fs; peak RSS %d MB)\n' \
      "$(median "${mc[@]}")" "$(median "${mf[@]}")" "$(median "${mq[@]}")" "$(maxof "${mr[@]}")"
  else
    echo "  teammate: not measured (no ssh-keygen to sign memory with)"
  fi
  printf '  history stage: %.2fs for %d recent commits = %.2fx git log --raw (median of each run against its own floor)\n' \
    "$(median "${kh[@]}")" "$recent" "$(median "${hratio[@]}")"
  printf '  one-file changed run:                    CPU %6.0f ms (process start and index update included; peak RSS %d MB)\n' \
    "$(median "${c1[@]}")" "$(maxof "${c1r[@]}")"
  cd "$work"
}

for r in $repos; do
  case $r in
    goroot)
      mkdir -p "$work/goroot"
      cp -r "$(go env GOROOT)/src/." "$work/goroot/"
      (cd "$work/goroot" && git init -q && git add -A && git commit -q -m "GOROOT/src")
      bench_repo goroot "$work/goroot"
      ;;
    *)
      m=$(ls -d "$src"/*+"$r" 2>/dev/null | head -1)
      if [ -z "$m" ]; then
        echo "bench-peers: no $r in $src (scripts/fetch-repos.sh scripts/bench-repos.tsv)"; exit 1
      fi
      checkout "$m" "$work/$r"
      bench_repo "$r" "$work/$r"
      ;;
  esac
  rm -rf "${work:?}/$r"
done
echo
echo "load average at end: $(cat /proc/loadavg)"
