//go:build race

package board_test

// raceSlowdown scales the board's 2 s display bound under the race
// detector, which makes the server and the event path several times slower
// than the product build the bound is for.
const raceSlowdown = 5
