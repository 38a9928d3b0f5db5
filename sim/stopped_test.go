package sim

import (
	"runtime"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// stoppedSrc deadlocks with main and four receivers suspended in their
// fibers, and a yielding task that makes the run a livelock when
// max_steps is small: every run of it is stopped by the driver.
const stoppedSrc = `version = 1
name = "stopped"

[scheduler]
max_steps = 400

[channels]
c = { capacity = 0 }

[task.main]
ops = [ { nursery = "n", body = [ { spawn = "receiver" }, { spawn = "receiver" }, { spawn = "receiver" }, { spawn = "receiver" }, { spawn = "spinner" } ] } ]

[task.receiver]
ops = [ { recv = "c" } ]

[task.spinner]
ops = [ { loop = 3, body = [ { yield = true } ] } ]
`

// TestStoppedRunsReleaseFibers runs 1,000 runs stopped by deadlock or
// livelock under the default seeded mode, which keeps no task, and checks
// that the goroutines of the suspended fibers are gone afterwards: Abort
// must reach every fiber without a kept task list.
func TestStoppedRunsReleaseFibers(t *testing.T) {
	sc, err := scenario.Parse("stopped", []byte(stoppedSrc))
	if err != nil {
		t.Fatal(err)
	}
	before := goroutines()
	const runs = 1000
	stopped := 0
	for i := 0; i < runs; i++ {
		o := Options{Seed: uint64(i), HasSeed: true, Workers: 1 + i%4}
		if i%2 == 1 {
			o.MaxSteps = 20 // stopped mid-run: a livelock
		}
		c, err := Resolve(sc, o)
		if err != nil {
			t.Fatal(err)
		}
		if c.Mode != ModeSeeded {
			t.Fatal("the default seeded mode keeps every task")
		}
		run, err := Execute(sc, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !run.Outcome.Ended() {
			stopped++
		}
	}
	after := goroutines()
	t.Logf("%d of %d runs stopped; goroutines before %d, after %d", stopped, runs, before, after)
	if stopped < runs*9/10 {
		t.Fatalf("only %d of %d runs were stopped", stopped, runs)
	}
	if after > before+10 {
		t.Errorf("%d goroutines left after %d stopped runs (%d before): suspended fibers were not closed", after, runs, before)
	}
}

// goroutines is the goroutine count once exiting ones have had time to go.
func goroutines() int {
	n := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return m
		}
		n = m
	}
	return n
}
