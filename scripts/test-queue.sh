#!/usr/bin/env bash
# `npm run test:queue`: n8n in queue mode (jest project queue): main, workers and webhook processes
# on PostgreSQL and Redis. The only test command that installs PostgreSQL and Redis (from Debian's
# packages, when missing). Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
bash scripts/services.sh install queue
exec bash scripts/jest.sh --selectProjects queue "$@"
