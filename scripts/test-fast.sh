#!/usr/bin/env bash
# `npm run test:fast`: the edit loop. The unit, sandbox and node tests (as `npm run test:unit`) less the
# files tagged `@slow` in their opening comment (each says why it is slow); `npm run test:unit` and CI
# still run those. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
ignore=()
while IFS= read -r file; do ignore+=(--testPathIgnorePatterns "$file"); done < <(grep -rlE '^ \* @slow' test/unit test/sandbox test/nodes --include='*.test.ts' | sort)
exec bash scripts/jest.sh --selectProjects unit sandbox nodes "${ignore[@]}" "$@"
