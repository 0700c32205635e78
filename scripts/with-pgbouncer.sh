#!/usr/bin/env bash
# with-pgbouncer.sh CMD...: runs CMD behind a PgBouncer in transaction mode in
# front of the PostgreSQL that DATABASE_URL names on a Unix socket (as
# with-pg.sh sets it; run under it). PgBouncer gets a directory of its own
# next to the cluster's socket (one per run, removed on exit), listens only
# on a Unix socket there, and knows the cluster's login roles (trust, as the
# cluster). CMD sees:
#   DATABASE_URL                   the same database through PgBouncer
#   HAULGRAPH_DIRECT_DATABASE_URL  the server itself (the DATABASE_URL given)
#   HAULGRAPH_POOLER=pgbouncer
#   HAULGRAPH_PGBOUNCER_ADMIN_URL  PgBouncer's admin console (SHOW POOLS, SHOW STATS)
# HAULGRAPH_PGBOUNCER_POOL_SIZE sets default_pool_size (server connections
# per database and user; default 10). Debian's pgbouncer is installed when
# missing (as with-pg.sh installs postgresql) when running as root.
set -euo pipefail

url="${DATABASE_URL:?with-pgbouncer: DATABASE_URL is not set (run under scripts/with-pg.sh)}"
sock=$(printf '%s' "$url" | sed -n 's/.*[?&]host=\([^&]*\).*/\1/p')
pgport=$(printf '%s' "$url" | sed -n 's/.*[?&]port=\([^&]*\).*/\1/p')
pgport="${pgport:-5432}"
db=$(printf '%s' "$url" | sed -n 's|^postgres[a-z]*://[^/]*/\([^?]*\).*|\1|p')
if [ -z "$sock" ] || [ ! -d "$sock" ] || [ -z "$db" ]; then
  echo "with-pgbouncer: DATABASE_URL must name a database on a Unix socket directory (host=...), as with-pg.sh sets it; got $url" >&2
  exit 1
fi

bin=$(command -v pgbouncer || { [ -x /usr/sbin/pgbouncer ] && echo /usr/sbin/pgbouncer; } || true)
if [ -z "$bin" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "with-pgbouncer: installing Debian's pgbouncer package" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >&2
    bin=/usr/sbin/pgbouncer
  else
    echo "with-pgbouncer: pgbouncer not found: install it (Debian: apt-get install pgbouncer)" >&2
    exit 1
  fi
fi
psql=$(command -v psql || ls -d /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V -r | head -1)

# PgBouncer refuses to run as root: as the cluster, it runs as postgres then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

dir=$(mktemp -d "$(dirname "$sock")/pgbouncer.XXXXXX")
[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
port=6432
# Login roles of the cluster, trusted as the cluster trusts them.
"$psql" -h "$sock" -p "$pgport" -U postgres -d postgres -tAc \
  "SELECT format('\"%s\" \"\"', rolname) FROM pg_roles WHERE rolcanlogin" >"$dir/userlist.txt"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$sock port=$pgport

[pgbouncer]
pool_mode = transaction
listen_port = $port
unix_socket_dir = $dir
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
stats_users = postgres
default_pool_size = ${HAULGRAPH_PGBOUNCER_POOL_SIZE:-10}
max_client_conn = 1000
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir"

as_pg "$bin" "$dir/pgbouncer.ini" >/dev/null 2>&1 &
bouncer=$!
stop() {
  # SIGINT to PgBouncer itself (its pidfile; runuser would not pass it on):
  # it stops once its clients have gone.
  [ -s "$dir/pgbouncer.pid" ] && kill -INT "$(cat "$dir/pgbouncer.pid")" 2>/dev/null
  wait "$bouncer" 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
deadline=$((SECONDS + 30))
until "$psql" -h "$dir" -p "$port" -U postgres -d pgbouncer -tAc "SHOW VERSION" >/dev/null 2>&1; do
  if ! kill -0 "$bouncer" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
    echo "with-pgbouncer: PgBouncer did not start:" >&2
    tail -20 "$dir/pgbouncer.log" >&2 || true
    exit 1
  fi
  sleep 0.05
done

export HAULGRAPH_DIRECT_DATABASE_URL="$url"
export DATABASE_URL="postgres://postgres@/$db?host=$dir&port=$port&sslmode=disable"
export HAULGRAPH_PGBOUNCER_ADMIN_URL="postgres://postgres@/pgbouncer?host=$dir&port=$port&sslmode=disable&default_query_exec_mode=simple_protocol"
export HAULGRAPH_POOLER=pgbouncer
# As with-pg.sh: CMD runs as a child that gets SIGTERM and SIGINT from here;
# once it has exited, the EXIT trap stops PgBouncer.
"$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM
trap 'kill -INT "$child" 2>/dev/null || true' INT
while :; do
  status=0
  wait "$child" || status=$?
  kill -0 "$child" 2>/dev/null && continue # a trapped signal interrupted wait
  status=0
  wait "$child" 2>/dev/null || status=$?
  break
done
exit "$status"
