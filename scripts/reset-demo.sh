#!/usr/bin/env bash
# reset-demo.sh: removes make run's demo so that the next `make run` starts
# afresh (new cluster, new encryption key, the demo tenant seeded again):
# the private PostgreSQL cluster of with-pg.sh (every tenant, client and
# webhook in it) and the demo's generated files in HAULGRAPH_DEMO_DIR
# (encryption.key, demo-client.json, blobs/). Other files in .data stay.
# It stops nothing: while the cluster runs (make run, make test) it refuses,
# and with DATABASE_URL set it refuses too, that database not being the demo's.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data="${HAULGRAPH_PG_DIR:-$root/.data}"
demo="${HAULGRAPH_DEMO_DIR:-$root/.data}"

if [ -n "${DATABASE_URL:-}" ]; then
  echo "reset: DATABASE_URL is set; make reset removes only the private demo cluster, not that database" >&2
  exit 1
fi

# Where with-pg.sh keeps the cluster: .data, or (as root, when the postgres
# user cannot reach .data) a directory of its own under /var/tmp.
alt="/var/tmp/haulgraph-pg-$(printf '%s' "$root" | sha256sum | cut -c1-12)"
for home in "$data" "$alt"; do
  pidfile="$home/pg/postmaster.pid"
  [ -f "$pidfile" ] || continue
  pid=$(head -1 "$pidfile")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(ps -o comm= -p "$pid")" = postgres ]; then
    echo "reset: the private PostgreSQL in $home/pg is running (make run or make test?); stop it first" >&2
    exit 1
  fi
done

removed=0
remove() {
  local p
  for p in "$@"; do
    if [ -e "$p" ]; then
      rm -rf -- "$p"
      echo "reset: removed ${p#"$root"/}" >&2
      removed=1
    fi
  done
}
remove "$data/pg" "$data/run" "$data/log" "$data/initdb.log" "$alt"
remove "$demo/encryption.key" "$demo/demo-client.json" "$demo/blobs"
if [ "$removed" = 0 ]; then
  echo "reset: no demo to remove" >&2
else
  echo "reset: done; the next make run seeds the demo afresh" >&2
fi
