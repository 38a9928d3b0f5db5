package outfile

import (
	"os"
	"os/signal"
	"syscall"
)

// HandleSignals makes SIGINT and SIGTERM remove every temporary file in
// flight and exit with status 128+signal (130, 143), as a shell reports a
// process killed by it. Deferred cleanups do not run on such an exit, so
// the files are tracked here. stop restores the default handling.
func HandleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			removeTemps()
			code := 128 + 2
			if sig == syscall.SIGTERM {
				code = 128 + 15
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
