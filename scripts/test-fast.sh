#!/usr/bin/env bash
# `npm run test:fast`: the edit loop. The repo, unit, sandbox and node tests (as `npm run test:unit`) less the
# files tagged `@slow` in their opening comment (each says why it is slow); `npm run test:unit` and CI
# still run those. Two jest workers (jest's default on 2 cores is one): the files are independent (own
# sandbox on free ports each), and much of a file's time is waiting (its sandbox's timers, a recovery's
# lease read-back), which the other worker fills. n8n's packages are loaded once per worker, not once per
# file (test/support/oncePerWorker). Jest transpiles only (tsconfig.dev.json: isolatedModules); the type
# check is `npx tsc -p tsconfig.dev.json` (in `npm run lint`). On the project's Node 24 (scripts/runtime.sh
# node-only: the Node on PATH when it is 24 or newer, else the cached one, fetched once; without it, the
# Node on PATH), the Node that `npm test` and n8n 2.x run on: jest loads modules in about half the CPU time
# Node 20 takes.
# Extra arguments go to jest; `-i`/`--runInBand` or `--maxWorkers` replace the two workers.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh node-only || echo "[test:fast] no Node 24 (see above): the tests run on the Node on PATH, $(node --version), more slowly" >&2
source scripts/deps.sh
ignore=()
while IFS= read -r file; do ignore+=(--testPathIgnorePatterns "$file"); done < <(grep -rlE '^ \* @slow' test/repo test/unit test/sandbox test/nodes --include='*.test.ts' | sort)
workers=(--maxWorkers=2)
for arg in "$@"; do case "$arg" in -i | --runInBand | --maxWorkers* | -w*) workers=() ;; esac; done
# The user's arguments first: --selectProjects and the ignore list would each read a path after them as one
# more project name or pattern to ignore.
exec bash scripts/jest.sh "$@" --selectProjects repo unit sandbox nodes "${workers[@]}" "${ignore[@]}"
