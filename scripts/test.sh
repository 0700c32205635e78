#!/usr/bin/env bash
# test.sh FUZZ_TARGET...: make test's runs after its static gates, under
# with-tools.sh, with-pg.sh and with-chromium.sh (docs/testing.md). Three at
# once, since many tests wait (on servers, timers, child processes) and
# leave a core idle:
#   - go test $TESTFLAGS -vet=all $PKGS: the tests, and make check's vet
#     with every analyzer, type-checked against the race build the tests
#     compile anyway;
#   - the vet of the build with every cloud driver ($ALL_TAGS), then the
#     deploy module's and the Go SDK module's vet and tests;
#   - the fuzz targets (scripts/fuzz.sh, FUZZTIME inputs each).
# The go test output streams; the other two print once they end. Fails if
# any of the three fails.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GO

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

(
  set -e
  "$GO" vet -trimpath -tags "${ALL_TAGS:-}" ./cmd/haulgraph
  cd deploy
  "$GO" vet ./...
  "$GO" test -count=1 -timeout 30m ./...
  cd ../sdk/haulgraph
  GOWORK=off "$GO" vet ./...
  GOWORK=off "$GO" test -race -count=1 ./...
) >"$logs/deploy" 2>&1 &
deploy=$!
./scripts/fuzz.sh "$@" >"$logs/fuzz" 2>&1 &
fuzz=$!

status=0
# shellcheck disable=SC2086 # TESTFLAGS and PKGS are lists
"$GO" test ${TESTFLAGS:-} -vet=all ${PKGS:-./...} || status=1

for side in deploy fuzz; do
  if wait "${!side}"; then result=ok; else result=FAIL; status=1; fi
  echo "--- $side: $result"
  cat "$logs/$side"
done
exit $status
