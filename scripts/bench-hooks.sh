#!/usr/bin/env bash
# The cost of the installed hooks on plain git: `git fetch` of N updated
# refs (default 10,000) into a clone with git konteks's hooks installed,
# against the same fetch without hooks. git before 2.50 updates each
# fetched ref in its own transaction, so the reference-transaction hook
# runs twice per ref; the target is a ratio within 1.05.
#   usage: scripts/bench-hooks.sh [BINARY] [N]
set -euo pipefail
bin=${1:-$(pwd)/bin/git-konteks}
n=${2:-10000}
runs=${BENCH_RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-hooks.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/hermetic-git.sh" bench
git init -q -b main "$work/origin"
cd "$work/origin"
git commit -q --allow-empty -m one
a=$(git rev-parse HEAD)
git commit -q --allow-empty -m two
b=$(git rev-parse HEAD)
seq -f "create refs/heads/b%g $a" 1 "$n" | git update-ref --stdin
git clone -q --bare "$work/origin" "$work/base"
# Move every branch, so each fetch below updates n refs.
seq -f "update refs/heads/b%g $b $a" 1 "$n" | git update-ref --stdin
cp -r "$work/base" "$work/hooked"
(cd "$work/hooked" && "$bin" hooks install >/dev/null)
echo "git: $(git --version | cut -d' ' -f3); refs: $n; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
best() { sort -n | head -1; }
fetch() { # dir → seconds of one fetch of the n updated refs into a fresh copy
  rm -rf "$work/run" && cp -r "$work/$1" "$work/run"
  local t0 t1
  t0=$(date +%s.%N)
  git -C "$work/run" fetch -q origin '+refs/heads/*:refs/heads/*'
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
# Runs alternate, so a change in the machine's load falls on both sides.
: > "$work/plain"; : > "$work/hooked.t"
for i in $(seq "$runs"); do
  fetch base >> "$work/plain"
  fetch hooked >> "$work/hooked.t"
done
plain=$(best < "$work/plain")
hooked=$(best < "$work/hooked.t")
echo "hooks installed: $(ls "$work/hooked/hooks" | grep -v '\.sample$' | tr '\n' ' ')"
printf 'fetch without hooks: %.2fs\nfetch with hooks:    %.2fs\nratio: %.3f (target <= 1.05)\n' "$plain" "$hooked" "$(echo "$hooked / $plain" | bc -l)"
