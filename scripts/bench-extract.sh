#!/usr/bin/env bash
# Extraction benchmark on a large real tree: commits SRC (default: the Go
# toolchain's own $(go env GOROOT)/src) into a temporary repository, then
# measures a full extraction (files/s, MB/s, peak RSS), a one-file `changed`
# run (wall time including process start), and the packed size of the
# memory ref next to the size of the source text.
# Also: sectioning alone through tree-sitter and through go/parser with two
# workers (BenchmarkSplitWorkers on net/http), the full run's stage timings
# and CPU time, and the load average next to each number (other work on the
# machine slows every figure here).
#   usage: scripts/bench-extract.sh [SRC_DIR] [BINARY]
set -euo pipefail
src=${1:-$(go env GOROOT)/src}
bin=${2:-$(pwd)/bin/git-konteks}
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/hermetic-git.sh" bench

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }

# Sectioning alone: parse + query + sections, two workers, no git, no
# records (MB/s of the pair; MB/cpu-s is one core's share).
(cd "$root" && go test -run '^$' -bench 'SplitWorkers' -benchtime 5x ./extract/section/code/ 2>/dev/null) |
  awk -v load="$(load)" '/^BenchmarkSplitWorkers/ { sub(/^BenchmarkSplitWorkers\//, "", $1); sub(/-[0-9]+$/, "", $1);
    printf "sectioning only, 2 workers, %s: %s MB/s (%s MB/cpu-s)  [load %s]\n", $1, $5, $7, load }'

echo "source: $src"
git init -q "$work/repo"
cp -r "$src/." "$work/repo/"
cd "$work/repo"
# No automatic gc: one detached after the commit would repack the objects
# while the extraction reads them.
git config gc.auto 0
git add -A >/dev/null 2>&1
git commit -qm "import source" >/dev/null
git gc -q >/dev/null 2>&1 || true
files=$(git ls-tree -r HEAD | wc -l)
bytes=$(git ls-tree -r -l HEAD | awk '$4 ~ /^[0-9]+$/ {s+=$4} END {print s+0}')
printf 'tree: %d files, %.1f MB\n' "$files" "$(echo "$bytes/1000000" | bc -l)"

now() { date +%s.%N; }
# Full extraction, with peak RSS and CPU time from /usr/bin/time when present.
load0=$(load)
t0=$(now)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M %U %S' -o "$work/rss" "$bin" extract --mode full --quiet
  read -r rss_kb cpu_u cpu_s < <(tail -1 "$work/rss")
else
  "$bin" extract --mode full --quiet
  rss_kb=0 cpu_u=0 cpu_s=0
fi
t1=$(now)
full=$(echo "$t1 - $t0" | bc -l)
"$bin" manifest --json > "$work/manifest.json"
included=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["totals"]["included"], m["totals"]["bytes"], m["totals"]["sections"], m["run"]["bytes_read"])' "$work/manifest.json")
read -r inc incbytes sections readbytes <<<"$included"
printf 'full extraction: %.2fs  %.0f files/s (of %d scanned)  %.1f MB/s read (%.1f MB)  %d included, %d sections  peak RSS %.0f MB  CPU %.1fs  [load %s]\n' \
  "$full" "$(echo "$files/$full" | bc -l)" "$files" "$(echo "$readbytes/1000000/$full" | bc -l)" "$(echo "$readbytes/1000000" | bc -l)" "$inc" "$sections" "$(echo "$rss_kb/1024" | bc -l)" "$(echo "$cpu_u+$cpu_s" | bc -l)" "$load0"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])).get("timings_ms", {}); print("stage timings (ms): " + "  ".join("%s %.0f" % (k, v) for k, v in sorted(t.items(), key=lambda kv: -kv[1])))' "$work/manifest.json"
# The gate's share: path rules (wall clock, one thread) plus content rules
# and the credential detector (summed over the workers), against the full
# run's CPU time. Target: under 10%.
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])).get("timings_ms", {}); cpu=float(sys.argv[2])*1000; g=t.get("gate",0)+t.get("gate-content-cpu",0); print("gate: path %.0f ms + content/detector %.0f ms CPU = %.1f%% of the full extraction CPU (%.1fs)  [load %s]" % (t.get("gate",0), t.get("gate-content-cpu",0), 100*g/cpu if cpu else 0, cpu/1000, sys.argv[3]))' "$work/manifest.json" "$(echo "$cpu_u+$cpu_s" | bc -l)" "$load0"

# The tip of memory against the tree it describes, each packed alone (the
# objects of one commit, no history): what a fresh clone of each costs.
# Memory holds no vectors of the built-in embedder (the index computes
# them); "with" adds what they weighed in the ref when they were stored.
packed() { git rev-list --objects --no-walk "$@" | git pack-objects -q --stdout | wc -c; }
srcpack=$(packed HEAD)
tippack=$(packed refs/konteks)
vecmb=$(cd "$root" && KONTEKS_BENCH_REPO="$work/repo" go test -run '^$' -bench 'LocalVectorsInRef' -benchtime 1x ./index/ 2>/dev/null |
  awk '/^BenchmarkLocalVectorsInRef/ { for (i = 1; i <= NF; i++) if ($(i+1) == "MB") print $i }')
vecbytes=$(echo "${vecmb:-0}*1000000" | bc -l)
printf 'memory tip packed: %.1f MB = %.2fx the source tree packed (%.1f MB); with the built-in vectors stored it would be %.1f MB = %.2fx\n' \
  "$(echo "$tippack/1000000" | bc -l)" "$(echo "$tippack/$srcpack" | bc -l)" "$(echo "$srcpack/1000000" | bc -l)" \
  "$(echo "($tippack+$vecbytes)/1000000" | bc -l)" "$(echo "($tippack+$vecbytes)/$srcpack" | bc -l)"

# One-file changed runs: edit one file, commit, extract; median of $runs,
# with the bytes each run adds to memory (its new objects, packed).
target=$(git ls-files '*.go' | grep -v -e testdata -e vendor | awk 'NR==200')
times=()
written=()
for i in $(seq 1 "$runs"); do
  echo "// bench edit $i" >> "$target"
  git commit -qam "edit $i"
  before=$(git rev-parse refs/konteks)
  t0=$(now); "$bin" extract --quiet; t1=$(now)
  times+=("$(echo "($t1 - $t0)*1000" | bc -l)")
  # The objects the new memory has and the one before did not: memory's
  # history is bounded, so the new commit replaces the one before instead
  # of descending from it, and `--not $before` would exclude nothing.
  written+=("$(comm -23 <(git rev-list --objects refs/konteks | cut -d' ' -f1 | sort) \
    <(git rev-list --objects "$before" | cut -d' ' -f1 | sort) | git pack-objects -q --stdout | wc -c)")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (runs+1)/2 ))p")
printf 'one-file changed run (incl. process start): median %.1f ms, min %.1f ms, max %.1f ms over %d runs  [load %s]\n' \
  "$median" "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)" "$runs" "$(load)"
wsorted=$(printf '%s\n' "${written[@]}" | sort -n)
printf 'one-file changed run writes: median %.1f KB packed (min %.1f, max %.1f)\n' \
  "$(echo "$(echo "$wsorted" | sed -n "$(( (runs+1)/2 ))p")/1000" | bc -l)" "$(echo "$(echo "$wsorted" | head -1)/1000" | bc -l)" "$(echo "$(echo "$wsorted" | tail -1)/1000" | bc -l)"

# A no-op run (memory already current).
t0=$(now); "$bin" extract --quiet; t1=$(now)
printf 'up-to-date check: %.1f ms\n' "$(echo "($t1 - $t0)*1000" | bc -l)"

# Size of the memory ref, packed alone, against the source text it holds.
refsize=$(git rev-list --objects refs/konteks | git pack-objects -q --stdout | wc -c)
printf 'memory ref packed: %.1f MB for %.1f MB of included source (%.2fx)\n' \
  "$(echo "$refsize/1000000" | bc -l)" "$(echo "$incbytes/1000000" | bc -l)" "$(echo "$refsize/$incbytes" | bc -l)"

# The post-commit hook's own wall time (it records the request and starts
# the runner in the background): median of 10 runs of the hook script.
"$bin" hooks install >/dev/null
hook=$(git rev-parse --git-path hooks)/post-commit
times=()
for i in $(seq 1 10); do
  t0=$(now); "$hook"; t1=$(now)
  times+=("$(echo "($t1 - $t0)*1000" | bc -l)")
done
sleep 2 # let the background runner finish
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
printf 'post-commit hook wall time: median %.1f ms, max %.1f ms\n' "$(echo "$sorted" | sed -n 5p)" "$(echo "$sorted" | tail -1)"
"$bin" hooks uninstall >/dev/null

# A sync with nothing to do against a local bare remote.
git init -q --bare "$work/remote.git"
git remote add origin "$work/remote.git"
"$bin" push origin >/dev/null
times=()
for i in 1 2 3 4 5; do
  t0=$(now); "$bin" sync origin >/dev/null; t1=$(now)
  times+=("$(echo "($t1 - $t0)*1000" | bc -l)")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
printf 'sync with no changes (local remote): median %.1f ms over 5 runs\n' "$(echo "$sorted" | sed -n 3p)"
