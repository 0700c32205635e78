#!/usr/bin/env bash
# build-image.sh [OUT]: HaulGraph's OCI image as an OCI layout tar at OUT
# (default bin/haulgraph-image.tar), without a container daemon or a
# registry (deploy/cmd/ociimage): the static binary (CGO_ENABLED=0,
# -trimpath, the TAGS build tags), Debian's CA certificates, a non-root
# user, /tmp and the user's data directory for documents, nothing else. VERSION names the release (default: git describe);
# SOURCE_DATE_EPOCH stamps every file (default: the commit's time), so the
# same tree gives the same image digest, which it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
out=${1:-bin/haulgraph-image.tar}
certs=/etc/ssl/certs/ca-certificates.crt
if [ ! -s "$certs" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "build-image: installing ca-certificates" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ca-certificates >&2
  else
    echo "build-image: $certs not found: install ca-certificates" >&2
    exit 1
  fi
fi
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
revision=$(git rev-parse HEAD 2>/dev/null || true)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 "$GO" build -trimpath -tags "${TAGS:-}" -ldflags "-X main.version=$version" -o "$work/haulgraph" ./cmd/haulgraph
cd deploy
"$GO" run ./cmd/ociimage -binary "$work/haulgraph" -certs "$certs" -version "$version" -revision "$revision" -out "$out"
