#!/usr/bin/env bash
# with-pg.sh CMD...: runs CMD with DATABASE_URL pointing at a PostgreSQL.
# When DATABASE_URL is already set it is used as is. Otherwise a private cluster
# lives under .data/pg (initdb once, then reused), listens only on a Unix socket
# in .data/run (so it never collides with a system server), and is stopped again
# on exit if, and only if, this script started it.
# It also marks the demo: HAULGRAPH_DEMO_DIR (the absolute .data of this
# checkout unless already set) is where the demo's generated encryption key and
# client live, so the server and the CLI find the same key from any directory.
# HAULGRAPH_PG_MEMORY=yes (make test, race and fuzz) keeps the cluster in
# memory, in a directory of /dev/shm named after the checkout, when /dev/shm
# is a tmpfs with 4 GiB free (else under .data): the tests create and drop a
# database each, hundreds of files apiece, and on a disk file creation is
# most of the cluster's work (on ext4 without a journal, every new file scans
# the recently deleted inodes: a third of a test run's CPU time). The tests'
# clusters of their own (storage/pgcluster) then live there too.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
checkout=$(printf '%s' "$root" | sha256sum | cut -c1-12) # names this checkout's homes outside it
data="${HAULGRAPH_PG_DIR:-$root/.data}" # HAULGRAPH_PG_DIR: another home for the cluster (tests)
if [ -z "${HAULGRAPH_PG_DIR:-}" ] && [ "${HAULGRAPH_PG_MEMORY:-}" = yes ] &&
  [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
  [ "$(df -P -k /dev/shm | awk 'NR == 2 { print $4 }')" -ge $((4 * 1024 * 1024)) ]; then
  data="/dev/shm/haulgraph-pg-$checkout"
  memory=yes
fi
unset HAULGRAPH_PG_MEMORY # this cluster's choice, not its commands'
export HAULGRAPH_DEMO_DIR="${HAULGRAPH_DEMO_DIR:-$root/.data}"

if [ -n "${DATABASE_URL:-}" ]; then exec "$@"; fi
pgdata="$data/pg"
sock="$data/run"

find_bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && { echo "$d"; return; }
  done
  command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

bindir=$(find_bindir || true)
if [ -z "$bindir" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "with-pg: installing Debian's postgresql package" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    bindir=$(find_bindir)
  else
    echo "with-pg: PostgreSQL server binaries not found: install PostgreSQL (Debian: apt-get install postgresql) or set DATABASE_URL" >&2
    exit 1
  fi
fi

# PostgreSQL refuses to run as root: run it as the postgres user then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

mkdir -p "$data"
# The tests' clusters of their own (storage/pgcluster) go beside this one.
if [ "${memory:-}" = yes ]; then export HAULGRAPH_PG_SCRATCH="$data"; fi
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
  # A checkout the postgres user cannot reach (say under /root) keeps its
  # cluster in a private directory of its own under /var/tmp, linked from .data.
  if ! runuser -u postgres -- test -x "$data"; then
    alt="/var/tmp/haulgraph-pg-$checkout"
    mkdir -p "$alt" && chown postgres:postgres "$alt" && chmod 700 "$alt"
    pgdata="$alt/pg"
    sock="$alt/run"
    mkdir -p "$alt/log" && chown postgres:postgres "$alt/log"
  fi
fi
logdir=$(dirname "$sock")/log
if [ ! -s "$pgdata/PG_VERSION" ]; then
  mkdir -p "$pgdata" "$sock"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$pgdata" "$sock"
  true
  chmod 700 "$pgdata"
  as_pg "$bindir/initdb" -D "$pgdata" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$data/initdb.log" 2>&1 ||
    { cat "$data/initdb.log" >&2; exit 1; }
  cat >>"$pgdata/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sock'
max_connections = 300
shared_buffers = 256MB
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
fi
mkdir -p "$sock" "$logdir"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$sock" "$logdir"

started=0
if ! as_pg "$bindir/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
  as_pg "$bindir/pg_ctl" -D "$pgdata" -l "$logdir/postgres.log" -w -t 60 start >/dev/null ||
    { tail -20 "$logdir/postgres.log" >&2; exit 1; }
  started=1
fi
stop() { [ "$started" = 1 ] && as_pg "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true; }
trap stop EXIT

if ! "$bindir/psql" -h "$sock" -U postgres -d postgres -tAc "select 1 from pg_database where datname='haulgraph'" | grep -q 1; then
  "$bindir/psql" -h "$sock" -U postgres -d postgres -qc "create database haulgraph" >/dev/null
fi

export DATABASE_URL="postgres://postgres@/haulgraph?host=$sock&sslmode=disable"
# The command runs as a child that receives SIGTERM and SIGINT from here (a
# supervisor or make signals only this script): once it has exited, the EXIT
# trap stops the cluster and its status is this script's.
"$@" <&0 &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM
trap 'kill -INT "$child" 2>/dev/null || true' INT
while :; do
  status=0
  wait "$child" || status=$?
  kill -0 "$child" 2>/dev/null && continue # a trapped signal interrupted wait
  status=0
  wait "$child" 2>/dev/null || status=$? # the child's own status
  break
done
exit "$status"
