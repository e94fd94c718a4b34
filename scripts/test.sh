#!/usr/bin/env bash
# The README's test command (`npm test`): build, lint, verify, then every jest project
# (unit, sandbox, nodes, e2e in a real n8n, queue: n8n in queue mode). Installs the Node 24 / n8n
# runtime when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
# PostgreSQL and Redis for the queue-mode suite, from Debian's packages when missing.
bash scripts/services.sh install
npm run build
npm run lint
node scripts/verify.mjs
export JEST_SUMMARY_FILE
JEST_SUMMARY_FILE="$(mktemp)"
status=0
npx jest --ci "$@" || status=$?
echo
cat "$JEST_SUMMARY_FILE" 2>/dev/null || echo "jest: no summary (jest did not finish its run)"
rm -f "$JEST_SUMMARY_FILE"
exit "$status"
