package explore

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// ReproDir is where WriteRepro writes the repro of path's search on
// workers workers: OUT/NAME-wN.
func ReproDir(out, path string, workers int) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return filepath.Join(out, fmt.Sprintf("%s-w%d", base, workers))
}

// WriteRepro writes the failure of rep under out/NAME-wN/: scenario.toml,
// run.trace (the shrunk schedule), found.trace (the schedule as found)
// and README.txt with the commands that replay them. It returns the
// directory.
func WriteRepro(out, path string, sc *scenario.Scenario, rep *Report) (_ string, err error) {
	f := rep.Failure
	dir := ReproDir(out, path, rep.Config.Workers)
	undo, err := outfile.MkdirNew(dir)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			undo() // no empty or partial repro directory stays
		}
	}()
	files := []struct {
		name    string
		choices []uint8
	}{{"run.trace", f.Shrunk.Choices}, {"found.trace", f.Found.Choices}}
	for _, t := range files {
		var buf bytes.Buffer
		if _, _, err := execute(sim.Execute, sc, rep.Config, t.choices, &buf); err != nil {
			return "", err
		}
		if err := sim.WriteFileAtomic(filepath.Join(dir, t.name), func(w io.Writer) error {
			_, err := w.Write(buf.Bytes())
			return err
		}); err != nil {
			return "", err
		}
	}
	if err := sim.WriteFileAtomic(filepath.Join(dir, "scenario.toml"), func(w io.Writer) error {
		_, err := w.Write(sc.Source)
		return err
	}); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cbcsim explore repro\n\nscenario: %s\nfile:     %s\nworkers:  %d\nfailed:   %s\noutcome:  %s (main %s)\n\n",
		sc.Name, path, rep.Config.Workers, f.Signature, f.Run.Outcome, f.Run.Result)
	fmt.Fprintf(&b, "schedule: %s (as found: %s)\n\nfailed checks:\n", f.Shrunk.Size(), f.Found.Size())
	for _, c := range f.Run.Checks {
		if !c.OK {
			fmt.Fprintf(&b, "  %s: %s\n", c.Name, c.Detail)
		}
	}
	fmt.Fprintf(&b, "\nreplay the shrunk schedule (a schedule has no seed: --schedule is required):\n  cbcsim replay --schedule %s\n", filepath.Join(dir, "run.trace"))
	fmt.Fprintf(&b, "compare it with the schedule as found:\n  cbcsim diff %s %s\n", filepath.Join(dir, "found.trace"), filepath.Join(dir, "run.trace"))
	fmt.Fprintf(&b, "explore again:\n  cbcsim explore %s --workers %d --preemptions %d\n", path, rep.Config.Workers, rep.Bound)
	fmt.Fprintf(&b, "\nreport.html draws the shrunk schedule: a lane per worker and per task, the waits (docs/report.md).\n")
	if err := sim.WriteFileAtomic(filepath.Join(dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	}); err != nil {
		return "", err
	}
	return dir, htmlreport.WriteRepro(dir, []string{"run.trace"}, htmlreport.Lines(b.String()))
}

// Size is how a schedule's size is reported: "1 preemption, 47 steps".
func (s Schedule) Size() string {
	p := "preemptions"
	if s.Preemptions == 1 {
		p = "preemption"
	}
	return fmt.Sprintf("%d %s, %d steps", s.Preemptions, p, s.Steps)
}

// Write prints the report: schedules per bound, the distinct outcomes,
// and the verdict. The failure's repro lines are the caller's (it knows
// where the repro went). It holds no time, so that two reports of the
// same search are byte for byte the same, on any number of jobs; the
// time and rate are WriteRate's.
func (r *Report) Write(w io.Writer, path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "explore %s: %d workers, preemption bound %d, at most %d schedules\n", path, r.Config.Workers, r.Bound, r.Max)
	fmt.Fprintf(&b, "schedules by preemptions: %s\n", perBound(r.PerBound, r.Bound))
	fmt.Fprintf(&b, "outcomes:\n")
	for _, o := range r.Outcomes {
		fmt.Fprintf(&b, "  %8d  %s\n", o.Count, o.What)
	}
	switch {
	case r.Failure != nil:
		f := r.Failure
		fmt.Fprintf(&b, "FAIL at schedule %d (%s): %s\n", r.Schedules, f.Found.Size(), f.Signature)
		for _, c := range f.Run.Checks {
			if !c.OK {
				fmt.Fprintf(&b, "  %s: %s\n", c.Name, c.Detail)
			}
		}
		fmt.Fprintf(&b, "shrunk: %s -> %s (%d runs)\n", f.Found.Size(), f.Shrunk.Size(), f.Runs)
	case r.Exhaustive:
		fmt.Fprintf(&b, "exhaustive up to %d preemptions: %d schedules, all passed\n", r.Bound, r.Schedules)
	case r.Interrupted:
		fmt.Fprintf(&b, "interrupted at %d schedules, not exhaustive: every schedule run passed, others with at most %d preemptions were not run\n",
			r.Schedules, r.Bound)
	case r.PendingFull:
		fmt.Fprintf(&b, "stopped at %d schedules, not exhaustive: the schedules waiting to run passed %d MiB; every schedule run passed\n",
			r.Schedules, pendingBytesMax>>20)
	default:
		fmt.Fprintf(&b, "stopped at %d schedules, not exhaustive: every schedule run passed, others with at most %d preemptions were not run\n",
			r.Schedules, r.Bound)
	}
	return writeString(w, b.String())
}

// WriteRate prints the search's time and rate (for stderr): "explore: 66
// schedules in 0.0s, 13194 schedules/s, 2 jobs".
func (r *Report) WriteRate(w io.Writer, jobs int) error {
	rate := float64(r.Schedules) / max(r.Elapsed.Seconds(), 1e-9)
	return writeString(w, fmt.Sprintf("explore: %d schedules in %.1fs, %.0f schedules/s, %d jobs\n", r.Schedules, r.Elapsed.Seconds(), rate, jobs))
}

func writeString(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return err
}
