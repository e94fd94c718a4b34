#!/usr/bin/env bash
# `npm run test:compat`: the packed package inside each n8n version the project tests, against the
# sandbox (jest project compat, test/compat/), one jest run per version. Versions: CLEARINGHOUSE_COMPAT_N8N
# (space-separated versions or npm dist-tags, e.g. "latest"); by default the oldest supported (package.json
# engines.n8n), the latest 1.x and the pinned 2.x. Each n8n is installed by scripts/runtime.sh into the cache
# outside the clone when missing (Node 22 for 1.x, 24 for 2.x; an n8n 1.x install compiles for about 10-15
# minutes on 2 cores). Not part of `npm test`. Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh node-only # jest runs on Node 24
source scripts/deps.sh
minimum="$(node -p 'require("./package.json").engines.n8n.replace(/^>=/, "")')"
versions="${CLEARINGHOUSE_COMPAT_N8N:-$minimum 1.123.81 2.40.7}"
export CLEARINGHOUSE_COMPAT=1
failed=()
for version in $versions; do
  echo "[test:compat] n8n $version" >&2
  CLEARINGHOUSE_COMPAT_N8N_VERSION="$version" bash scripts/jest.sh --selectProjects compat "$@" || failed+=("$version")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "[test:compat] failed in n8n ${failed[*]}" >&2
  exit 1
fi
echo "[test:compat] passed in n8n $versions" >&2
