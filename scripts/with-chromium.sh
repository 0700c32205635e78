#!/usr/bin/env bash
# with-chromium.sh CMD...: runs CMD with HAULGRAPH_CHROMIUM naming a headless
# Chromium for the browser tests (board/). When HAULGRAPH_CHROMIUM is unset
# and no chromium is on PATH, Debian's chromium package is installed (as
# with-pg.sh installs postgresql) when running as root with apt-get.
set -euo pipefail

find_chromium() {
  local name
  for name in chromium chromium-browser google-chrome; do
    command -v "$name" 2>/dev/null && return 0
  done
  return 1
}

if [ -z "${HAULGRAPH_CHROMIUM:-}" ]; then
  bin=$(find_chromium || true)
  if [ -z "$bin" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "with-chromium: installing Debian's chromium package" >&2
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
      bin=$(find_chromium)
    else
      echo "with-chromium: Chromium not found: install it (Debian: apt-get install chromium) or set HAULGRAPH_CHROMIUM" >&2
      exit 1
    fi
  fi
  export HAULGRAPH_CHROMIUM="$bin"
fi
exec "$@"
