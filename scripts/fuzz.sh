#!/usr/bin/env bash
# fuzz.sh PKG:FUNC...: fuzzes each target for FUZZTIME (make fuzz-targets).
# A target its package lacks fails before anything is fuzzed (go test -fuzz
# would say "no fuzz tests to fuzz" and pass). Each package's instrumented
# test binary is built once (go test -c -fuzz) and runs all of its targets,
# as go test -fuzz would run it: in the package's directory, with the fuzz
# cache under GOCACHE; a failing input lands in the package's testdata/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-5000x}

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
  if [ ! -x "$bin" ]; then
    # -trimpath: the same compilations for every checkout of the tree.
    if ! "$GO" test -c -trimpath -fuzz "^$fn\$" -o "$bin" "$pkg" >"$out" 2>&1; then
      cat "$out"; echo "FAIL $pkg: build"; exit 1
    fi
  fi
  importpath=$module/${pkg#./}
  start=$(date +%s.%N)
  if (cd "$pkg" && "$bin" -test.run '^$' -test.fuzz "^$fn\$" -test.fuzztime "$FUZZTIME" \
      -test.fuzzcachedir "$cache/$importpath" -test.paniconexit0) >"$out" 2>&1; then
    echo "ok   $pkg $fn ($(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'))"
  else
    grep -v '^fuzz: elapsed' "$out"; echo "FAIL $pkg $fn"; exit 1
  fi
done
