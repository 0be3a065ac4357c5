#!/usr/bin/env bash
# Starts till's failover set-up on loopback: one etcd member and two Patroni nodes, each managing a PostgreSQL
# (a primary and its synchronous streaming standby), all under one scratch directory. Prints the DATABASE_URL
# till uses (both nodes, target_session_attrs=read-write: the driver connects to whichever is the leader).
# Stop and remove it with ops/failover/down.sh. Needs Debian's patroni, etcd-server and postgresql-15 packages;
# as root, the servers run as the `postgres` user. Every port is overridable (defaults avoid the usual ones).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
DIR="${TILL_FAILOVER_DIR:-/tmp/till-failover}"
ETCD_PORT="${TILL_FAILOVER_ETCD_PORT:-52379}"
ETCD_PEER_PORT="${TILL_FAILOVER_ETCD_PEER_PORT:-52380}"
PG_PORTS=("${TILL_FAILOVER_PG_PORT1:-55432}" "${TILL_FAILOVER_PG_PORT2:-55433}")
API_PORTS=("${TILL_FAILOVER_API_PORT1:-58008}" "${TILL_FAILOVER_API_PORT2:-58009}")
PG_BIN="${TILL_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"

for tool in etcd patroni curl; do
  command -v "$tool" >/dev/null || { echo "up.sh: $tool is missing (apt-get install patroni etcd-server curl)" >&2; exit 1; }
done
[ -x "$PG_BIN/postgres" ] || { echo "up.sh: no PostgreSQL server binaries (set TILL_PG_BIN)" >&2; exit 1; }
if [ -e "$DIR/etcd.pid" ]; then
  echo "up.sh: $DIR is in use (run ops/failover/down.sh first)" >&2
  exit 1
fi

# runs a command in the background as the servers' user; its pid goes to $1
as_server() {
  local pidfile="$1" log="$2"
  shift 2
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" >>"$log" 2>&1 &
  else
    sh -c 'echo $$ > "$0"; exec "$@"' "$pidfile" "$@" >>"$log" 2>&1 &
  fi
}

# waits until `curl -fs $1` answers (at most $2 seconds)
wait_for() {
  local url="$1" limit="$2" i
  for ((i = 0; i < limit * 4; i++)); do
    curl -fs -o /dev/null "$url" && return 0
    sleep 0.25
  done
  echo "up.sh: $url did not answer within $limit s (logs in $DIR)" >&2
  return 1
}

mkdir -p "$DIR"
chmod 700 "$DIR"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"

as_server "$DIR/etcd.pid" "$DIR/etcd.log" etcd --name till-failover --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "till-failover=http://127.0.0.1:$ETCD_PEER_PORT"
wait_for "http://127.0.0.1:$ETCD_PORT/health" 30

for i in 0 1; do
  name="node$((i + 1))"
  mkdir -p "$DIR/$name"
  sed -e "s|@NAME@|$name|g" -e "s|@DIR@|$DIR|g" -e "s|@PG_PORT@|${PG_PORTS[$i]}|g" -e "s|@API_PORT@|${API_PORTS[$i]}|g" \
    -e "s|@ETCD_PORT@|$ETCD_PORT|g" -e "s|@PG_BIN@|$PG_BIN|g" "$HERE/patroni.yml.in" >"$DIR/$name.yml"
  chmod 700 "$DIR/$name"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$DIR/$name" "$DIR/$name.yml"
  as_server "$DIR/$name.pid" "$DIR/$name/patroni.out" patroni "$DIR/$name.yml"
  if [ "$i" = 0 ]; then
    # the first node bootstraps (initdb) and takes the leader key
    wait_for "http://127.0.0.1:${API_PORTS[0]}/primary" 120
  fi
done
# the second node copies the first (pg_basebackup) and becomes its synchronous standby
wait_for "http://127.0.0.1:${API_PORTS[1]}/sync" 180

echo "failover set-up up in $DIR: leader 127.0.0.1:${PG_PORTS[0]}, synchronous standby 127.0.0.1:${PG_PORTS[1]}"
echo "patronictl -c $DIR/node1.yml list    # who leads"
echo "DATABASE_URL=postgres://postgres@127.0.0.1:${PG_PORTS[0]},127.0.0.1:${PG_PORTS[1]}/till?target_session_attrs=read-write"
