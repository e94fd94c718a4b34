#!/usr/bin/env bash
# `npm run test:queue`: n8n in queue mode (jest project queue): main, workers and webhook processes
# on PostgreSQL and Redis. Installs PostgreSQL, Redis and nginx from Debian's packages when missing,
# with consent (CI=true, CLEARINGHOUSE_INSTALL_SERVICES=1 or a yes at the prompt: scripts/services.sh);
# without them it stops with that message. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
bash scripts/services.sh install queue
# The user's arguments first (--selectProjects would take a path after it as a project name).
exec bash scripts/jest.sh "$@" --selectProjects queue
