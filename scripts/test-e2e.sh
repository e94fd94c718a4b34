#!/usr/bin/env bash
# `npm run test:e2e`: the package inside a real n8n 2.40.7 (jest project e2e). Installs the Node 24 /
# n8n runtime into its cache outside the clone when missing (minutes, once). No PostgreSQL/Redis.
# The harness builds and packs the package itself. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
# chromium for the browser tests, from Debian's packages when missing and allowed (scripts/services.sh);
# without it those tests are skipped.
status=0
bash scripts/services.sh install browser || status=$?
if [ "$status" = 3 ]; then echo "[test:e2e] the browser tests (console.test.ts, walk.test.ts, nodesPanel.test.ts) will be skipped: no chromium" >&2
elif [ "$status" != 0 ]; then exit "$status"; fi
# The user's arguments first: --selectProjects takes every word after it as a project name, so a test
# path after it would silently select nothing and the whole project would run.
exec bash scripts/jest.sh "$@" --selectProjects e2e
