package check

// This file is check's recorded runs: the traces of a regression corpus
// (`cbcsim fuzz --corpus DIR` writes a shrunk failure's scenario and its
// trace there), each run once more as it was recorded and checked. A
// seed alone would not do: the failing run's seed is one of billions, and
// `--seeds N` over the corpus scenarios may never meet it.
//
// A recorded run follows the decisions in its trace (as `cbcsim replay
// --schedule` does), so it meets the same interleaving even after the
// driver's PRNG changes. When a decision no longer applies (the scheduler
// now behaves differently at that point, as it does once the bug is
// fixed), the run is executed again from the trace's seed, worker count
// and strategy, and the report says so: what matters is whether the
// checks hold, not whether the trace is the same.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// recordedTraceMax bounds a recorded trace read by a check; a corpus
// trace is of a shrunk failure, a few kilobytes.
const recordedTraceMax = 64 << 20

// Recorded is the result of one recorded run.
type Recorded struct {
	Trace    string // the trace file
	File     string // the scenario file beside it (X.toml for X.trace), "" if none
	Scenario string // the embedded scenario's name
	Config   sim.Config
	Outcome  sim.Outcome
	Main     string
	Steps    int64
	Checks   []sim.Check // the broken checks only
	// Schedule is true when the run followed the recorded decisions to
	// the end; when one no longer applied, Note says which and the run
	// went from the seed.
	Schedule bool
	Note     string
}

// Failed reports whether a check broke.
func (r *Recorded) Failed() bool { return len(r.Checks) > 0 }

// Command reruns the recorded run from its trace; Config.Command(File)
// reruns it from the scenario file and the seed.
func (r *Recorded) Command() string {
	return "cbcsim replay --schedule " + sim.ShellQuote(r.Trace)
}

// recorded is a trace loaded before the check starts.
type recorded struct {
	path  string
	file  string // the scenario beside it, if any
	sc    *scenario.Scenario
	cfg   sim.Config
	sched *sim.Schedule
}

// loadRecorded reads and parses every trace of o.Traces: a trace that
// cannot be replayed is bad input, reported before any run.
func loadRecorded(paths []string) ([]recorded, error) {
	var out []recorded
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if fi.Size() > recordedTraceMax {
			return nil, fmt.Errorf("%s: %d bytes, more than the %d a recorded trace may have", p, fi.Size(), recordedTraceMax)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		tr, sc, cfg, err := sim.LoadTrace(p, data)
		if err != nil {
			return nil, err
		}
		sch, err := sim.ScheduleOf(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		file := strings.TrimSuffix(p, ".trace") + ".toml"
		if _, err := os.Stat(file); err != nil {
			file = ""
		}
		out = append(out, recorded{path: p, file: file, sc: sc, cfg: cfg, sched: sch})
	}
	return out, nil
}

// runRecorded runs a recorded trace again and checks it: along its
// schedule, or from its seed when the schedule no longer applies. A
// panic or a harness error is a failed check, as in runOne.
func runRecorded(rc *recorded, exec execFunc) (res Recorded) {
	res = Recorded{Trace: rc.path, File: rc.file, Scenario: rc.sc.Name, Config: rc.cfg, Schedule: true}
	defer func() {
		if r := recover(); r != nil {
			res.Outcome = sim.OutcomeCrash
			res.Checks = []sim.Check{{Class: sim.ClassHarness, Name: "run-no-panic", Detail: fmt.Sprint(r)}}
		}
	}()
	run, err := exec(rc.sc, rc.cfg, sim.Options{Schedule: rc.sched})
	var se *sim.ScheduleError
	if errors.As(err, &se) {
		res.Schedule = false
		res.Note = "the recorded schedule no longer applies (" + se.Err.Error() + "); run from the trace's seed"
		run, err = exec(rc.sc, rc.cfg, sim.Options{})
	}
	if err != nil {
		res.Outcome = outcomeError
		res.Checks = []sim.Check{{Class: sim.ClassHarness, Name: "execute", Detail: err.Error()}}
		return res
	}
	res.Outcome, res.Main, res.Steps = run.Outcome, run.Result.String(), run.Steps
	for _, ch := range run.Checks {
		if !ch.OK {
			res.Checks = append(res.Checks, ch)
		}
	}
	return res
}

// IsTrace reports whether path names a trace file (by its extension), so
// that `cbcsim check DIR` can tell a corpus's traces from its scenarios.
func IsTrace(path string) bool { return strings.HasSuffix(path, ".trace") }

// doRecorded runs recorded run i and reports whether it failed. Called
// by a job goroutine, each i once.
func (c *checker) doRecorded(i int) (failed bool) {
	exec := c.exec
	if c.o.ExecRecorded != nil {
		exec = c.o.ExecRecorded
	}
	c.recResults[i] = runRecorded(&c.recorded[i], exec)
	return c.recResults[i].Failed()
}

// writeRecorded prints a line per recorded run, and each broken check
// with the command that replays it.
func (r *Report) writeRecorded(b *bytes.Buffer) error {
	if len(r.Recorded) == 0 {
		return nil
	}
	fmt.Fprintf(b, "\nrecorded runs (%d)\n", len(r.Recorded))
	for _, rec := range r.Recorded {
		mark := "ok  "
		if rec.Failed() {
			mark = "FAIL"
		}
		how := "along its schedule"
		if !rec.Schedule {
			how = "from its seed"
		}
		fmt.Fprintf(b, "  %s %s (%q, seed %d, %d workers, %s): outcome %s, main %s, %d steps\n",
			mark, rec.Trace, rec.Scenario, rec.Config.Seed, rec.Config.Workers, how, rec.Outcome, rec.Main, rec.Steps)
		if rec.Note != "" {
			fmt.Fprintf(b, "       %s\n", rec.Note)
		}
		for _, ch := range rec.Checks {
			fmt.Fprintf(b, "       %s: %s\n", ch.Name, ch.Detail)
		}
		if rec.Failed() {
			fmt.Fprintf(b, "       replay:    %s\n", rec.Command())
			if rec.File != "" {
				fmt.Fprintf(b, "       reproduce: %s\n", rec.Config.Command(rec.File))
			}
		}
	}
	return nil
}
