// Package shape holds tests of the repository's shape that no compiler
// checks: today, that no function of the simulator layer (sim, trace,
// bench, cmd) is over 70 lines, so that a long function is split into
// named steps when it is written, not in a later clean-up
// (docs/contributing.md#before-a-commit).
package shape
