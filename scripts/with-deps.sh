#!/usr/bin/env bash
# Runs a command after scripts/deps.sh made sure the devDependencies are installed (a fresh clone
# needs no separate install step): `bash scripts/with-deps.sh tsc -p tsconfig.json`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
exec "$@"
