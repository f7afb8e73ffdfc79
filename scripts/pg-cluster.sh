#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for tests.
#
#   scripts/pg-cluster.sh start   # (re)creates it; the last stdout line is the DATABASE_URL
#   scripts/pg-cluster.sh stop    # stops it and removes its directory (no-op when absent)
#   scripts/pg-cluster.sh url     # prints the DATABASE_URL (exit 1 if the cluster is not running)
#   scripts/pg-cluster.sh status  # exit 0 when running
#
# Port: PG_TEST_PORT (default 55432). Everything (data, unix socket, log) lives in
# /tmp/ka-pg-<port>. Listens on 127.0.0.1 only; loopback connections are trusted, so
# postgresql://postgres@127.0.0.1:<port>/ka_test works without a password. The database
# ka_test has the extensions vector and pg_trgm. fsync stays on (durability tests need it).
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
PORT="${PG_TEST_PORT:-55432}"
DB=ka_test
BASE="/tmp/ka-pg-${PORT}"
DATA="$BASE/data"
LOG="$BASE/postgres.log"
URL="postgresql://postgres@127.0.0.1:${PORT}/${DB}"

log() { printf '[pg-cluster] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ "$PORT" =~ ^[0-9]+$ ]] || die "PG_TEST_PORT must be a number, got '$PORT'"
[[ -x "$PG_BIN/initdb" ]] || die "$PG_BIN/initdb not found: run scripts/ensure-system-deps.sh"
cd / # the postgres user may not be allowed into the caller's directory (e.g. a clone under /root)

# As root the server runs as the postgres user (it refuses to run as root); otherwise as us.
as_pg() {
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Alive = exists and is not a zombie (this machine's init reaps orphans only every few seconds,
# and pg_ctl takes a zombie postmaster for a running one).
pid_alive() {
  local state
  state=$(sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

postmaster_pid() {
  local pid
  pid=$(head -n 1 "$DATA/postmaster.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}

is_running() {
  local pid
  pid=$(postmaster_pid) && pid_alive "$pid" && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == postgres ]]
}

port_in_use() {
  # Something accepting TCP connections on 127.0.0.1:$PORT?
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

psql_admin() {
  # Over the unix socket in $BASE, as the superuser, failing on the first error.
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$BASE" -p "$PORT" -U postgres "$@"
}

do_stop() {
  local pid
  if is_running; then
    pid=$(postmaster_pid)
    log "stopping cluster on port $PORT"
    if ! as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null 2>&1 && pid_alive "$pid"; then
      log "fast shutdown failed; immediate shutdown"
      as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m immediate -w -t 15 stop >/dev/null 2>&1 || true
    fi
    if pid_alive "$pid"; then
      log "killing postmaster $pid"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    for _ in $(seq 100); do pid_alive "$pid" || break; sleep 0.1; done
    ! pid_alive "$pid" || die "postmaster $pid does not exit"
  fi
  rm -rf "$BASE"
}

do_start() {
  do_stop # a cluster already on this port (or a stale directory) is replaced
  if port_in_use; then
    die "port $PORT on 127.0.0.1 is used by another process; set PG_TEST_PORT to a free port"
  fi

  mkdir -p "$BASE"
  chmod 700 "$BASE"
  if [[ $EUID -eq 0 ]]; then
    chown postgres:postgres "$BASE"
  fi

  log "initdb in $DATA"
  # C.UTF-8: UTF-8 text, code-point collation, and a ctype that classifies CJK characters as
  # letters (pg_trgm makes no trigrams from characters the ctype does not call letters).
  if ! as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 --no-instructions >"$BASE/initdb.log" 2>&1; then
    cat "$BASE/initdb.log" >&2
    die "initdb failed"
  fi

  cat >>"$DATA/postgresql.conf" <<EOF

# --- scripts/pg-cluster.sh ---
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$BASE'
fsync = on
synchronous_commit = on
full_page_writes = on
max_connections = 200
log_min_messages = warning
log_min_error_statement = error
EOF

  # Loopback and the socket are trusted (initdb --auth=trust); nothing else may connect.
  cat >"$DATA/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF

  log "starting postgres on 127.0.0.1:$PORT"
  if ! as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null 2>&1; then
    tail -n 30 "$LOG" >&2 || true
    do_stop
    die "postgres did not start"
  fi

  psql_admin -d postgres -c "CREATE DATABASE $DB"
  psql_admin -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;"
  log "ready: $URL"
  echo "$URL"
}

case "${1:-}" in
  start) do_start ;;
  stop) do_stop ;;
  url)
    is_running || die "no cluster running on port $PORT (run: $0 start)"
    echo "$URL"
    ;;
  status)
    if is_running; then
      log "running on port $PORT ($BASE)"
    else
      log "not running on port $PORT"
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 start|stop|url|status   (port from PG_TEST_PORT, default 55432)" >&2
    exit 2
    ;;
esac
