#!/usr/bin/env bash
# npm run bench: Node 24 and the cached n8n (scripts/runtime.sh), the package built and packed,
# then bench/main.ts under ts-node. Sizes: BENCH_* variables (bench/README.md).
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
node -r ts-node/register/transpile-only bench/main.ts
# The figures in bench/README.md come from the latest.json just written.
exec node -r ts-node/register/transpile-only bench/readme.ts
