#!/usr/bin/env bash
# Three lint legs. `n8n-node lint` lints its whole working folder with the unchanged template config,
# which would also judge dev code (sandbox, tests) by the rules for shipped nodes; so it runs on a
# staged copy of exactly what ships, and the dev code gets its own config. Then prettier checks formatting.
# `npm run lint:fix` (--fix): the same legs, fixing what ESLint and prettier can fix (the shipped files
# fixed in the staged copy are copied back), then reporting what is left.
set -euo pipefail
fix=()
[ "${1:-}" = --fix ] && fix=(--fix)
cd "$(dirname "$0")/.."
source scripts/deps.sh
stage=.lint-stage
rm -rf "$stage"; mkdir -p "$stage"
cp -r nodes credentials index.ts package.json tsconfig.json eslint.config.mjs "$stage"/
ln -s ../node_modules "$stage/node_modules"
status=0
(cd "$stage" && npx n8n-node lint ${fix[@]+"${fix[@]}"}) || status=$?
if [ -n "${fix[*]:-}" ]; then
  while IFS= read -r file; do cmp -s "$stage/$file" "$file" || { cp "$stage/$file" "$file" && echo "lint:fix: fixed $file" >&2; }; done < <(cd "$stage" && find nodes credentials index.ts -type f)
fi
rm -rf "$stage"
[ "$status" = 0 ] || exit "$status"
npx eslint -c eslint.dev.config.mjs ${fix[@]+"${fix[@]}"} --no-error-on-unmatched-pattern sandbox test harness scripts bench gulpfile.js jest.config.js test/summary-reporter.js
# Types of every TypeScript folder (tsconfig.dev.json includes nodes, credentials, sandbox, harness, test, bench, scripts),
# so bench/ or scripts/ cannot break unseen; then the import direction (test/repo/importDirection.test.ts).
npx tsc -p tsconfig.dev.json --noEmit
npx jest --selectProjects repo --runTestsByPath test/repo/importDirection.test.ts --silent
# Formatting: the code's own style (tabs, single quotes, 160 columns) in .prettierrc.json.
if [ -n "${fix[*]:-}" ]; then npx prettier --write --log-level warn .; fi
npx prettier --check . >/dev/null || { npx prettier --list-different .; echo 'prettier: run npm run format' >&2; exit 1; }
