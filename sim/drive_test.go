package sim

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

// TestDriveCrash: a panic inside a worker's step ends the run as a crash
// with the panic's text and a note event, and no error; the recover around
// the driver's loop must catch it as the one around each step did. The
// panic here is the history's, made to write a new task into a nil map
// once the root task is recorded: the first spawn, inside a step, panics.
func TestDriveCrash(t *testing.T) {
	t.Parallel()
	run, s, sk, ch := driveSetup(t, "version = 1\n[task.main]\nops = [ { compute = 3 }, { nursery = \"n\", body = [ { spawn = \"c\" } ] } ]\n[task.c]\nops = [ { compute = 1 } ]\n", 2)
	sk.hist.tasks = nil // the next new task panics
	step, err := drive(run, s, sk, ch)
	if err != nil {
		t.Fatalf("drive: %v", err)
	}
	if run.Outcome != OutcomeCrash || !strings.Contains(run.Crash, "nil map") {
		t.Fatalf("outcome %s, crash %q; want crash, the history's panic", run.Outcome, run.Crash)
	}
	// Main's computes come first, so the spawn's step is not the first.
	if step < 1 || sk.step != uint64(step) {
		t.Errorf("crashed at step %d (sink at %d), want the spawn's step, after main's computes", step, sk.step)
	}
	if sk.ev.Kind != trace.KindNote || sk.ev.Actor != "sim" {
		t.Errorf("last event %s by %s, want the driver's note", sk.ev.Kind, sk.ev.Actor)
	}
}

// panickyChooser picks the first ready worker, and panics at its n-th
// pick: a bug of the driver's own code. It decides in tasks, so the panic
// is raised on a task's fiber (sink.NextStep) when that step ends at a
// checkpoint.
type panickyChooser struct{ n, picks int }

func (c *panickyChooser) pick(_ int64, ready []driver.Worker) (driver.Worker, error) {
	if c.picks++; c.picks == c.n {
		panic("driver bug")
	}
	return ready[0], nil
}
func (c *panickyChooser) done(int64) error { return nil }
func (c *panickyChooser) inTask() bool     { return true }

// A panic of the driver's own code while it decides the next step on a
// task's fiber ends the run as a crash, as it would on the driver's
// goroutine, not as that task's panic (a scheduler bug must not pass for
// a scenario's failure).
func TestDriveCrashInTask(t *testing.T) {
	t.Parallel()
	run, s, sk, _ := driveSetup(t, "version = 1\n[task.main]\nops = [ { compute = 5 } ]\n", 1)
	if _, err := drive(run, s, sk, &panickyChooser{n: 4}); err != nil {
		t.Fatalf("drive: %v", err)
	}
	if run.Outcome != OutcomeCrash || !strings.Contains(run.Crash, "driver bug") {
		t.Fatalf("outcome %s, crash %q; want a crash with the driver's panic", run.Outcome, run.Crash)
	}
}

// driveSetup loads src and sets a seeded run of it up on workers as
// Execute does, to the point where drive takes over; the scheduler is
// aborted when the test ends.
func driveSetup(t *testing.T, src string, workers int) (*Run, *driver.Scheduler, *sink, chooser) {
	t.Helper()
	sc, err := scenario.Parse("crash.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(sc, Options{Seed: 1, HasSeed: true, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	sk := newSink(c.Workers, nil)
	ch, victims, err := newChooser(c, Options{}, func() int64 { return pctLength(sc, c) })
	if err != nil {
		t.Fatal(err)
	}
	s, err := newScheduler(sc, c, sk, victims)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Abort)
	startRoot(s, sc, newProgram(sc, s))
	return &Run{Scenario: sc, Config: c}, s, sk, ch
}
