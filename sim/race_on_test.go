//go:build race

package sim

// raceSlowdown scales the time bounds of tests that measure: the race
// detector makes the checkers about ten times slower.
const raceSlowdown = 12
