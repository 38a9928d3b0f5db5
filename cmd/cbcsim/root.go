package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is the cbcsim release; the trace header carries its own format version.
const version = "0.1.0-dev"

// exitError carries an exit status through cobra's RunE. Status 1 means a
// run broke an invariant or expectation; status 2 means bad input.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput wraps err as a bad-input failure (exit status 2).
func badInput(err error) error { return &exitError{code: 2, err: err} }

// withOutputError joins an output that could not be written (outErr: a
// report, a repro, a corpus entry) to the command's verdict. A failure
// found (exit status 1) is never masked by it: the status stays 1 and
// the message names both; otherwise the output error is the command's
// error (exit status 2 when it is bad input, else 2 as any error).
// docs/reliability.md#exit-status-when-an-output-fails states the rule.
func withOutputError(verdict, outErr error) error {
	if outErr == nil {
		return verdict
	}
	var ee *exitError
	if errors.As(verdict, &ee) && ee.code == 1 {
		return &exitError{code: 1, err: fmt.Errorf("%w; besides, %v", ee.err, outErr)}
	}
	if verdict != nil {
		return fmt.Errorf("%w; besides, %v", verdict, outErr)
	}
	return outErr
}

// errLeanNeedsReal is run's and check's refusal of --lean without --real.
var errLeanNeedsReal = errors.New("--lean needs --real: the seeded simulator already runs a Go program's code path (lean nurseries, reuse; docs/nursery.md)")

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "cbcsim",
		Short:         "Deterministic simulation and replay of the CBC-MN scheduler",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("cbcsim version {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd())
	}
	return root
}

// subcommands are the constructors of the subcommands. Each subcommand's
// file adds its own from init (`func init() { subcommand(newRunCmd) }`),
// so that adding a subcommand is one file; cobra lists them by name, so
// the order they are added in shows nowhere.
var subcommands []func() *cobra.Command

func subcommand(newCmd func() *cobra.Command) { subcommands = append(subcommands, newCmd) }

// execute runs the CLI and maps errors to exit statuses: 0 success, 1 a
// failed run, 2 bad input (including bad flags).
//
// CBCSIM_MUTANT=NAME switches a mutant on in a binary built with the
// mutants tag (docs/mutants.md); a binary without the tag refuses it.
func execute(args []string, stdout, stderr io.Writer) int {
	if err := mutantFromEnv(os.Getenv("CBCSIM_MUTANT"), stderr); err != nil {
		fmt.Fprintln(stderr, "cbcsim:", err)
		return 2
	}
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "cbcsim:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "cbcsim:", err)
	return 2
}
