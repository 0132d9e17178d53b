#!/usr/bin/env bash
set -euo pipefail

TARGET=${1:-staging}

# log prints a timestamped message.
log() {
  echo "[$(date +%T)] $*"
}

# build compiles the project.
function build {
  log "building"
  make all
}

deploy() {
  build
  log "deploying to $TARGET"
}

deploy "$@"
