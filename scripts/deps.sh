#!/usr/bin/env bash
# Sourced after scripts/runtime.sh by `npm start`, `npm test` and `npm run bench`: installs the
# project's devDependencies (`npm ci`) when node_modules is missing or older than the lockfile,
# so a fresh clone needs no separate install step.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[deps] npm ci (node_modules missing or older than package-lock.json)" >&2
  npm ci --no-audit --no-fund >&2
fi
