// Package hostile is an adversarial harness for the cbcsim binary: it
// builds the binary, then feeds it mutated scenarios and traces, hostile
// flags and special output paths (symlinks, FIFOs, devices, directories,
// existing files), each run under a time and a memory limit, and checks
// the tool's contract (docs/reliability.md):
//
//   - every run ends within the time limit and under the memory limit;
//   - the exit status is 0, 1 or 2, and the one the case expects;
//   - no Go stack dump reaches the output;
//   - exit status 2 comes with a located message: the file and a line,
//     or the flag, or the output path;
//   - no file is clobbered or left behind: the working directory holds
//     afterwards what it held before, plus the output the case asked for,
//     and a symlink, FIFO or device given as an output is still one.
//
// The test runs a bounded sample in `go test ./...` (and so in CI) and the
// full set with `make hostile`:
//
//	go test ./internal/hostile -run TestHostile -hostile.n 6000
//
// The inputs derive from -hostile.seed, so a violation is reproducible;
// each is reported with the command line that shows it.
package hostile
