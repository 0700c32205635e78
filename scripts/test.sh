#!/usr/bin/env bash
# test.sh FUZZ_TARGET...: make test's runs after its static gates and its
# build of the binary, under with-tools.sh, with-pg.sh and with-chromium.sh
# (docs/testing.md). The Makefile exports make test's one compilation mode
# (CGO_ENABLED=0, GOFLAGS=-trimpath: the image's build), which every go
# command below and in the tests shares; only the race detector compiles
# again. Four at once, since many tests wait (on servers, timers, child
# processes) and leave a core idle:
#   - go test $TESTFLAGS -vet=all $PKGS: the tests, and make check's vet
#     with every analyzer;
#   - go test -race over $RACE_PKGS, the packages whose tests run goroutines
#     against each other (the race detector needs cgo);
#   - the vet of the build with every cloud driver ($ALL_TAGS), then the
#     deploy module's and the Go SDK module's vet and tests;
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

# shellcheck disable=SC2086 # TESTFLAGS and RACE_PKGS are lists
CGO_ENABLED=1 "$GO" test -race ${TESTFLAGS:-} ${RACE_PKGS:-} >"$logs/race" 2>&1 &
race=$!
(
  set -e
  "$GO" vet -tags "${ALL_TAGS:-}" ./cmd/haulgraph
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

for side in race modules fuzz; do
  if wait "${!side}"; then result=ok; else result=FAIL; status=1; fi
  echo "--- $side: $result"
  cat "$logs/$side"
done
exit $status
