#!/usr/bin/env bash
# Provides Node and a pinned n8n in a cache outside the clone, (re)building whatever is missing. One
# installer for every n8n line the project runs (the pinned 2.x, the 1.x ones of the compatibility suite).
#   source scripts/runtime.sh            Node 24 and n8n 2.40.7 (the pinned version)
#   source scripts/runtime.sh node-only  Node 24 alone
#   bash scripts/runtime.sh              the same, printing NODE=<node binary> and N8N=<n8n entry>
# Parameters (environment):
#   CLEARINGHOUSE_N8N_VERSION   another n8n: a version (1.123.81) or an npm dist-tag (latest), resolved
#                               on the registry to the version it names
#   CLEARINGHOUSE_NODE_MAJOR    the Node major that runs it; default 24 for n8n 2.x, 22 for n8n 1.x
#   CLEARINGHOUSE_RUNTIME_CACHE the cache folder; default ~/.cache/clearinghouse-n8n-runtime
# Sourced, it exports RUNTIME_NODE_DIR, N8N_BIN, N8N_RUNTIME_VERSION, puts that Node first on PATH and
# sets npm_config_nodedir/npm_config_yes. The work runs in a child bash: the calling shell's options
# (set -e, -u, pipefail) stay as they were, and a failure makes `source` return 1 (which ends a script
# under set -e, and leaves an interactive shell open).
# Cache: one folder per Node major (node24) and per n8n version (n8n-2.40.7), so versions live side by
# side. One progress line per step on stderr; each step's full output goes to a log file under the cache,
# shown (its end) only when the step fails.
# Node: the one on PATH when its major is the one asked (or newer, for the default of n8n 2.x), else the
# npm registry's `node-<os>-<arch>` package (linux-x64, linux-arm64, darwin-x64; there is none of Node 24
# for darwin-arm64: install Node 24 there).
# n8n: `npm install --ignore-scripts`, then its native modules (sqlite3, and isolated-vm where that n8n
# has it) compiled from source, which needs python3, make and a C++ compiler (checked before anything is
# downloaded). The download is kept when the compile fails: the next run only compiles again.
# n8n 1.x: its `xlsx` dependency is a CDN tarball outside the npm registry, so an override pins the
# registry's xlsx 0.18.5. Node 22 rather than 20 by default: the isolated-vm 6.2.0 of n8n 1.123.81 (its
# default `vm` expression engine) declares Node >= 22 and does not compile against Node 20's headers.

if [ "${BASH_SOURCE[0]}" != "$0" ] && [ -z "${CLEARINGHOUSE_RUNTIME_CHILD:-}" ]; then
  # Sourced: install in a child bash, then take the exports it prints. Only `node-only` is read from the
  # arguments: a script that sources this without arguments passes on its own.
  if __clearinghouse_runtime="$(CLEARINGHOUSE_RUNTIME_CHILD=1 bash "${BASH_SOURCE[0]}" --exports "$([ "${1:-}" = node-only ] && echo node-only)")"; then
    eval "$__clearinghouse_runtime"
    unset __clearinghouse_runtime
    return 0
  fi
  unset __clearinghouse_runtime
  return 1
fi

set -euo pipefail
PINNED_N8N_VERSION="2.40.7"
MODE="" NODE_ONLY=""
for arg in "$@"; do
  case "$arg" in
    --exports) MODE=exports ;;
    node-only) NODE_ONLY=1 ;;
  esac
done
log() { echo "[runtime] $*" >&2; }
die() { echo "[runtime] error: $*" >&2; exit 1; }

N8N_VERSION="${CLEARINGHOUSE_N8N_VERSION:-$PINNED_N8N_VERSION}"
if ! [[ "$N8N_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  # A dist-tag (latest, next, ...) or a range: the version the registry gives for it today.
  command -v npm >/dev/null || die "npm is not on PATH: install Node.js 20 or newer (it comes with npm)"
  resolved="$(npm view "n8n@$N8N_VERSION" version --silent 2>/dev/null | tail -n 1 | sed "s/.* '\{0,1\}\([0-9][0-9.]*\)'\{0,1\}$/\1/")"
  [[ "$resolved" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "the npm registry names no n8n version for \"$N8N_VERSION\""
  log "n8n@$N8N_VERSION is $resolved on the npm registry"
  N8N_VERSION="$resolved"
fi
N8N_MAJOR="${N8N_VERSION%%.*}"
if [ -n "${CLEARINGHOUSE_NODE_MAJOR:-}" ]; then
  NODE_MAJOR="$CLEARINGHOUSE_NODE_MAJOR" NODE_NEWER_OK=""
elif [ "$N8N_MAJOR" -ge 2 ]; then
  NODE_MAJOR="24" NODE_NEWER_OK=1
else
  NODE_MAJOR="22" NODE_NEWER_OK=""
fi
CACHE="${CLEARINGHOUSE_RUNTIME_CACHE:-$HOME/.cache/clearinghouse-n8n-runtime}"
NODE_HOME="$CACHE/node$NODE_MAJOR"
N8N_HOME="$CACHE/n8n-$N8N_VERSION"
LOGS="$CACHE/logs"

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

# The major of the Node on PATH, asked once (each `node -p` starts a Node; PATH changes only in use_node).
PATH_NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"

# The Node on PATH serves when its major is the one asked (or newer, where newer is fine).
path_node_fits() {
  local major="$PATH_NODE_MAJOR"
  [ "$major" = "$NODE_MAJOR" ] || { [ -n "$NODE_NEWER_OK" ] && [ "$major" -ge "$NODE_MAJOR" ]; }
}

ensure_node() {
  if path_node_fits; then
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
  step "node$NODE_MAJOR-install" in_dir "$NODE_HOME" npm install --no-audit --no-fund --no-save "$pkg@$NODE_MAJOR"
  touch "$NODE_HOME/.complete"
}

use_node() {
  PATH="$RUNTIME_NODE_DIR/bin:$PATH"
  # node-gyp compiles against these headers when the Node ships them (the npm packages do).
  # Without them, node-gyp fetches the headers of the running Node; never those of another Node.
  if [ -f "$RUNTIME_NODE_DIR/include/node/node.h" ]; then export npm_config_nodedir="$RUNTIME_NODE_DIR"; else unset npm_config_nodedir; fi
  export PATH npm_config_yes=true
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

# The install folder's package.json: n8n 1.x needs the registry's xlsx instead of its CDN tarball.
install_manifest() {
  if [ "$N8N_MAJOR" -lt 2 ]; then
    echo '{"name":"n8n-runtime","private":true,"overrides":{"xlsx":"0.18.5"}}'
  else
    echo '{"name":"n8n-runtime","private":true}'
  fi
}

# The native modules this n8n has (older ones have no isolated-vm).
native_modules() {
  local name
  for name in sqlite3 isolated-vm; do
    if [ -f "$N8N_HOME/node_modules/$name/package.json" ]; then echo "$name"; fi
  done
}

ensure_n8n() {
  # The ABI of the Node that compiled n8n's native modules: another Node means compiling again.
  local abi; abi="$(node -p process.versions.modules)"
  if [ -f "$N8N_HOME/.complete" ] && [ -x "$N8N_HOME/node_modules/.bin/n8n" ]; then
    # A cache from before the ABI was recorded was always compiled with the cached Node.
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
    install_manifest >"$N8N_HOME/package.json"
    step "n8n-$N8N_VERSION-download" in_dir "$N8N_HOME" npm install --ignore-scripts --no-audit --no-fund "n8n@$N8N_VERSION"
    touch "$N8N_HOME/.downloaded"
  else
    log "n8n $N8N_VERSION: already downloaded, compiling only"
  fi
  local modules; modules="$(native_modules | xargs)"
  log "n8n $N8N_VERSION: compiling $modules for Node $(node -p process.versions.node) (3-5 minutes)"
  # --ignore-scripts=false: `npm test` and `npm start` pass the clone's .npmrc (ignore-scripts=true) on
  # to their scripts as npm_config_ignore_scripts, under which a rebuild would compile nothing.
  # shellcheck disable=SC2086 # one word per module
  step "n8n-$N8N_VERSION-compile" in_dir "$N8N_HOME" npm rebuild --ignore-scripts=false $modules
  echo "$abi" >"$N8N_HOME/.node-abi"
  touch "$N8N_HOME/.complete"
}

# Nothing to install: the common case, answered without a lock.
ready() {
  { path_node_fits || [ -f "$NODE_HOME/.complete" ]; } \
    && { [ -n "$NODE_ONLY" ] || { [ -f "$N8N_HOME/.complete" ] && [ -x "$N8N_HOME/node_modules/.bin/n8n" ]; }; }
}

# One installer at a time per cache (two clones on one machine share it): another process that is
# installing is waited for, never deleted under (flock where it exists: Linux). Released at exit.
lock_cache() {
  mkdir -p "$CACHE"
  command -v flock >/dev/null || return 0
  exec {RUNTIME_LOCK_FD}>"$CACHE/.install.lock"
  if ! flock -n "$RUNTIME_LOCK_FD"; then
    log "another process is installing into $CACHE: waiting for it"
    flock "$RUNTIME_LOCK_FD"
  fi
}

ready || lock_cache
ensure_node
use_node
if [ -z "$NODE_ONLY" ]; then ensure_n8n; fi
N8N_BIN="$N8N_HOME/node_modules/.bin/n8n"
if [ "$MODE" = exports ]; then
  N8N_RUNTIME_VERSION="$N8N_VERSION"
  for name in RUNTIME_NODE_DIR PATH npm_config_yes N8N_BIN N8N_RUNTIME_VERSION; do printf 'export %s=%q\n' "$name" "${!name}"; done
  if [ -n "${npm_config_nodedir:-}" ]; then printf 'export npm_config_nodedir=%q\n' "$npm_config_nodedir"; else echo 'unset npm_config_nodedir'; fi
else
  echo "NODE=$RUNTIME_NODE_DIR/bin/node"
  echo "N8N=$N8N_BIN"
fi
