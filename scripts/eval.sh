#!/usr/bin/env bash
# Recall evaluation on real git history (see scripts/eval/main.go), two
# query sets: commits (each commit's message is the query, the files it
# changed are the answer) and issues (real GitHub issues, title and the
# reporter's opening text, from scripts/eval/issues/; the answer is the
# non-test files the fixing commit changed); both asked of memory extracted
# at the commit's parent. Prints hit@1/5/10, files@10 and MRR for BM25 over
# whole files and for lexical, vector and hybrid ranking, per repository,
# overall, and for held-out and tuned repositories apart.
#
#   usage: scripts/eval.sh [REPO...]
#
# Repositories default to this one plus every mirror found under
# $EVAL_MIRRORS (default /work/.mirror/*/repo: bare clones of public
# projects). Each is cloned into a temporary directory; nothing of theirs is
# written back or committed. EVAL_N sets the commit queries per repository
# (150); EVAL_SET the sets (commits,issues); EVAL_CACHE a directory that
# keeps the clones and their memory between runs (the extraction is most
# of the cost; ranking experiments reuse it).
set -euo pipefail
cd "$(dirname "$0")/.."
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  repos=("$(pwd)")
  for m in "${EVAL_MIRRORS:-/work/.mirror}"/*/repo; do
    [ -d "$m" ] && repos+=("$m")
  done
fi
args=(-n "${EVAL_N:-150}" -set "${EVAL_SET:-commits,issues}")
[ -n "${EVAL_CACHE:-}" ] && args+=(-cache "$EVAL_CACHE")
exec go run ./scripts/eval "${args[@]}" "${repos[@]}"
