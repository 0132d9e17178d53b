#!/bin/sh
set -e

build() {
  make all
}

function deploy {
  scp out host:
}

build
deploy
