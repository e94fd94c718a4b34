#!/usr/bin/env bash
# The first step of scripts/release.sh: the release goes on only when CHANGELOG.md has a section for
# the version being released, with its date: `## [0.2.0] - 2026-12-01`. Nothing writes
# the CHANGELOG for you: write that section (move the Unreleased lines under it), commit, then release.
set -euo pipefail
version="$1"
escaped="${version//./\\.}"
if ! grep -Eq "^## \[${escaped}\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md; then
  echo "release: CHANGELOG.md has no section '## [${version}] - YYYY-MM-DD'." >&2
  echo "release: write it (move the Unreleased lines under it), commit, then run npm run release again." >&2
  exit 1
fi
echo "release: CHANGELOG.md has its section for ${version}" >&2
