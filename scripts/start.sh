#!/usr/bin/env bash
# `npm start`: build the package, then run the sandbox (ports 4010/4011, demo seed) and a local n8n
# (port 5678) with the package, the sandbox credential and the examples. Ctrl-C stops everything.
# The Node 24 / n8n runtime is installed into a cache outside the clone on first use (minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
exec node -r ts-node/register/transpile-only scripts/start-n8n-and-sandbox.ts
