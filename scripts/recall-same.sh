#!/usr/bin/env bash
# Checks that two builds of git-konteks answer alike: for a set of queries
# on real repositories, the top 20 section hits of `recall --json` and the
# top 20 files of `recall --files --json` (paths, anchors, scores, why,
# snippets, evidence) must be the same from both binaries, over the same
# memory and index. Work on the query path's speed (caches, data
# structures, concurrency) must pass it; a change of ranking fails it.
#
#   usage: scripts/recall-same.sh OLD_BINARY NEW_BINARY [REPO...]
#
# REPO is a git dir or work tree (default: prometheus and flask in
# $KONTEKS_REPOS, see scripts/fetch-repos.sh); each is cloned (bare, objects shared) into
# $SAME_CACHE (default: a temporary directory) and memory is extracted at
# its HEAD by OLD_BINARY. The queries are the eval's: the issue set of the
# repository (scripts/eval/issues/<owner>+<name>.jsonl, title and text)
# and the messages of its last $SAME_N (60) non-merge commits; for a
# repository with neither (e.g. the Go tree of the benchmarks) the
# benchmark queries of scripts/bench-recall.sh.
# Exit status 1 and the first differences when any answer differs.
set -euo pipefail
old=${1:?usage: recall-same.sh OLD_BINARY NEW_BINARY [REPO...]}
new=${2:?usage: recall-same.sh OLD_BINARY NEW_BINARY [REPO...]}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  if [ -z "${KONTEKS_REPOS:-}" ]; then
    echo "recall-same: name REPOs, or set KONTEKS_REPOS to the directory scripts/fetch-repos.sh fills" >&2; exit 2
  fi
  repos=("$KONTEKS_REPOS/prometheus+prometheus" "$KONTEKS_REPOS/pallets+flask")
fi
cache=${SAME_CACHE:-}
if [ -z "$cache" ]; then
  cache=$(mktemp -d "${TMPDIR:-/tmp}/konteks-same.XXXXXX")
  trap 'rm -rf "$cache"' EXIT
fi
mkdir -p "$cache"
. "$(dirname "$0")/hermetic-git.sh" same

# project prints an answer one hit (or file) a line, everything else in
# the answer after them: the whole answer must be the same, not only its
# order (scores, sections, snippets, evidence, notes).
project() {
  python3 -c '
import json, sys
o = json.load(sys.stdin)
o.get("memory", {}).pop("index", None)  # what opening the index did: current, update, build
hits = o.pop("hits", None) or o.pop("files", None) or []
for h in hits:
    print(json.dumps(h, sort_keys=True))
print(json.dumps(o, sort_keys=True))
'
}

bench_queries() {
  sed -n '/^queries=(/,/^)/p' "$root/scripts/bench-recall.sh" | sed '1d;$d' | sed 's/^ *"//; s/"$//'
}

fails=0
for src in "${repos[@]}"; do
  src=$(cd "$src" && pwd)
  name=$(basename "$(dirname "$src")")
  [ "$(basename "$src")" = repo ] || name=$(basename "$src")
  dir="$cache/$name.git"
  if [ ! -d "$dir" ]; then
    git clone -q --bare --shared "$src" "$dir"
    (cd "$dir" && "$old" extract --mode full --quiet)
  fi
  # The extraction leaves older history to a background runner, which
  # commits new memory when it is done: wait for it.
  sleep 1
  while ! flock -n "$dir/konteks/runner.lock" true 2>/dev/null; do sleep 1; done
  qdir="$cache/$name.queries"
  rm -rf "$qdir" && mkdir -p "$qdir"
  issues="$root/scripts/eval/issues/$name.jsonl"
  n=0
  if [ -f "$issues" ]; then
    while IFS= read -r -d '' q; do
      printf '%s' "$q" >"$qdir/$n"; n=$((n + 1))
    done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    if line.strip():
        o = json.loads(line)
        sys.stdout.write((o["title"] + "\n" + o.get("text", "")).strip() + "\0")
' "$issues")
  fi
  if [ "$(git -C "$dir" rev-list --count HEAD)" -gt 1 ]; then
    while IFS= read -r -d '' q; do
      [ -n "${q//[[:space:]]/}" ] || continue
      printf '%s' "$q" >"$qdir/$n"; n=$((n + 1))
    done < <(git -C "$dir" log --no-merges -z --format=%B -n "${SAME_N:-60}" HEAD)
  fi
  if [ "$n" -lt 10 ]; then
    while IFS= read -r q; do
      printf '%s' "$q" >"$qdir/$n"; n=$((n + 1))
    done < <(bench_queries)
  fi
  (cd "$dir" && "$old" recall --json warm >/dev/null 2>&1 || true) # the index, built once
  differ=0
  for ((i = 0; i < n; i++)); do
    for mode in sections files; do
      args=(recall --json -n 20)
      [ "$mode" = files ] && args+=(--files)
      for try in 1 2; do # again if memory moved in between (a runner)
        m=$(git -C "$dir" rev-parse -q --verify refs/konteks || true)
        a=$(cd "$dir" && "$old" "${args[@]}" - <"$qdir/$i" 2>/dev/null | project)
        b=$(cd "$dir" && "$new" "${args[@]}" - <"$qdir/$i" 2>/dev/null | project)
        [ "$m" = "$(git -C "$dir" rev-parse -q --verify refs/konteks || true)" ] && break
      done
      if [ "$a" != "$b" ]; then
        differ=$((differ + 1))
        if [ "$differ" -le 3 ]; then
          echo "$name: query $i ($mode) differs: $(head -c 80 "$qdir/$i" | tr '\n' ' ')"
          diff <(echo "$a") <(echo "$b") | head -10 || true
        fi
      fi
    done
  done
  echo "$name: $n queries, sections and files, top 20: $([ "$differ" = 0 ] && echo identical || echo "$differ answers differ")"
  [ "$differ" = 0 ] || fails=$((fails + 1))
done
[ "$fails" = 0 ]
