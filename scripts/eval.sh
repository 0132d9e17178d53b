#!/usr/bin/env bash
# Recall evaluation on real git history (see scripts/eval/main.go): each
# commit's message is the query, the files it changed are the answer, asked
# of memory extracted at its parent. Prints recall@1/5/10 and MRR for
# lexical-only, vector-only and hybrid ranking, per repository and overall.
#
#   usage: scripts/eval.sh [REPO...]
#
# Repositories default to this one plus every mirror found under
# $EVAL_MIRRORS (default /work/.mirror/*/repo: bare clones of public
# projects). Each is cloned into a temporary directory; nothing of theirs is
# written back or committed. EVAL_N sets the queries per repository (150).
set -euo pipefail
cd "$(dirname "$0")/.."
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  repos=("$(pwd)")
  for m in "${EVAL_MIRRORS:-/work/.mirror}"/*/repo; do
    [ -d "$m" ] && repos+=("$m")
  done
fi
exec go run ./scripts/eval -n "${EVAL_N:-150}" "${repos[@]}"
