#!/usr/bin/env bash
# `npm run release`. Two halves of one release:
#  - On your machine, on main: release-it (pinned devDependency) with .release-it.json checks that
#    CHANGELOG.md already has a dated section for the new version, lints, builds, runs the unit layer,
#    bumps package.json, commits, tags (`0.2.0`, no "v") and pushes. It never writes CHANGELOG.md
#    (n8n-node release would run `auto-changelog -p` and replace the hand-written one) and never
#    publishes.
#  - In GitHub Actions (publish.yml, on that tag): `n8n-node release`, which lints, builds and
#    `npm publish`es with provenance.
# Extra arguments go to release-it (`npm run release -- 0.2.0`, `npm run release -- --dry-run`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
if [ -n "${GITHUB_ACTIONS:-}" ]; then
  exec n8n-node release
fi
# release-it's --dry-run still writes the new version into package.json and package-lock.json (it
# runs `npm version`); the release requires a clean tree, so putting both back loses nothing.
status=0
release-it "$@" || status=$?
for arg in "$@"; do
  if [ "$arg" = --dry-run ] || [ "$arg" = -d ]; then git checkout -- package.json package-lock.json; fi
done
exit "$status"
