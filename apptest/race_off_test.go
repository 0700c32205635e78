//go:build !race

package apptest_test

const raceSlowdown = 1
