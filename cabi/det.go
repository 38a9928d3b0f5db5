//go:build cgo

package main

import (
	"fmt"
	"os"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
)

// detRun is a scheduler created with deterministic set. The program's own
// threads only queue top-level spawns; janus_scheduler_shutdown runs the
// whole program under the seeded driver (sim.RunBody), one step at a time on
// one goroutine, so that nothing the program's threads do while it runs
// can reach a decision: the same program, seed and worker count write the
// same trace byte for byte.
type detRun struct {
	cfg  sched.Config
	seed uint64
	path string // the trace; "" writes none
}

func newDetRun(cfg sched.Config, seed uint64, path string) (*detRun, error) {
	if path != "" {
		// Fail at create, where the program can still react, rather than
		// after the run: a directory, a missing directory, a dangling
		// link or a symlink loop (outfile.Check).
		if err := outfile.Check(path); err != nil {
			return nil, fmt.Errorf("trace_path %q cannot be written: %w", path, err)
		}
	}
	return &detRun{cfg: cfg, seed: seed, path: path}, nil
}

// source is the trace header's description of the run: the configuration,
// no paths, so that two runs of one program compare byte for byte.
func (d *detRun) source(budget sched.Budget) string {
	return fmt.Sprintf(`# A C program run through libjanus_sched.so in deterministic mode (docs/c-abi.md).
# The program itself is not in the trace: rerun it with the same seed and workers.
[scheduler]
workers = %d
profile = %q
seed = %d

[budget]
ops = %d
memory = %d
spawn_count = %d
channel_ops = %d
syscalls = %d
`, d.cfg.Workers, d.cfg.Profile.String(), d.seed, budget.Ops, budget.Memory, budget.SpawnCount, budget.ChannelOps, budget.Syscalls)
}

// run runs the program; it is called by janus_scheduler_shutdown. A run
// that does not end well (livelock, deadlock, a broken invariant, a trace
// that cannot be written) is reported on standard error: shutdown returns
// nothing.
func (d *detRun) run(cs *cSched) {
	done := make(chan struct{})
	// On a goroutine of its own: the calling thread came in from C, and a
	// cgo callback's goroutine is locked to its thread.
	go func() {
		defer close(done)
		d.runLocked(cs)
	}()
	<-done
}

func (d *detRun) runLocked(cs *cSched) {
	body := sim.Body{Name: sim.CProgramName, Source: d.source(cs.budget), Seed: d.seed, Sched: d.cfg}
	var f *sim.AtomicFile
	if d.path != "" {
		var err error
		if f, err = sim.CreateAtomic(d.path); err != nil {
			fmt.Fprintf(os.Stderr, "janus: deterministic run: writing trace: %v\n", err)
			return
		}
		body.Trace = f
	}
	r, err := sim.RunBody(body, cs.main)
	if err != nil {
		if f != nil {
			f.Abort()
		}
		fmt.Fprintf(os.Stderr, "janus: deterministic run: %v\n", err)
		return
	}
	if f != nil {
		if err := f.Commit(); err != nil {
			fmt.Fprintf(os.Stderr, "janus: deterministic run: writing trace %s: %v\n", d.path, err)
		}
	}
	switch r.Outcome {
	case sim.OutcomeLivelock, sim.OutcomeDeadlock, sim.OutcomeCrash:
		fmt.Fprintf(os.Stderr, "janus: deterministic run (seed %d): %s after %d steps %s\n", d.seed, r.Outcome, r.Steps, r.Crash)
	}
	for _, c := range r.Checks {
		if !c.OK {
			fmt.Fprintf(os.Stderr, "janus: deterministic run (seed %d): invariant %s broken: %s\n", d.seed, c.Name, c.Detail)
		}
	}
}
