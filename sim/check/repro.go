package check

// The repro directories: one per failing row and per nondeterministic
// run, each with the scenario and the command that reproduces it.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// writeRepros writes, in report order, a directory for the first failing
// seed of each failing (scenario, workers) row, then one for each
// nondeterministic run, up to ReproMax.
func (c *checker) writeRepros(r *Report) {
	used := map[string]bool{}
	nondet := r.Nondeterminism
	r.Nondeterminism = nil
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for wi := range s.Rows {
			row := &s.Rows[wi]
			if row.Failed == 0 {
				continue
			}
			for fi := range s.Failures {
				f := &s.Failures[fi]
				if f.Config.Workers != row.Workers || f.Seed != row.FirstFailSeed {
					continue
				}
				if len(r.ReproDirs) >= c.o.ReproMax {
					r.ReproSkipped++
					break
				}
				dir := c.reproName(used, s.Path, f.Seed, f.Config.Workers, "")
				again, err := c.writeFailureRepro(dir, c.scs[i], f)
				if err != nil {
					r.ReproErrors = append(r.ReproErrors, fmt.Sprintf("%s: %v", dir, err))
					break
				}
				r.ReproDirs = append(r.ReproDirs, dir)
				f.ReproDir = dir
				if !f.Config.Mode.Real() {
					f.Trace = filepath.Join(dir, "run.trace")
					if sig := again.signature(); sig != (&summary{outcome: f.Outcome, failed: f.Checks}).signature() {
						r.Nondeterminism = append(r.Nondeterminism, Nondeterminism{
							Path: s.Path, Scenario: s.Name, Seed: f.Seed, Workers: f.Config.Workers, Victim: f.Config.Victim, Config: f.Config,
							Detail: fmt.Sprintf("the re-run for the repro ended %s (%s), the first run %s (%s)",
								again.outcome, checkNames(again.failed), f.Outcome, checkNames(f.Checks)),
							ReproDir: dir,
						})
					}
				}
				break
			}
		}
		for _, n := range nondet {
			if n.sample.sc != i {
				continue
			}
			if len(r.ReproDirs) >= c.o.ReproMax {
				r.ReproSkipped++
			} else {
				dir := c.reproName(used, s.Path, n.Seed, n.Workers, "-nondeterminism")
				if err := writeNondetRepro(dir, c.scs[i], &n); err != nil {
					r.ReproErrors = append(r.ReproErrors, fmt.Sprintf("%s: %v", dir, err))
				} else {
					r.ReproDirs = append(r.ReproDirs, dir)
					n.ReproDir = dir
				}
			}
			r.Nondeterminism = append(r.Nondeterminism, n)
		}
	}
}

func checkNames(cs []sim.Check) string {
	if len(cs) == 0 {
		return "all checks held"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// reproName is DIR/<file base>-seed<N>-w<W><suffix>, with -2, -3, ...
// appended when two scenario files share a base name.
func (c *checker) reproName(used map[string]bool, path string, seed uint64, workers int, suffix string) string {
	base := fmt.Sprintf("%s-seed%d-w%d%s", strings.TrimSuffix(filepath.Base(path), ".toml"), seed, workers, suffix)
	name := base
	for n := 2; used[name]; n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	used[name] = true
	return filepath.Join(c.o.ReproDir, name)
}

// writeFailureRepro writes scenario.toml, run.trace (seeded mode; the seed
// run again with its trace written) and README.txt, and returns the
// re-run's summary.
func (c *checker) writeFailureRepro(dir string, sc *scenario.Scenario, f *Failure) (again summary, err error) {
	undo, err := outfile.MkdirNew(dir)
	if err != nil {
		return again, err
	}
	defer func() {
		if err != nil {
			undo() // no empty or partial repro directory stays (a full disk)
		}
	}()
	if err := sim.WriteFileAtomic(filepath.Join(dir, "scenario.toml"), func(w io.Writer) error {
		_, err := w.Write(sc.Source)
		return err
	}); err != nil {
		return again, err
	}
	if !f.Config.Mode.Real() {
		err := sim.WriteFileAtomic(filepath.Join(dir, "run.trace"), func(w io.Writer) error {
			again = runOne(sc, sim.Options{Seed: f.Seed, HasSeed: true, Workers: f.Config.Workers, Trace: w,
				Strategy: f.Config.Strategy, PCTDepth: f.Config.PCTDepth}, c.exec)
			if again.outcome == outcomeError {
				return errors.New(again.failed[0].Detail)
			}
			return nil
		})
		if err != nil {
			return again, err
		}
		c.shrinkSchedule(dir, sc, f)
	}
	var b strings.Builder
	mode := "seeded"
	if f.Config.Mode.Real() {
		mode = "real (no trace: a real-mode run depends on the OS and may not fail again)"
	}
	fmt.Fprintf(&b, "cbcsim check repro\n\nscenario: %s\nfile:     %s\nseed:     %d\nworkers:  %d\nvictim:   %s\nmode:     %s\noutcome:  %s (main %s)\n\nfailed checks:\n",
		f.Scenario, f.Path, f.Seed, f.Config.Workers, f.Config.Victim, mode, f.Outcome, f.Main)
	for _, ch := range f.Checks {
		fmt.Fprintf(&b, "  %s: %s\n", ch.Name, ch.Detail)
	}
	fmt.Fprintf(&b, "\nreproduce:\n  %s\n  %s\n", f.Config.Command(f.Path), f.Config.Command(filepath.Join(dir, "scenario.toml")))
	if !f.Config.Mode.Real() {
		fmt.Fprintf(&b, "\nreplay the trace:\n  cbcsim replay %s\n", sim.ShellQuote(filepath.Join(dir, "run.trace")))
	}
	if f.Schedule != "" {
		fmt.Fprintf(&b, "\n%s\n", f.Schedule)
	}
	fmt.Fprintf(&b, "\nreport.html draws the run: a lane per worker and per task, the waits (docs/report.md).\n")
	if err := sim.WriteFileAtomic(filepath.Join(dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	}); err != nil {
		return again, err
	}
	var traces []string
	if !f.Config.Mode.Real() {
		traces = []string{"run.trace"}
	}
	return again, htmlreport.WriteRepro(dir, traces, htmlreport.Lines(b.String()))
}

// shrinkSchedule minimises the schedule of the failure whose run.trace is
// in dir with Options.ShrinkSchedule, if set, and keeps its summary (or
// why it was not shrunk) in f.Schedule.
func (c *checker) shrinkSchedule(dir string, sc *scenario.Scenario, f *Failure) {
	if c.o.ShrinkSchedule == nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.trace"))
	if err == nil {
		f.Schedule, err = c.o.ShrinkSchedule(sc, f.Config.Workers, data, dir)
	}
	if err != nil {
		f.Schedule = "schedule not shrunk: " + err.Error()
	}
}

// writeNondetRepro writes scenario.toml, the two differing traces and
// README.txt.
func writeNondetRepro(dir string, sc *scenario.Scenario, n *Nondeterminism) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"scenario.toml", func(w io.Writer) error { _, err := w.Write(sc.Source); return err }},
		{"first.trace", n.sample.first.copyTo},
		{"second.trace", n.sample.second.copyTo},
	}
	for _, f := range files {
		if err := sim.WriteFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	readme := fmt.Sprintf("cbcsim check repro: nondeterminism\n\nscenario: %s\nfile:     %s\nseed:     %d\nworkers:  %d\nvictim:   %s\n\n%s\n  first:  %s\n  second: %s\n\nthe same run twice gave different traces; compare them:\n  cbcsim diff %s %s\nrun it again:\n  %s --trace a.trace\n  %s --trace b.trace\n\nreport.html draws both runs with their first divergence marked (docs/report.md).\n",
		n.Scenario, n.Path, n.Seed, n.Workers, n.Victim, n.String(), orEnd(n.First), orEnd(n.Second),
		sim.ShellQuote(filepath.Join(dir, "first.trace")), sim.ShellQuote(filepath.Join(dir, "second.trace")),
		n.Config.Command(n.Path), n.Config.Command(n.Path))
	if err := sim.WriteFileAtomic(filepath.Join(dir, "README.txt"), func(w io.Writer) error {
		_, err := io.WriteString(w, readme)
		return err
	}); err != nil {
		return err
	}
	return htmlreport.WriteRepro(dir, []string{"first.trace", "second.trace"}, htmlreport.Lines(readme))
}
