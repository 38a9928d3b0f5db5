package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/cbcsim/cbcsim/internal/outfile"
)

// interruptible hands the first SIGINT or SIGTERM to a command that can
// end early and still report what it did (fuzz, explore): ctx is done
// when it comes, and the command stops handing out runs, lets the started
// ones finish, and prints and writes its report. finish, given the
// command's error once its report is out, releases the signal and turns an
// interrupt into exit status 130 (SIGINT) or 143 (SIGTERM), as a shell
// reports it, unless a run failed (status 1 says more: the failure is
// reported and its repro written). A second signal exits at once
// (outfile.HandleSignals).
func interruptible() (ctx context.Context, finish func(err error) error) {
	ctx, cancel := context.WithCancel(context.Background())
	release := outfile.OnInterrupt(cancel)
	return ctx, func(err error) error {
		release()
		cancel()
		code := outfile.Interrupted()
		var ee *exitError
		if code == 0 || (errors.As(err, &ee) && ee.code == 1) {
			return err
		}
		const what = "interrupted: the report above covers the runs made before the signal"
		if err == nil {
			return &exitError{code: code, err: errors.New(what)}
		}
		return &exitError{code: code, err: fmt.Errorf("%w (%s)", err, what)}
	}
}
