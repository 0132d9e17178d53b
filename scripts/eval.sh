#!/usr/bin/env bash
# Recall evaluation on real git history (see scripts/eval/main.go and
# docs/evaluation.md). Query sets: commits (each commit's message is the
# query, the files it changed are the answer), issues (real GitHub issues,
# title and the reporter's opening text, from scripts/eval/issues/; the
# answer is the non-test files the fixing commit changed), both asked of
# memory extracted at the commit's parent; and swebench (SWE-bench Lite
# issues asked at their base commits). Prints hit@1/5/10, files@10 and MRR
# for BM25 over whole files and for lexical, vector and hybrid ranking, per
# repository, per language and overall, with bootstrap 95% intervals.
#
#   usage: scripts/eval.sh            the repositories of scripts/eval/repos.tsv
#          scripts/eval.sh REPO...    ad-hoc repositories, at their HEAD
#
# KONTEKS_REPOS (required with the list) is the directory
# scripts/fetch-repos.sh cloned the listed repositories into, at their
# pinned commits. EVAL_SPLIT chooses the list's split: dev (the default:
# tune on it), test (the frozen set: report it, never tune on it) or
# swebench (SWEBENCH_LITE names the dataset file). EVAL_N sets the commit
# queries per repository (20); EVAL_SET the sets (commits,issues; long for long commit messages; swebench
# for that split); EVAL_CACHE a directory that keeps the clones and their
# memory between runs (extraction is most of the cost; later runs cost only
# the queries). Each repository is cloned into a temporary directory or the
# cache; nothing of theirs is written back or committed.
set -euo pipefail
cd "$(dirname "$0")/.."
split=${EVAL_SPLIT:-dev}
set_default=commits,issues,questions
[ "$split" = swebench ] && set_default=swebench
args=(-n "${EVAL_N:-20}" -set "${EVAL_SET:-$set_default}")
[ -n "${EVAL_CACHE:-}" ] && args+=(-cache "$EVAL_CACHE")
if [ $# -gt 0 ]; then
  exec go run ./scripts/eval "${args[@]}" "$@"
fi
if [ -z "${KONTEKS_REPOS:-}" ]; then
  echo "eval: set KONTEKS_REPOS to a directory for the evaluation repositories, then run" >&2
  echo "      KONTEKS_REPOS=DIR scripts/fetch-repos.sh   (clones scripts/eval/repos.tsv at its pinned commits)" >&2
  exit 2
fi
if [ "$split" = swebench ] && [ -z "${SWEBENCH_LITE:-}" ]; then
  echo "eval: EVAL_SPLIT=swebench needs SWEBENCH_LITE, the SWE-bench Lite test split as JSON or JSON Lines (see docs/evaluation.md)" >&2
  exit 2
fi
exec go run ./scripts/eval "${args[@]}" -repos scripts/eval/repos.tsv -split "$split" -dir "$KONTEKS_REPOS"
