#!/usr/bin/env bash
# Stops ops/failover/up.sh's set-up (both Patroni nodes, which stop their PostgreSQL, then etcd) and removes its
# scratch directory; `--keep` keeps the directory (the logs, the data). Only the processes it recorded are stopped.
set -uo pipefail

DIR="${TILL_FAILOVER_DIR:-/tmp/till-failover}"
PG_BIN="${TILL_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"

# stops the process whose pid is in $1: TERM, then KILL after 30 s
stop_pidfile() {
  local pidfile="$1" pid i
  [ -e "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for ((i = 0; i < 120; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$pidfile"
}

stop_pidfile "$DIR/node2.pid"
stop_pidfile "$DIR/node1.pid"
# a PostgreSQL its Patroni left running (Patroni killed hard): stopped as a crash would
for data in "$DIR"/node*/data; do
  [ -e "$data/postmaster.pid" ] || continue
  pid="$(head -1 "$data/postmaster.pid")"
  kill -0 "$pid" 2>/dev/null || continue
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" stop -m immediate
  else "$PG_BIN/pg_ctl" -D "$data" stop -m immediate; fi
done
stop_pidfile "$DIR/etcd.pid"

if [ "${1:-}" != "--keep" ]; then rm -rf "$DIR"; fi
echo "failover set-up stopped${1:+ ($1)}"
