#!/usr/bin/env bash
# fuzz.sh PKG:FUNC...: fuzzes each target for FUZZTIME (make fuzz-targets).
# A target its package lacks fails before anything is fuzzed (go test -fuzz
# would say "no fuzz tests to fuzz" and pass). Each package's test binary is
# built once and runs all of its targets, as go test -fuzz would run it: in
# the package's directory, with the fuzz cache under GOCACHE; a failing input
# lands in the package's testdata/fuzz/.
#
# FUZZ_GUIDED=yes (make fuzz): the binary is built with go test -fuzz's
# coverage instrumentation, which guides the mutations. FUZZ_GUIDED=no
# (make test): the plain test binary of the build the tests compile anyway,
# mutating the corpus without guidance; FUZZ_BINS names a directory where
# go test -o left those binaries (PKG's as <last element of PKG>.test), so
# that nothing is linked again.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-2000x}
FUZZ_GUIDED=${FUZZ_GUIDED:-yes}

for t in "$@"; do
  pkg=${t%%:*} fn=${t##*:}
  if ! grep -qsE "^func $fn\(\w+ \*testing\.F\)" "$pkg"/*_test.go; then
    echo "FAIL $pkg $fn: no such fuzz target in $pkg"
    exit 1
  fi
done

bins=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$bins" "$out"' EXIT
cache=$("$GO" env GOCACHE)/fuzz
module=$("$GO" list -m)
for t in "$@"; do
  pkg=${t%%:*} fn=${t##*:}
  bin=$bins/$(printf '%s' "$pkg" | tr -c 'A-Za-z0-9' _).test
  if [ -n "${FUZZ_BINS:-}" ]; then
    bin=$FUZZ_BINS/$(basename "$pkg").test
  elif [ ! -x "$bin" ]; then
    instrument=()
    if [ "$FUZZ_GUIDED" = yes ]; then
      instrument=(-fuzz "^$fn\$")
    fi
    if ! "$GO" test -c "${instrument[@]}" -o "$bin" "$pkg" >"$out" 2>&1; then
      cat "$out"; echo "FAIL $pkg: build"; exit 1
    fi
  fi
  importpath=$module/${pkg#./}
  start=$(date +%s.%N)
  if (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^$fn\$" -test.fuzztime "$FUZZTIME" \
      -test.fuzzcachedir "$cache/$importpath" -test.paniconexit0) >"$out" 2>&1; then
    echo "ok   $pkg $fn ($(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'))"
  else
    grep -v '^fuzz: elapsed\|^warning: the test binary was not built with coverage' "$out"; echo "FAIL $pkg $fn"; exit 1
  fi
done
