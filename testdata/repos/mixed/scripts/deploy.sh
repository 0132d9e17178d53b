#!/bin/sh
# Deploy the app.
set -e
go build -o app ./cmd/app
scp app server:/srv/app
