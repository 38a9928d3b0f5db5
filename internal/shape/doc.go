// Package shape holds tests of the repository's shape that no compiler
// checks: today, that no function of the module is over 70 lines, but
// those its allowlist names until they are split, so that a long function
// is split into named steps when it is written, not in a later clean-up
// (docs/contributing.md#before-a-commit).
package shape
