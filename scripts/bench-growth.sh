#!/usr/bin/env bash
# Memory growth benchmark: replays the last N first-parent commits of a
# real repository through the post-commit path (one `changed` extraction
# per commit, as the hook's runner does), pushing to a bare team remote
# every PUSH_EVERY commits, then reports, in one run:
#   - what everything reachable from the local and from the shared memory
#     ref packs to (repacked with --window=50 --depth=50),
#   - what the tip's tree alone packs to,
#   - what the source repository packs to (all its history), and its tip
#     tree alone,
#   - the bytes a fresh clone's `git konteks fetch` transfers.
# Targets (issue "memory that stays small"): reachable <= 1.5x the tip
# after 300 extractions; fresh fetch <= 1.2x the tip.
#   usage: scripts/bench-growth.sh [REPO...]   (BINARY=..., N=300, PUSH_EVERY=10, KEEP=konteks.history.keep)
set -euo pipefail
bin=${BINARY:-$(pwd)/bin/git-konteks}
n=${N:-300}
every=${PUSH_EVERY:-10}
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  if [ -z "${KONTEKS_REPOS:-}" ]; then
    echo "bench-growth: name REPOs, or set KONTEKS_REPOS to the directory scripts/fetch-repos.sh fills" >&2; exit 2
  fi
  repos=("$KONTEKS_REPOS/gin-gonic+gin" "$KONTEKS_REPOS/prometheus+prometheus")
fi
. "$(dirname "$0")/hermetic-git.sh" bench
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

# packed REPO REV...: bytes of a pack of the objects reachable from REVs.
packed() {
  local dir=$1; shift
  git -C "$dir" rev-list --objects --missing=allow-any "$@" | git -C "$dir" pack-objects -q --missing=allow-any --window=50 --depth=50 --stdout | wc -c
}
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2fx", a / b }'; }

for src in "${repos[@]}"; do
  if [ ! -d "$src" ]; then echo "bench-growth: no repository at $src, skipped"; continue; fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/konteks-bench-growth.XXXXXX")
  (
    trap 'rm -rf "$work"' EXIT
    git clone -q --bare "$src" "$work/repo"
    cd "$work/repo"
    branch=$(git symbolic-ref --short HEAD)
    mapfile -t commits < <(git rev-list --first-parent --reverse -n "$n" HEAD)
    tip=$(git rev-parse HEAD)
    git init -q --bare "$work/team.git"
    git remote add team "$work/team.git"
    # The source is pushed when the mirror is whole (a fresh clone then has
    # it); memory never needs it.
    git push -q team "$tip:refs/heads/$branch" 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then git config konteks.history.keep "$KEEP"; fi
    keep=$(git config konteks.history.keep || echo "default")
    "$bin" init --no-hooks --quiet >/dev/null 2>&1 || "$bin" init --no-hooks >/dev/null
    # Start at the commit before the replay, then one extraction per commit.
    git update-ref "refs/heads/$branch" "${commits[0]}^" 2>/dev/null || git update-ref "refs/heads/$branch" "${commits[0]}"
    t0=$(date +%s.%N)
    "$bin" extract --quiet
    first=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    t0=$(date +%s.%N)
    i=0
    for c in "${commits[@]}"; do
      git update-ref "refs/heads/$branch" "$c"
      "$bin" extract --quiet
      i=$((i + 1))
      if [ $((i % every)) -eq 0 ]; then "$bin" push team >/dev/null; fi
    done
    "$bin" push team >/dev/null
    per=$(awk -v a="$t0" -v b="$(date +%s.%N)" -v n="${#commits[@]}" 'BEGIN { printf "%.0f", (b - a) * 1000 / n }')
    local_b=$(packed . refs/konteks)
    shared_b=$(packed "$work/team.git" refs/konteks-shared/v2/main)
    all_b=$(packed . refs/konteks $(git for-each-ref --format='%(refname)' refs/konteks-remotes/))
    tip_b=$(packed . "$(git rev-parse 'refs/konteks^{tree}')")
    src_b=$(packed . HEAD)
    srctree_b=$(packed . "$(git rev-parse 'HEAD^{tree}')")
    chain=$(git rev-list --count refs/konteks)
    # A fresh clone: keep fetched packs as packs, measure what arrives.
    git clone -q --bare --no-local "$work/team.git" "$work/fresh"
    git -C "$work/fresh" config transfer.unpackLimit 1
    before=$(du -sb "$work/fresh/objects" | cut -f1)
    (cd "$work/fresh" && "$bin" fetch origin >/dev/null)
    after=$(du -sb "$work/fresh/objects" | cut -f1)
    fetched=$((after - before))
    echo "== $(basename "$(dirname "$src")") (${#commits[@]} extractions, push every $every, keep $keep; first extraction ${first}s, then ${per} ms each)"
    printf '  %-44s %12s  %s\n' "what" "packed" "ratio"
    printf '  %-44s %12s  %s\n' "memory tip tree alone" "$(mib "$tip_b")" "1.00x tip"
    printf '  %-44s %12s  %s (target <= 1.50x)\n' "reachable from refs/konteks ($chain commits)" "$(mib "$local_b")" "$(ratio "$local_b" "$tip_b") tip"
    printf '  %-44s %12s  %s (target <= 1.50x)\n' "reachable from the shared ref (remote)" "$(mib "$shared_b")" "$(ratio "$shared_b" "$tip_b") tip"
    printf '  %-44s %12s  %s\n' "reachable from every memory ref" "$(mib "$all_b")" "$(ratio "$all_b" "$tip_b") tip"
    printf '  %-44s %12s  %s (target <= 1.20x)\n' "fresh clone's git konteks fetch" "$(mib "$fetched")" "$(ratio "$fetched" "$tip_b") tip"
    printf '  %-44s %12s  %s\n' "source repository, all history" "$(mib "$src_b")" "memory tip $(ratio "$tip_b" "$src_b")"
    printf '  %-44s %12s  %s\n' "source tree alone" "$(mib "$srctree_b")" "memory tip $(ratio "$tip_b" "$srctree_b")"
  )
done
