//go:build !race

package sim

// raceSlowdown scales the time bounds of tests that measure (see
// race_on_test.go).
const raceSlowdown = 1
