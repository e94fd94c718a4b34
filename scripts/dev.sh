#!/usr/bin/env bash
# `npm run dev`: a local n8n with this package, rebuilt and reloaded on change. What the n8n starter's
# `n8n-node dev` does, with the pinned n8n of scripts/runtime.sh (2.40.7 on Node 24) instead of
# `npx n8n@latest`: builds once (`npm run build`), links dist/ into the n8n user folder's
# custom/node_modules (n8n loads custom nodes from there; linking dist/ rather than the whole clone keeps
# the clone's node_modules out of n8n's node search), runs `tsc --watch`, and starts n8n with
# N8N_DEV_RELOAD=true, which reloads the nodes whenever dist/ changes: save a .ts file, refresh the editor
# (n8n starts watching shortly after "Editor is now accessible"; it logs "Hot reload triggered for CUSTOM").
# Icons and codex files are copied by `npm run build` only: run it again after changing one.
# The nodes resolve n8n-workflow from this clone's node_modules (the devDependency), as under n8n-node dev.
#   N8N_PORT                  n8n's port (default 5678); any other N8N_* setting passes through
#   CLEARINGHOUSE_DEV_FOLDER  n8n's user folder, kept between runs (default ~/.cache/clearinghouse-n8n-dev)
# The sandbox is not started here: run `npm run sandbox -- --allow-loopback-webhooks=5678` in another terminal
# (or use `npm start`: the sandbox, n8n, the credential and the examples, with the package packed, not linked).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/runtime.sh
source scripts/deps.sh
folder="${CLEARINGHOUSE_DEV_FOLDER:-$HOME/.cache/clearinghouse-n8n-dev}"
custom="$folder/.n8n/custom/node_modules"
mkdir -p "$custom"
echo "[dev] building (npm run build)" >&2
npm run --silent build
ln -sfn "$PWD/dist" "$custom/n8n-nodes-clearinghouse"

npx tsc -p tsconfig.json --watch --preserveWatchOutput &
tsc_pid=$!
trap 'kill "$tsc_pid" 2>/dev/null || true' EXIT

port="${N8N_PORT:-5678}"
echo "[dev] n8n ${N8N_RUNTIME_VERSION} on http://localhost:${port}/ (user folder ${folder}); Ctrl-C stops it" >&2
N8N_USER_FOLDER="$folder" \
  N8N_DEV_RELOAD=true \
  N8N_PORT="$port" \
  N8N_LISTEN_ADDRESS="${N8N_LISTEN_ADDRESS:-127.0.0.1}" \
  N8N_SECURE_COOKIE="${N8N_SECURE_COOKIE:-false}" \
  N8N_DIAGNOSTICS_ENABLED="${N8N_DIAGNOSTICS_ENABLED:-false}" \
  N8N_VERSION_NOTIFICATIONS_ENABLED="${N8N_VERSION_NOTIFICATIONS_ENABLED:-false}" \
  DB_SQLITE_POOL_SIZE="${DB_SQLITE_POOL_SIZE:-10}" \
  node "$N8N_BIN" start
