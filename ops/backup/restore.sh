#!/usr/bin/env bash
# Point-in-time restore of till's PostgreSQL from the pgBackRest repository into an empty data directory: the newest
# backup taken before the target, then the archived WAL replayed up to it; the cluster is promoted when it gets
# there. Start it with pg_ctl (or point a Debian cluster's data_directory at it) afterwards.
#
#   ops/backup/restore.sh --into /var/lib/postgresql/15/restored --target "2026-11-29 10:15:00+00"
#                         [--config /etc/pgbackrest/pgbackrest.conf] [--stanza till] [--no-archiving]
#
# Without --target it restores to the end of the archived WAL. --no-archiving leaves archiving off in the restored
# cluster: for a drill or a copy beside the running primary, which must not push its WAL into the same repository.
# Runs as root (pgBackRest then runs as `postgres`) or as `postgres`.
set -euo pipefail

INTO="" TARGET="" CONFIG=/etc/pgbackrest/pgbackrest.conf STANZA=till ARCHIVING=preserve
while [ $# -gt 0 ]; do
  case "$1" in
    --into) INTO="$2"; shift 2 ;;
    --target) TARGET="$2"; shift 2 ;;
    --config) CONFIG="$2"; shift 2 ;;
    --stanza) STANZA="$2"; shift 2 ;;
    --no-archiving) ARCHIVING=off; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "restore.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$INTO" ] || { echo "restore.sh: --into is required (see --help)" >&2; exit 2; }
if [ -d "$INTO" ] && [ -n "$(ls -A "$INTO")" ]; then echo "restore.sh: $INTO is not empty" >&2; exit 1; fi

as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$INTO"
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$INTO"; fi
chmod 700 "$INTO"

args=(--config="$CONFIG" --stanza="$STANZA" --pg1-path="$INTO" --archive-mode="$ARCHIVING")
if [ -n "$TARGET" ]; then args+=(--type=time --target="$TARGET" --target-action=promote); fi
as_postgres pgbackrest "${args[@]}" restore
