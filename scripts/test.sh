#!/usr/bin/env bash
# The README's test command (`npm test`): the whole pipeline. Build, lint, verify, then every jest
# project (unit, sandbox, nodes, e2e in a real n8n, queue: n8n in queue mode). Installs the Node 24 /
# n8n runtime and PostgreSQL/Redis when missing. The layers alone: npm run test:unit | test:e2e |
# test:queue.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
# PostgreSQL, Redis and nginx (queue mode) and chromium (the console's browser test), from
# Debian's packages when missing.
bash scripts/services.sh install
npm run build
npm run lint
node scripts/verify.mjs
exec bash scripts/jest.sh "$@"
