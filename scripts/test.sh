#!/usr/bin/env bash
# The README's test command (`npm test`): the whole pipeline. Build, lint, verify, then every jest
# project (repo: the repository's hygiene; unit, sandbox, nodes, e2e in a real n8n, queue: n8n in queue
# mode). Installs the Node 24 / n8n runtime into a cache outside the clone when missing (scripts/runtime.sh). PostgreSQL, Redis,
# nginx (queue mode) and chromium (the browser tests) are installed system-wide with apt-get only in
# CI (CI=true), with CLEARINGHOUSE_INSTALL_SERVICES=1 or after a yes at the prompt; without them the
# queue layer and the browser tests are skipped, and this says so. The layers alone: npm run
# test:unit | test:e2e | test:queue.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
projects=()
services=0
bash scripts/services.sh install || services=$?
if [ "$services" = 3 ]; then
  echo "[test] skipping the queue layer (jest project queue): it needs PostgreSQL, Redis and nginx (see above)" >&2
  command -v chromium >/dev/null || [ -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ] \
    || echo "[test] the browser tests (test/e2e/console.test.ts, walk.test.ts, nodesPanel.test.ts) will be skipped: no chromium" >&2
  projects=(--selectProjects repo unit sandbox nodes e2e)
elif [ "$services" != 0 ]; then
  exit "$services"
fi
npm run build
npm run lint
node scripts/verify.mjs
exec bash scripts/jest.sh "$@" "${projects[@]}"  # the user's arguments first, as in test-unit.sh
