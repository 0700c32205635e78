#!/usr/bin/env bash
# test.sh FUZZ_TARGET...: make test's runs after its static gates and its
# build of the binary, under with-tools.sh, with-pg.sh and with-chromium.sh
# (docs/testing.md). The Makefile exports make test's one compilation mode
# (CGO_ENABLED=0, GOFLAGS=-trimpath -ldflags=-w: the image's build, linked
# without DWARF), which every go command below and in the tests shares.
# Three at once, since many tests
# wait (on servers, timers, child processes) and leave a core idle:
#   - go test $TESTFLAGS -vet=all $PKGS: the tests, and make check's vet
#     with every analyzer;
#   - the build with every cloud driver ($ALL_TAGS) resolved (its files
#     only import the drivers: go list finds a missing module or go.sum
#     line without compiling the cloud SDKs, which make check vets), then
#     the deploy module's and the Go SDK module's vet and tests;
#   - the fuzz targets (scripts/fuzz.sh: FUZZTIME unguided inputs each, on
#     the test binaries of this mode).
# The go test output streams; the others print once they end. Fails if any
# of them fails.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GO

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

(
  set -e
  "$GO" list -deps -tags "${ALL_TAGS:-}" ./cmd/haulgraph >/dev/null
  cd deploy
  "$GO" vet ./...
  "$GO" test ${TESTFLAGS:-} ./...
  cd ../sdk/haulgraph
  GOWORK=off "$GO" vet ./...
  GOWORK=off "$GO" test ${TESTFLAGS:-} ./...
) >"$logs/modules" 2>&1 &
modules=$!
FUZZ_GUIDED=no ./scripts/fuzz.sh "$@" >"$logs/fuzz" 2>&1 &
fuzz=$!

status=0
# shellcheck disable=SC2086 # TESTFLAGS and PKGS are lists
"$GO" test ${TESTFLAGS:-} -vet=all ${PKGS:-./...} || status=1

for side in modules fuzz; do
  if wait "${!side}"; then result=ok; else result=FAIL; status=1; fi
  echo "--- $side: $result"
  cat "$logs/$side"
done
exit $status
