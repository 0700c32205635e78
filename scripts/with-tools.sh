#!/usr/bin/env bash
# with-tools.sh CMD...: runs CMD once the command-line tools README.md's
# examples use (curl, jq, python3; readme/TestREADME runs them), the deploy
# tests' systemd-analyze (deploy/systemd_test.go) and the load balancers the
# proxy tests start (haproxy, nginx; lbtest) and the message brokers the
# event-destination tests start (nats-server, rabbitmq-server; brokertest)
# are installed.
# Missing ones are installed from Debian's packages when running as root with
# apt-get, as with-pg.sh installs PostgreSQL.
set -euo pipefail

missing=()
for tool in curl jq python3 systemd-analyze; do
  pkg=${tool/systemd-analyze/systemd} # the Debian package
  command -v "$tool" >/dev/null 2>&1 || missing+=("$pkg")
done
for tool in haproxy nginx nats-server rabbitmq-server; do # in /usr/sbin, often off a user's PATH
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "with-tools: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "with-tools: ${missing[*]} not found: install them (Debian: apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi
exec "$@"
