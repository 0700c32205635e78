//go:build !race

package board_test

const raceSlowdown = 1
