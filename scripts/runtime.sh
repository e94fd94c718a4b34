#!/usr/bin/env bash
# Provides Node 24 and a pinned n8n in a cache outside the clone, (re)building whatever is missing.
# `source`-able: exports RUNTIME_NODE_DIR, N8N_BIN, PATH. Prints one progress line per step on stderr;
# each step's full output goes to a log file under the cache, shown (its end) only when the step fails.
#   source scripts/runtime.sh            Node 24 and n8n
#   source scripts/runtime.sh node-only  Node 24 alone
# Node: the one on PATH when it is 24 or newer, else the npm registry's `node-<os>-<arch>` package
# (linux-x64, linux-arm64, darwin-x64; there is none of Node 24 for darwin-arm64: install Node 24 there).
# n8n: `npm install --ignore-scripts`, then its native modules (sqlite3, isolated-vm) compiled from
# source, which needs python3, make and a C++ compiler (checked before anything is downloaded). The
# download is kept when the compile fails: the next run only compiles again.
set -euo pipefail
N8N_VERSION="2.40.7"            # the one pinned n8n version
NODE_MAJOR="24"
CACHE="${CLEARINGHOUSE_RUNTIME_CACHE:-$HOME/.cache/clearinghouse-n8n-runtime}"
NODE_HOME="$CACHE/node$NODE_MAJOR"
N8N_HOME="$CACHE/n8n-$N8N_VERSION"
LOGS="$CACHE/logs"
log() { echo "[runtime] $*" >&2; }
die() { echo "[runtime] error: $*" >&2; exit 1; }

# Runs a step quietly into its log; on failure prints the log's end and where it is.
step() {
  local name="$1" started=$SECONDS; shift
  mkdir -p "$LOGS"
  local file="$LOGS/$name.log"
  if ! "$@" >"$file" 2>&1; then
    tail -n 25 "$file" >&2
    die "$name failed after $((SECONDS - started)) s; full output: $file"
  fi
  log "  done in $((SECONDS - started)) s"
}

in_dir() { local dir="$1"; shift; (cd "$dir" && "$@"); }

platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*)
      die "Windows is not supported by the development scripts (n8n's native modules, bash, apt): use WSL 2. To try workflows against the sandbox on Windows: npx n8n-nodes-clearinghouse-sandbox" ;;
    *) die "unsupported operating system $(uname -s)" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported CPU $(uname -m): install Node $NODE_MAJOR yourself and put it first on PATH" ;;
  esac
  echo "node-$os-$arch"
}

path_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if [ "$(path_node_major)" -ge "$NODE_MAJOR" ]; then
    # The Node on PATH: its folder (bin/node, and include/node when it ships headers).
    RUNTIME_NODE_DIR="$(dirname "$(dirname "$(node -p process.execPath)")")"
    return
  fi
  local pkg; pkg="$(platform)"
  RUNTIME_NODE_DIR="$NODE_HOME/node_modules/$pkg"
  if [ -x "$RUNTIME_NODE_DIR/bin/node" ] && [ -f "$NODE_HOME/.complete" ]; then return; fi
  command -v npm >/dev/null || die "npm is not on PATH: install Node.js 20 or newer (it comes with npm)"
  if [ -z "$(npm view "$pkg@$NODE_MAJOR" version --silent 2>/dev/null | tail -n 1)" ]; then
    die "no $pkg@$NODE_MAJOR package found on the npm registry (none exists for this machine, or the registry is unreachable): install Node $NODE_MAJOR (nodejs.org, nvm, Homebrew) and put it first on PATH"
  fi
  log "Node $NODE_MAJOR: installing $pkg into $NODE_HOME (about 1 minute, once)"
  rm -rf "$NODE_HOME"; mkdir -p "$NODE_HOME"
  echo '{"name":"node-runtime","private":true}' >"$NODE_HOME/package.json"
  step node-install in_dir "$NODE_HOME" npm install --no-audit --no-fund --no-save "$pkg@$NODE_MAJOR"
  touch "$NODE_HOME/.complete"
}

export_node() {
  export RUNTIME_NODE_DIR
  export PATH="$RUNTIME_NODE_DIR/bin:$PATH"
  # node-gyp compiles against these headers when the Node ships them (the npm packages do).
  if [ -f "$RUNTIME_NODE_DIR/include/node/node.h" ]; then export npm_config_nodedir="$RUNTIME_NODE_DIR"; fi
  export npm_config_yes=true
}

check_toolchain() {
  local missing=()
  command -v python3 >/dev/null || missing+=(python3)
  command -v make >/dev/null || missing+=(make)
  command -v g++ >/dev/null || command -v c++ >/dev/null || command -v clang++ >/dev/null || missing+=("a C++ compiler (g++ or clang++)")
  if [ ${#missing[@]} -gt 0 ]; then
    die "n8n's native modules (sqlite3, isolated-vm) are compiled from source, which needs python3, make and a C++ compiler; missing: ${missing[*]}. Debian/Ubuntu: sudo apt-get install python3 make g++; macOS: xcode-select --install. Nothing was downloaded."
  fi
}

ensure_n8n() {
  # The ABI of the Node that compiled n8n's native modules: another Node means compiling again.
  local abi; abi="$(node -p process.versions.modules)"
  if [ -f "$N8N_HOME/.complete" ] && [ -x "$N8N_HOME/node_modules/.bin/n8n" ]; then
    # A cache from before the ABI was recorded was always compiled with the cached Node 24.
    [ -f "$N8N_HOME/.node-abi" ] || echo "$abi" >"$N8N_HOME/.node-abi"
    touch "$N8N_HOME/.downloaded"
    if [ "$(cat "$N8N_HOME/.node-abi")" = "$abi" ]; then return; fi
    log "n8n $N8N_VERSION: compiled for another Node (ABI $(cat "$N8N_HOME/.node-abi"), now $abi): compiling again"
    rm -f "$N8N_HOME/.complete"
  fi
  check_toolchain
  if [ ! -f "$N8N_HOME/.downloaded" ] || [ ! -x "$N8N_HOME/node_modules/.bin/n8n" ]; then
    log "n8n $N8N_VERSION: downloading into $N8N_HOME (about 2,400 packages, 3-8 minutes, once)"
    rm -rf "$N8N_HOME"; mkdir -p "$N8N_HOME"
    echo '{"name":"n8n-runtime","private":true}' >"$N8N_HOME/package.json"
    step n8n-download in_dir "$N8N_HOME" npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION"
    touch "$N8N_HOME/.downloaded"
  else
    log "n8n $N8N_VERSION: already downloaded, compiling only"
  fi
  log "n8n $N8N_VERSION: compiling sqlite3 and isolated-vm (3-5 minutes)"
  # --ignore-scripts=false: `npm test` and `npm start` pass the clone's .npmrc (ignore-scripts=true) on
  # to their scripts as npm_config_ignore_scripts, under which a rebuild would compile nothing.
  step n8n-compile in_dir "$N8N_HOME" npm rebuild --ignore-scripts=false sqlite3 isolated-vm
  echo "$abi" >"$N8N_HOME/.node-abi"
  touch "$N8N_HOME/.complete"
}

# Nothing to install: the common case, answered without a lock.
ready() {
  { [ "$(path_node_major)" -ge "$NODE_MAJOR" ] || [ -f "$NODE_HOME/.complete" ]; } \
    && { [ "${1:-}" = node-only ] || { [ -f "$N8N_HOME/.complete" ] && [ -x "$N8N_HOME/node_modules/.bin/n8n" ]; }; }
}

# One installer at a time per cache (two clones on one machine share it): another process that is
# installing is waited for, never deleted under (flock where it exists: Linux).
lock_cache() {
  mkdir -p "$CACHE"
  command -v flock >/dev/null || return 0
  exec {RUNTIME_LOCK_FD}>"$CACHE/.install.lock"
  if ! flock -n "$RUNTIME_LOCK_FD"; then
    log "another process is installing into $CACHE: waiting for it"
    flock "$RUNTIME_LOCK_FD"
  fi
}

RUNTIME_LOCK_FD=""
ready "${1:-}" || lock_cache
ensure_node
export_node
if [ "${1:-}" != "node-only" ]; then ensure_n8n; fi
if [ -n "$RUNTIME_LOCK_FD" ]; then exec {RUNTIME_LOCK_FD}>&-; fi
export N8N_BIN="$N8N_HOME/node_modules/.bin/n8n"
export N8N_RUNTIME_VERSION="$N8N_VERSION"
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "NODE=$RUNTIME_NODE_DIR/bin/node"
  echo "N8N=$N8N_BIN"
fi
