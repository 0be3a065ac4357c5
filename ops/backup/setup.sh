#!/usr/bin/env bash
# Continuous archiving of till's PostgreSQL with pgBackRest: writes the configuration from pgbackrest.conf.template,
# turns WAL archiving on in the cluster, creates the stanza, checks that a WAL segment reaches the repository and
# takes a full backup. Safe to run again (after a restart it asked for; each run ends with a full backup).
#
#   ops/backup/setup.sh --pgdata /var/lib/postgresql/15/main --port 5432 [--socket /var/run/postgresql]
#                       [--repo /var/lib/pgbackrest] [--config /etc/pgbackrest/pgbackrest.conf] [--stanza till]
#                       [--restart]
#
# --restart restarts the cluster with pg_ctl (its last options kept) when archive_mode must change; without it the
# script stops there and says to restart the server (systemctl restart postgresql@15-main) and run it again.
# Runs as root (the PostgreSQL and pgBackRest commands then run as `postgres`) or as `postgres`.
set -euo pipefail

PGDATA="" PORT=5432 SOCKET=/var/run/postgresql REPO=/var/lib/pgbackrest CONFIG=/etc/pgbackrest/pgbackrest.conf
STANZA=till RESTART=no
PG_BIN="${TILL_PG_BIN:-/usr/lib/postgresql/15/bin}"
while [ $# -gt 0 ]; do
  case "$1" in
    --pgdata) PGDATA="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --socket) SOCKET="$2"; shift 2 ;;
    --repo) REPO="$2"; shift 2 ;;
    --config) CONFIG="$2"; shift 2 ;;
    --stanza) STANZA="$2"; shift 2 ;;
    --restart) RESTART=yes; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$PGDATA" ] || { echo "setup.sh: --pgdata is required (see --help)" >&2; exit 2; }
command -v pgbackrest >/dev/null || { echo "setup.sh: pgbackrest is not installed (Debian: apt-get install pgbackrest)" >&2; exit 1; }

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
sql() { as_postgres psql -X -q -At -h "$SOCKET" -p "$PORT" -U postgres -d postgres -c "$1"; }
HERE="$(cd "$(dirname "$0")" && pwd)"
BASE="$(dirname "$CONFIG")"

# the configuration, and the directories it names, owned by postgres
mkdir -p "$BASE" "$REPO" "$BASE/spool" "$BASE/lock" "$BASE/log"
sed -e "s#@REPO@#$REPO#" -e "s#@SPOOL@#$BASE/spool#" -e "s#@LOCK@#$BASE/lock#" -e "s#@LOG@#$BASE/log#" \
  -e "s#@STANZA@#$STANZA#" -e "s#@PGDATA@#$PGDATA#" -e "s#@PGPORT@#$PORT#" -e "s#@PGSOCKET@#$SOCKET#" \
  "$HERE/pgbackrest.conf.template" > "$CONFIG"
if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$REPO" "$BASE"; fi
chmod 750 "$REPO"
chmod 640 "$CONFIG"

# archiving on: every completed WAL segment (and at least one a minute when writes are rare) goes to the repository
before="$(sql "SHOW archive_mode")"
sql "ALTER SYSTEM SET wal_level = 'replica'"
sql "ALTER SYSTEM SET archive_mode = 'on'"
sql "ALTER SYSTEM SET archive_command = 'pgbackrest --config=$CONFIG --stanza=$STANZA archive-push %p'"
sql "ALTER SYSTEM SET archive_timeout = '60s'"
sql "SELECT pg_reload_conf()" >/dev/null
if [ "$before" != "on" ] || [ "$(sql "SHOW wal_level")" = "minimal" ]; then
  if [ "$RESTART" = yes ]; then
    as_postgres "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 120 restart >/dev/null
  else
    echo "setup.sh: archive_mode changes at a restart: restart PostgreSQL, then run this again" >&2
    exit 3
  fi
fi

pgb() { as_postgres pgbackrest --config="$CONFIG" --stanza="$STANZA" "$@"; }
pgb stanza-create
# a WAL segment switched and seen in the repository: archiving works end to end
pgb check
pgb --type=full backup
pgb info
