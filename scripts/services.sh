#!/usr/bin/env bash
# PostgreSQL, Redis and nginx on loopback for the queue-mode suite, from Debian's packages.
#   scripts/services.sh install [queue|browser]
#       install the packages when missing (apt, as root or through sudo): PostgreSQL, Redis and nginx
#       (queue), chromium for the sandbox console's browser test (browser), or all of them. System-wide
#       installs happen only with consent: in CI (CI=true), with CLEARINGHOUSE_INSTALL_SERVICES=1, or
#       when you answer yes at the prompt (interactive terminals only). Otherwise, and where apt is
#       missing, it says what is missing and exits 3, and the test commands skip the layers needing it.
#   scripts/services.sh start DIR PGPORT REDISPORT
#   scripts/services.sh proxy DIR PORT RRPORT BACKEND_PORT...
#       nginx with the shipped examples/queue/nginx.conf (hash on X-Service-Webhook-Id) on PORT, and
#       a plain round-robin upstream over the same backends on RRPORT (for comparison)
#   scripts/services.sh stop DIR
# Each instance lives in DIR (data, sockets, logs), so runs never touch a system-wide server.
set -euo pipefail
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"

install() {
  local what="${1:-all}" missing=()
  if [ "$what" != browser ]; then
    [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] || missing+=(postgresql)
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
  fi
  if [ "$what" != queue ]; then command -v chromium >/dev/null || [ -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ] || missing+=(chromium); fi
  [ ${#missing[@]} -gt 0 ] || return 0
  local not_installed="[services] not installed: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "$not_installed. No apt-get here: install them with your package manager (PostgreSQL, Redis, nginx, chromium) to run those layers." >&2
    exit 3
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "$not_installed. Installing them needs root: run as root, or install sudo." >&2
      exit 3
    fi
    sudo=(sudo)  # GitHub's runners
  fi
  if ! consent "${missing[@]}"; then
    echo "$not_installed. To install them system-wide with apt-get: CLEARINGHOUSE_INSTALL_SERVICES=1 (CI=true does the same)." >&2
    exit 3
  fi
  echo "[services] installing ${missing[*]} with apt-get" >&2
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

# Consent for a system-wide install: CI, the environment variable, or a yes at an interactive prompt.
consent() {
  [ "${CLEARINGHOUSE_INSTALL_SERVICES:-}" = 1 ] && return 0
  [ "${CLEARINGHOUSE_INSTALL_SERVICES:-}" = 0 ] && return 1
  [ "${CI:-}" = true ] && return 0
  if [ -t 2 ] && [ -r /dev/tty ] && { exec 3</dev/tty; } 2>/dev/null; then
    local answer=""
    printf '[services] install %s system-wide with apt-get? [y/N] ' "$*" >&2
    read -r answer <&3 || true
    exec 3<&-
    [[ "$answer" =~ ^[yY] ]] && return 0
  fi
  return 1
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

proxy() {
  local dir="$1" port="$2" rrport="$3"; shift 3
  local nginx; nginx="$(command -v nginx || echo /usr/sbin/nginx)"
  local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  mkdir -p "$dir/nginx-tmp"
  local servers="" b
  for b in "$@"; do servers+="    server 127.0.0.1:$b;"$'\n'; done
  # The shipped file with this run's addresses: its "server ...; # n8n webhook process" lines become
  # one line per backend, its listen line the loopback port. Everything else is used as shipped.
  awk -v servers="$servers" -v listen="    listen 127.0.0.1:$port;" '
    /# n8n webhook process/ { if (!done) { printf "%s", servers; done = 1 } next }
    /^    listen / { print listen; next }
    { print }' "$here/examples/queue/nginx.conf" >"$dir/n8n-webhooks.conf"
  grep -q "hash \$http_x_service_webhook_id consistent" "$dir/n8n-webhooks.conf"
  cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
# Each delivery held open until its run ends (When Finished) takes two connections (the sender's and the
# webhook process's): 1024 ran out at a backlog of about 500 (bench:scale intake, issue 45).
events { worker_connections 8192; }
http {
  client_body_temp_path $dir/nginx-tmp/body;
  proxy_temp_path $dir/nginx-tmp/proxy;
  fastcgi_temp_path $dir/nginx-tmp/fastcgi;
  uwsgi_temp_path $dir/nginx-tmp/uwsgi;
  scgi_temp_path $dir/nginx-tmp/scgi;
  # One JSON line per request: which webhook process got which event, what it answered, and when (msec: the
  # end; request_time: how long it took, so the start can be read).
  log_format events escape=json '{"msec":"\$msec","upstream":"\$upstream_addr","port":"\$server_port","method":"\$request_method","uri":"\$request_uri","status":"\$status","requestTime":"\$request_time","upstreamStatus":"\$upstream_status","eventId":"\$http_x_service_webhook_id"}';
  access_log $dir/nginx-access.log events;
  add_header X-Upstream \$upstream_addr always;
  include $dir/n8n-webhooks.conf;
  upstream n8n_webhooks_round_robin {
$servers  }
  server {
    listen 127.0.0.1:$rrport;
    client_max_body_size 16m;
    location / { proxy_pass http://n8n_webhooks_round_robin; proxy_http_version 1.1; proxy_read_timeout 120s; }
  }
}
CONF
  "$nginx" -p "$dir" -c "$dir/nginx.conf" -t >"$dir/nginx-test.log" 2>&1 || { cat "$dir/nginx-test.log" >&2; exit 1; }
  "$nginx" -p "$dir" -c "$dir/nginx.conf"
  for _ in $(seq 50); do [ -s "$dir/nginx.pid" ] && break; sleep 0.1; done
  [ -s "$dir/nginx.pid" ] || { echo "[services] nginx did not start" >&2; cat "$dir/nginx-error.log" >&2; exit 1; }
  echo "[services] nginx 127.0.0.1:$port (hash on X-Service-Webhook-Id), 127.0.0.1:$rrport (round robin) -> $*" >&2
}

stop() {
  local dir="$1"
  if [ -s "$dir/nginx.pid" ]; then kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; rm -f "$dir/nginx.pid"; fi
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  if [ -f "$dir/pg/postmaster.pid" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast stop >&2 || true
    else "$PG_BIN/pg_ctl" -D "$dir/pg" -m fast stop >&2 || true; fi
  fi
  if [ -f "$dir/redis.pid" ]; then kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; rm -f "$dir/redis.pid"; fi
}

cmd="${1:-}"; shift || true
case "$cmd" in
  install) install "$@" ;;
  start) start "$@" ;;
  proxy) proxy "$@" ;;
  stop) stop "$@" ;;
  *) echo "usage: $0 install [queue|browser] | start DIR PGPORT REDISPORT | proxy DIR PORT RRPORT BACKEND_PORT... | stop DIR" >&2; exit 2 ;;
esac
