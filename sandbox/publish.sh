#!/usr/bin/env bash
# `npm run publish:sandbox`, the last step of publish.yml: builds the sandbox package
# (sandbox/build.sh, same version as the nodes package) and publishes it with provenance
# (its publishConfig asks for it; npm refuses provenance outside a CI it supports, so this cannot
# publish from a machine).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GITHUB_ACTIONS:-}" ]; then
  echo "publish:sandbox: runs only in GitHub Actions (publish.yml), where npm can sign the provenance" >&2
  exit 1
fi
bash sandbox/build.sh .sandbox-package
npm publish ./.sandbox-package --provenance --access public
