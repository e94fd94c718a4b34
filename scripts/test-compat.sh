#!/usr/bin/env bash
# `npm run test:compat`: the packed package inside n8n 1.123.81 (latest 1.x, on Node 22) and the pinned
# 2.40.7 (Node 24), against the sandbox (jest project compat). Installs both runtimes into the cache
# outside the clone when missing (scripts/runtime.sh, scripts/runtime-n8n1.sh; the 1.x one took about
# 14 minutes the first time here). Not part of `npm test`. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
source scripts/runtime-n8n1.sh
export CLEARINGHOUSE_COMPAT=1
exec bash scripts/jest.sh --selectProjects compat "$@"
