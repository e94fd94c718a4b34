#!/usr/bin/env bash
# Runs jest with the given arguments, then prints the summary reporter's one closing line,
# `jest: N passed, N failed, N skipped`, after jest's own last words (CI reads it), and exits
# with jest's status. Used by every test command.
set -uo pipefail
cd "$(dirname "$0")/.."
export JEST_SUMMARY_FILE
JEST_SUMMARY_FILE="$(mktemp)"
status=0
# jest's own bin, not npx: half a second less per run.
node node_modules/jest/bin/jest.js --ci "$@" || status=$?
echo
cat "$JEST_SUMMARY_FILE" 2>/dev/null || echo "jest: no summary (jest did not finish its run)"
rm -f "$JEST_SUMMARY_FILE"
exit "$status"
