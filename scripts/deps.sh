#!/usr/bin/env bash
# Sourced by every npm script that needs the devDependencies (start, test, test:*, build, lint,
# verify, sandbox, format, bench, release): installs them (`npm ci`) when node_modules is missing or
# older than the lockfile, so a fresh clone needs no separate install step. Without install scripts,
# as the clone's .npmrc (ignore-scripts=true) makes every `npm install`/`npm ci` here: they would only
# compile native modules that nothing loads from this node_modules (n8n-core's isolated-vm declares
# Node >= 24 and compiles for minutes; in-process tests use n8n's default legacy expression engine,
# and a real n8n runs from its own runtime) and run a pnpm-only guard (`npx only-allow pnpm`) that
# stops a plain npm install. So one install serves Node 20 (`npm run test:unit`) and Node 24 alike.
# A lock newer than the install (a checkout, a merge, an edit of package.json's other fields) needs no
# install when every package the lock lists is installed at the lock's version and integrity (an optional
# one, another platform's binary, may be missing; a package the lock no longer lists may stay until the
# next install: nothing the lock describes imports it).
installed_matches_lock() {
  node -e '
    const lock = require("./package-lock.json").packages, installed = require("./node_modules/.package-lock.json").packages;
    const differ = Object.keys(lock).filter((k) => k && (installed[k] ? installed[k].version !== lock[k].version || installed[k].integrity !== lock[k].integrity : !lock[k].optional));
    process.exit(differ.length === 0 ? 0 : 1);
  ' 2>/dev/null
}
if [ ! -f node_modules/.package-lock.json ] || { [ package-lock.json -nt node_modules/.package-lock.json ] && ! installed_matches_lock; }; then
  echo "[deps] npm ci: installing the devDependencies (node_modules missing or not what package-lock.json lists; 1-3 minutes)" >&2
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
elif [ package-lock.json -nt node_modules/.package-lock.json ]; then
  touch node_modules/.package-lock.json # the same tree: next time, no comparison
fi
