#!/usr/bin/env bash
# Queue-mode stress run (bench/queue-stress.ts): Node 24 and the cached n8n, the package packed once.
# QUEUE_STRESS_EVENTS (default 200), QUEUE_STRESS_DEPLOYMENTS (e.g. hash/whenFinished), TEST_PORT_BAND_OFFSET.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
work="$(pwd)/.e2e/bench-pack"
rm -rf "$work" && mkdir -p "$work"
npx tsc -p tsconfig.json
npx gulp build:assets >/dev/null
npm pack --silent --pack-destination "$work" >/dev/null
export E2E_PACKAGE_TARBALL="$(ls "$work"/*.tgz)"
exec node -r ts-node/register/transpile-only bench/queue-stress.ts
