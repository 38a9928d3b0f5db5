package outfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// HandleSignals makes SIGINT and SIGTERM remove every temporary file in
// flight and exit with status 128+signal (130, 143), as a shell reports a
// process killed by it. Deferred cleanups do not run on such an exit, so
// the files are tracked here. While a command has asked for the signal
// (OnInterrupt), the first one is handed to it instead, and only a second
// one exits. stop restores the default handling.
func HandleSignals() (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if code, exit := deliver(sig); exit {
					removeTemps()
					os.Exit(code)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// interrupt is the command's claim on the next signal.
var interrupt struct {
	mu      sync.Mutex
	stop    func() // nil: no command asked
	claimed int    // the exit status of a signal handed to stop; 0: none
}

// OnInterrupt hands the next SIGINT or SIGTERM to stop instead of
// exiting: a command that can end early and still report what it did
// (fuzz, explore) stops handing out runs, lets the started ones finish,
// prints its report and writes its files, then exits with Interrupted's
// status. A second signal exits at once, as without. release withdraws the
// claim; Interrupted still reports a signal taken before.
func OnInterrupt(stop func()) (release func()) {
	interrupt.mu.Lock()
	interrupt.stop, interrupt.claimed = stop, 0
	interrupt.mu.Unlock()
	return func() {
		interrupt.mu.Lock()
		interrupt.stop = nil
		interrupt.mu.Unlock()
	}
}

// Interrupted is the exit status of the signal an OnInterrupt took (130
// for SIGINT, 143 for SIGTERM), or 0 if none came.
func Interrupted() int {
	interrupt.mu.Lock()
	defer interrupt.mu.Unlock()
	return interrupt.claimed
}

// deliver acts on one signal: handed to the command that asked for it the
// first time, or the status to exit with.
func deliver(sig os.Signal) (code int, exit bool) {
	code = 128 + 2
	if sig == syscall.SIGTERM {
		code = 128 + 15
	}
	interrupt.mu.Lock()
	stop := interrupt.stop
	if stop == nil || interrupt.claimed != 0 {
		interrupt.mu.Unlock()
		return code, true
	}
	interrupt.claimed = code
	interrupt.mu.Unlock()
	stop()
	return 0, false
}
