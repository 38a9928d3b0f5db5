package check

// Report.Write: the text report, section by section.

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/cbcsim/cbcsim/sim"
)

// Write prints the report, section by section: the parameters, a table
// per scenario, each kind of failure with the commands that reproduce it,
// the nondeterministic runs, the repro directories and a last line that
// sums it up.
func (r *Report) Write(w io.Writer) error {
	var b bytes.Buffer
	for _, section := range []func(*bytes.Buffer) error{
		r.writeHeader, r.writeTables, r.writeRecorded, r.writeFailures, r.writeNondeterminism, r.writeRepros, r.writeSummary,
	} {
		if err := section(&b); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteQuiet prints the report without what passed: the parameters'
// line, each kind of failure with its commands, the nondeterministic
// runs, the failing recorded runs, the repro directories and the last
// line (check --quiet). A check whose runs all pass prints 3 lines.
func (r *Report) WriteQuiet(w io.Writer) error {
	failing := *r
	failing.Recorded = nil
	for _, rec := range r.Recorded {
		if rec.Failed() {
			failing.Recorded = append(failing.Recorded, rec)
		}
	}
	var b bytes.Buffer
	for _, section := range []func(*bytes.Buffer) error{
		r.writeHeader, failing.writeRecorded, r.writeFailures, r.writeNondeterminism, r.writeRepros, r.writeSummary,
	} {
		if err := section(&b); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func (r *Report) writeHeader(b *bytes.Buffer) error {
	o := r.Options
	mode := "seeded"
	switch {
	case o.Mode.Lean():
		mode = "real lean"
	case o.Mode.Real():
		mode = "real"
	}
	ws := make([]string, len(o.Workers))
	for i, n := range o.Workers {
		ws[i] = strconv.Itoa(n)
	}
	switch o.Strategy {
	case sim.StrategyPCT:
		mode += " " + sim.StrategyName(o.Strategy, o.PCTDepth)
	case sim.StrategyPortfolio:
		mode += " " + sim.PortfolioText()
	}
	if o.Seeds > 0 {
		fmt.Fprintf(b, "check: %d scenario(s) × seeds %d..%d × workers %s, %s mode: %d runs",
			len(r.Scenarios), o.SeedStart, o.SeedStart+uint64(o.Seeds)-1, strings.Join(ws, ","), mode, r.Runs)
	} else {
		fmt.Fprintf(b, "check: %d recorded run(s), no seeded runs (give --seeds for those): %d runs", len(o.Traces), r.Runs)
	}
	if !o.Shard.Whole() {
		fmt.Fprintf(b, " (shard %s)", o.Shard)
	}
	if r.Interrupted {
		fmt.Fprintf(b, " of %d, interrupted", r.Planned)
	}
	if !o.Mode.Real() && o.Seeds > 0 {
		fmt.Fprintf(b, ", %d executed twice to catch nondeterminism", r.Resampled)
	}
	b.WriteString("\n")
	return nil
}

func (r *Report) writeTables(b *bytes.Buffer) error {
	for _, s := range r.Scenarios {
		fmt.Fprintf(b, "\nscenario %q (%s), victim %s\n", s.Name, s.Path, s.Victim)
		t := tablewriter.NewTable(b, tablewriter.WithHeader([]string{"workers", "runs", "passed", "failed", "first failing seed", "mean steps", "max steps", "outcomes", "run twice"}))
		for _, row := range append(append([]Row(nil), s.Rows...), s.Total) {
			if err := t.Append(row.cells(r.Options.Mode.Real())); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		for _, row := range s.Rows {
			if row.Workers == 1 && row.Runs > 1 && row.Undecided == row.Runs && !r.Options.Mode.Real() {
				fmt.Fprintf(b, "workers 1: one run stands for all %d seeds: it made no policy decision, and at one worker those decisions are all a seed changes, so it was made once\n", row.Runs)
			}
		}
	}
	return nil
}

func (r *Report) writeFailures(b *bytes.Buffer) error {
	for _, s := range r.Scenarios {
		if s.Total.Failed > 0 {
			b.WriteString("\nFailures\n")
			break
		}
	}
	for _, s := range r.Scenarios {
		for _, row := range s.Rows {
			if row.Failed == 0 {
				continue
			}
			fmt.Fprintf(b, "\n%q (%s), workers %d: %d of %d runs failed; first failing seed %d\n",
				s.Name, s.Path, row.Workers, row.Failed, row.Runs, row.FirstFailSeed)
			shown := 0
			for _, f := range s.Failures {
				if f.Config.Workers != row.Workers {
					continue
				}
				if shown++; shown <= kindsShownMax {
					f.write(b)
				}
			}
			if shown > kindsShownMax {
				fmt.Fprintf(b, "  and %d more kinds of failure\n", shown-kindsShownMax)
			}
		}
	}
	return nil
}

func (r *Report) writeNondeterminism(b *bytes.Buffer) error {
	if len(r.Nondeterminism) > 0 {
		b.WriteString("\nNondeterminism\n")
	}
	for _, n := range r.Nondeterminism {
		fmt.Fprintf(b, "\n%q (%s): %s\n", n.Scenario, n.Path, n.String())
		if n.Line > 0 {
			fmt.Fprintf(b, "  first:  %s\n  second: %s\n", orEnd(n.First), orEnd(n.Second))
		}
		cmd := n.Config.Command(n.Path)
		fmt.Fprintf(b, "  reproduce: %s --trace a.trace; %s --trace b.trace; cbcsim diff a.trace b.trace\n", cmd, cmd)
		if n.ReproDir != "" && n.Line > 0 {
			fmt.Fprintf(b, "  compare:   cbcsim diff %s %s\n",
				sim.ShellQuote(filepath.Join(n.ReproDir, "first.trace")), sim.ShellQuote(filepath.Join(n.ReproDir, "second.trace")))
		}
	}
	return nil
}

func (r *Report) writeRepros(b *bytes.Buffer) error {
	o := r.Options
	if len(r.ReproDirs) > 0 || r.ReproSkipped > 0 || len(r.ReproErrors) > 0 {
		b.WriteString("\n")
	}
	if len(r.ReproDirs) > 0 {
		fmt.Fprintf(b, "repro: %d director%s written under %s\n", len(r.ReproDirs), plural(len(r.ReproDirs), "y", "ies"), o.ReproDir)
	}
	if r.ReproSkipped > 0 {
		fmt.Fprintf(b, "repro: the bound of %d directories was reached; %d more failure(s) have none (rerun them with the commands above)\n",
			o.ReproMax, r.ReproSkipped)
	}
	for _, e := range r.ReproErrors {
		fmt.Fprintf(b, "repro: cannot write %s\n", e)
	}
	return nil
}

func (r *Report) writeSummary(b *bytes.Buffer) error {
	b.WriteString("\n")
	failedScenarios := 0
	for _, s := range r.Scenarios {
		if s.Total.Failed > 0 {
			failedScenarios++
		}
	}
	recorded := ""
	if len(r.Recorded) > 0 {
		failed := 0
		for _, rec := range r.Recorded {
			if rec.Failed() {
				failed++
			}
		}
		recorded = fmt.Sprintf(" and %d of %d recorded run(s)", failed, len(r.Recorded))
	}
	if r.Interrupted {
		fmt.Fprintf(b, "interrupted: %d of %d runs made, the others not run; the figures above are those of the runs made\n", r.Runs, r.Planned)
	}
	switch {
	case r.Failed():
		fmt.Fprintf(b, "FAIL: %d of %d runs failed in %d of %d scenario(s)%s; %d nondeterministic run(s)\n",
			r.FailedRuns, r.Runs, failedScenarios, len(r.Scenarios), recorded, len(r.Nondeterminism))
	case r.Options.Mode.Real():
		fmt.Fprintf(b, "ok: all %d runs passed\n", r.Runs)
	case r.Options.Seeds == 0:
		fmt.Fprintf(b, "ok: all %d recorded runs passed\n", r.Runs)
	default:
		fmt.Fprintf(b, "ok: all %d runs passed; %d run(s) executed twice gave identical traces\n", r.Runs, r.Resampled)
	}
	return nil
}

func (f *Failure) write(b *bytes.Buffer) {
	fmt.Fprintf(b, "  seed %d: outcome %s, main %s", f.Seed, f.Outcome, f.Main)
	if f.Count > 1 {
		fmt.Fprintf(b, " (%d runs failed this way)", f.Count)
	}
	b.WriteString("\n")
	for _, c := range f.Checks {
		fmt.Fprintf(b, "    %s: %s\n", c.Name, c.Detail)
	}
	fmt.Fprintf(b, "    reproduce: %s\n", f.Command())
	if f.Trace != "" {
		fmt.Fprintf(b, "    replay:    cbcsim replay %s\n", sim.ShellQuote(f.Trace))
	}
	if f.ReproDir != "" {
		fmt.Fprintf(b, "    repro:     %s\n", f.ReproDir)
	}
	if f.Schedule != "" {
		fmt.Fprintf(b, "    %s\n", strings.ReplaceAll(f.Schedule, "\n", "\n    "))
	}
	if len(f.Seeds) > 0 {
		seeds := make([]string, len(f.Seeds))
		for i, s := range f.Seeds {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		more := ""
		if n := f.Count - 1 - int64(len(f.Seeds)); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(b, "    also seeds %s%s\n", strings.Join(seeds, ", "), more)
	}
}

// orEnd shows a line that one trace does not have.
func orEnd(line string) string {
	if line == "" {
		return "(end of trace)"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// cells is the row as table cells.
func (row Row) cells(real bool) []string {
	workers := "all"
	if row.Workers > 0 {
		workers = strconv.Itoa(row.Workers)
	}
	first, mean := "-", "-"
	if row.Failed > 0 {
		first = strconv.FormatUint(row.FirstFailSeed, 10)
	}
	if row.Runs > 0 {
		mean = i((row.StepsTotal + row.Runs/2) / row.Runs)
	}
	names := make([]string, 0, len(row.Outcomes))
	for k := range row.Outcomes {
		names = append(names, string(k))
	}
	sort.Strings(names)
	for j, k := range names {
		names[j] = k + ":" + i(row.Outcomes[sim.Outcome(k)])
	}
	twice := "-"
	switch {
	case real || row.Resampled == 0:
	case row.Differ == 0:
		twice = strconv.Itoa(row.Resampled) + " same"
	default:
		twice = fmt.Sprintf("%d of %d DIFFER", row.Differ, row.Resampled)
	}
	return []string{workers, i(row.Runs), i(row.Passed), i(row.Failed), first, mean, i(row.StepsMax), strings.Join(names, " "), twice}
}

func i(v int64) string { return strconv.FormatInt(v, 10) }
