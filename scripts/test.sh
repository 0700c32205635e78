#!/usr/bin/env bash
# test.sh FUZZ_TARGET...: make test's runs after its static gates and its
# build of the binary, under with-tools.sh, with-pg.sh and with-chromium.sh
# (docs/testing.md). The Makefile exports make test's one compilation mode
# (CGO_ENABLED=0, GOFLAGS=-trimpath '-ldflags=-s -w': the image's build,
# linked without DWARF and symbol table), which every go command below and
# in the tests shares.
# Two at once, since many tests wait (on servers, timers, child processes)
# and leave a core idle:
#   - go test $TESTFLAGS -vet=all: the tests of $PKGS, and make check's vet
#     with every analyzer; then the packages without tests, vetted (go test
#     -o, below, refuses two packages with one last element, and bench/
#     repeats domain/'s names, without tests); then the fuzz targets
#     (scripts/fuzz.sh: FUZZTIME unguided inputs each) on the tests' own
#     binaries. One go command, so that no dependency is compiled or
#     vetted twice at the same time;
#   - the build with every cloud driver ($ALL_TAGS) resolved (its files
#     only import the drivers: go list finds a missing module or go.sum
#     line without compiling the cloud SDKs, which make check vets), then
#     the deploy module's and the Go SDK module's vet and tests.
# The first's output streams; the second prints once it ends. Fails if
# either fails.
# The test binaries are kept between runs, one directory per checkout in
# the user's cache: go test -o DIR/ links a package's test binary only when
# it is out of date (its build ID is that of the sources), and links were
# the largest part of a warm run.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GO

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
bins="${XDG_CACHE_HOME:-$HOME/.cache}/haulgraph-test-bin/tests-$(printf '%s' "$PWD" | sha256sum | cut -c1-12)"
mkdir -p "$bins"

# shellcheck disable=SC2086 # PKGS is a list
"$GO" list -f '{{if or .TestGoFiles .XTestGoFiles}}tested{{end}} {{.ImportPath}}' ${PKGS:-./...} >"$logs/list"
awk '$1 == "tested" { print $2 }' "$logs/list" | sort >"$logs/pkgs"
awk 'NF == 1' "$logs/list" >"$logs/untested"

(
  set -e
  "$GO" list -deps -tags "${ALL_TAGS:-}" ./cmd/haulgraph >/dev/null
  # go vet covers the tests' files too: go test's own vet would analyze
  # every dependency (Kubernetes' API) a second time.
  cd deploy
  "$GO" vet ./...
  "$GO" test ${TESTFLAGS:-} -vet=off ./...
  cd ../sdk/haulgraph
  GOWORK=off "$GO" vet ./...
  GOWORK=off "$GO" test ${TESTFLAGS:-} -vet=off ./...
) >"$logs/modules" 2>&1 &
modules=$!

# The targets of the packages tested (scripts' TestFuzzTargetsExist checks
# that each names a target of its package).
module=$("$GO" list -m)
targets=()
for t in "$@"; do
  dir=${t%%:*}
  if grep -qxF "$module/${dir#./}" "$logs/pkgs"; then targets+=("$t"); fi
done

status=0
# shellcheck disable=SC2046,SC2086 # TESTFLAGS and the packages are lists
"$GO" test ${TESTFLAGS:-} -vet=all -o "$bins/" $(cat "$logs/pkgs") || status=1
# Vetted after the tests, when their dependencies' facts are in the cache.
# shellcheck disable=SC2046 # a list
[ ! -s "$logs/untested" ] || "$GO" test -vet=all $(cat "$logs/untested") || status=1
if [ ${#targets[@]} -gt 0 ]; then
  FUZZ_GUIDED=no FUZZ_BINS="$bins" ./scripts/fuzz.sh "${targets[@]}" || status=1
fi

if wait "$modules"; then result=ok; else result=FAIL; status=1; fi
echo "--- modules: $result"
cat "$logs/modules"
exit $status
