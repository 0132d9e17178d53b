# Sourced by the scripts that make git repositories of their own:
#   . "$(dirname "$0")/hermetic-git.sh" NAME
# gives git a fixed identity (NAME; always give it, or the sourcing
# script's own first argument would stand in) and no configuration of the
# machine's, so the repositories and what is measured on them do not
# depend on who runs the script.
export GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$1@example.invalid"
export GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$1@example.invalid"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
