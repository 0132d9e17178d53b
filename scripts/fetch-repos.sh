#!/usr/bin/env bash
# Clones the repositories of the recall evaluation (scripts/eval/repos.tsv)
# into $KONTEKS_REPOS, one bare git directory per repository, named
# owner+name, and checks that each holds its pinned commit. Repositories
# already there are kept (only a missing pinned commit is fetched), so the
# script can be run again at no cost.
#
#   usage: KONTEKS_REPOS=DIR scripts/fetch-repos.sh [--from DIR] [LIST]
#
# --from DIR clones from local copies instead of GitHub: DIR/owner+name,
# DIR/owner+name/repo or DIR/owner+name/repo/.git, a bare or non-bare git
# directory (hard-linked where the file system allows). LIST defaults to
# scripts/eval/repos.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
from=
if [ "${1:-}" = "--from" ]; then
  from=${2:?--from needs a directory}
  shift 2
fi
list=${1:-scripts/eval/repos.tsv}
if [ -z "${KONTEKS_REPOS:-}" ]; then
  echo "fetch-repos: set KONTEKS_REPOS to the directory that holds (or will hold) the evaluation repositories" >&2
  exit 2
fi
mkdir -p "$KONTEKS_REPOS"
export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

# local prints the git directory of a local copy of $1 (owner+name) under
# $from, or nothing.
local_copy() {
  [ -n "$from" ] || return 0
  for d in "$from/$1" "$from/$1/repo/.git" "$from/$1/repo"; do
    if [ -d "$d" ] && git --git-dir="$d" rev-parse -q --git-dir >/dev/null 2>&1; then
      echo "$d"
      return
    fi
  done
}

fail=0
while IFS=$'\t' read -r repo commit _ _; do
  case "$repo" in '' | '#'*) continue ;; esac
  name=${repo/\//+}
  dst=$KONTEKS_REPOS/$name
  if [ ! -d "$dst" ]; then
    src=$(local_copy "$name")
    if [ -n "$src" ]; then
      echo "clone $repo from $src" >&2
      git clone -q --bare --local "$src" "$dst.part"
    else
      echo "clone $repo" >&2
      git clone -q --bare "https://github.com/$repo.git" "$dst.part"
    fi
    mv "$dst.part" "$dst"
  fi
  if ! git --git-dir="$dst" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "fetch $repo $commit" >&2
    git --git-dir="$dst" fetch -q origin "$commit" || true
  fi
  if ! git --git-dir="$dst" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "fetch-repos: $repo lacks its pinned commit $commit" >&2
    fail=1
    continue
  fi
  # The pin, as a ref: the evaluation draws its queries below it.
  git --git-dir="$dst" update-ref refs/eval/pin "$commit"
done <"$list"
exit $fail
