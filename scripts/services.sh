#!/usr/bin/env bash
# PostgreSQL and Redis on loopback for the queue-mode suite, from Debian's packages.
#   scripts/services.sh install            install the packages when missing (apt, as root or through sudo)
#   scripts/services.sh start DIR PGPORT REDISPORT
#   scripts/services.sh stop DIR
# Each instance lives in DIR (data, sockets, logs), so runs never touch a system-wide server.
set -euo pipefail
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"

install() {
  local missing=()
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] || missing+=(postgresql)
  command -v redis-server >/dev/null || missing+=(redis-server)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "[services] installing ${missing[*]}" >&2
    # As root here; through sudo where the user is not root (GitHub's runners).
    local sudo=()
    if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  fi
}

start() {
  local dir="$1" pgport="$2" redisport="$3"
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  mkdir -p "$dir"
  # PostgreSQL refuses to run as root: the instance belongs to the unprivileged `postgres` user.
  local owner=""
  if [ "$(id -u)" = 0 ]; then owner=postgres; chown -R postgres "$dir"; fi
  as_owner() { if [ -n "$owner" ]; then runuser -u "$owner" -- "$@"; else "$@"; fi; }
  if [ ! -f "$dir/pg/PG_VERSION" ]; then
    as_owner "$PG_BIN/initdb" -D "$dir/pg" -U n8n --auth=trust >"$dir/initdb.log" 2>&1
  fi
  as_owner "$PG_BIN/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$pgport -c unix_socket_directories=$dir -c fsync=off -c max_connections=200" start >&2
  as_owner "$PG_BIN/createdb" -h 127.0.0.1 -p "$pgport" -U n8n n8n 2>/dev/null || true
  redis-server --bind 127.0.0.1 --port "$redisport" --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir"
  for _ in $(seq 50); do redis-cli -p "$redisport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  echo "[services] postgres 127.0.0.1:$pgport (db n8n, user n8n), redis 127.0.0.1:$redisport" >&2
}

stop() {
  local dir="$1"
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  if [ -f "$dir/pg/postmaster.pid" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast stop >&2 || true
    else "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast stop >&2 || true; fi
  fi
  if [ -f "$dir/redis.pid" ]; then kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; rm -f "$dir/redis.pid"; fi
}

cmd="${1:-}"; shift || true
case "$cmd" in
  install) install ;;
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) echo "usage: $0 install | start DIR PGPORT REDISPORT | stop DIR" >&2; exit 2 ;;
esac
