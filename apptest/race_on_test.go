//go:build race

package apptest_test

// raceSlowdown scales the CPU bounds of the hostile-input tests under the
// race detector, which makes the server several times slower than the
// product build the bounds are for.
const raceSlowdown = 5
