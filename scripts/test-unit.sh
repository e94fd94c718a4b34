#!/usr/bin/env bash
# `npm run test:unit`: the repository checks, unit, sandbox and node tests (jest projects repo, unit,
# sandbox, nodes), all
# in-process: no n8n runtime, no PostgreSQL/Redis, no apt. Runs on the Node already on PATH when
# it is 20 or newer (they pass on the machine's Node 20 and on Node 24); only without one does it
# fetch Node 24 alone (scripts/runtime.sh node-only, not n8n). Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 20 ]; then
  echo "[test:unit] Node ${major} is older than 20: using the project's Node 24" >&2
  source scripts/runtime.sh node-only
fi
source scripts/deps.sh
# The user's arguments first (--selectProjects would take a path after it as a project name).
exec bash scripts/jest.sh "$@" --selectProjects repo unit sandbox nodes
