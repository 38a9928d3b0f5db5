package trace

// DiffResult's text: Headline and Write.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Headline returns the result in one line, for a log or an error message.
func (d *DiffResult) Headline() string {
	switch {
	case d.Equal():
		return "identical"
	case d.Verdict == Same && d.VersionDiffers() && len(d.Header) == 0 && !d.Source.Differs:
		return "same events; the format versions differ"
	case d.Verdict == Same:
		return "same events; the headers differ"
	case d.Verdict == Nondeterminism:
		return "NONDETERMINISM: same decisions, different effects (" + d.Reason + ")"
	}
	return d.Verdict.String() + ": " + d.Reason
}

// Write prints the report: the traces, what differs in their headers (a
// different program first), the verdict and its reason, the first
// divergence with context from each side, and a summary of both runs.
func (d *DiffResult) Write(w io.Writer) error {
	var b strings.Builder
	nameA, nameB := d.NameA, d.NameB
	if nameA == "" {
		nameA = "A"
	}
	if nameB == "" {
		nameB = "B"
	}
	fmt.Fprintf(&b, "A  %s\nB  %s\n\n", nameA, nameB)

	if d.Equal() {
		fmt.Fprintf(&b, "identical: same header, same scenario source, same %d events in %d steps\n", d.A.Events, d.A.Steps)
		_, err := io.WriteString(w, b.String())
		return err
	}

	d.writeHeader(&b)
	d.writeVerdict(&b)
	if d.Div != nil {
		d.writeDivergence(&b)
	}
	d.writeSummary(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (d *DiffResult) writeHeader(b *strings.Builder) {
	if d.PlacesRewritten != "" {
		fmt.Fprintf(b, "%s says a task's place on every run line, as version-3 traces did before \"run_at: changed\": "+
			"its run lines are compared as they are written now, with a place only where it changed\n\n", d.PlacesRewritten)
	}
	if d.VersionDiffers() {
		fmt.Fprintf(b, "DIFFERENT FORMAT VERSIONS: A is version %d, B version %d; they were recorded under different driver modes "+
			"(docs/trace-format.md#versioning), so the same decisions can give other events\n\n", d.VersionA, d.VersionB)
	}
	if src := d.Source; src.Differs {
		b.WriteString("DIFFERENT PROGRAMS: the embedded scenario sources differ")
		if src.Line == 0 {
			b.WriteString(" (only in the newline at the end)\n")
		} else {
			fmt.Fprintf(b, ", first at source line %d\n", src.Line)
			for _, side := range [2]struct {
				name, text string
				missing    bool
			}{{"A", src.A, src.MissingA}, {"B", src.B, src.MissingB}} {
				if side.missing {
					fmt.Fprintf(b, "  %s: (no such line)\n", side.name)
				} else {
					fmt.Fprintf(b, "  %s: %s\n", side.name, side.text)
				}
			}
		}
		b.WriteString("\n")
	}
	switch {
	case len(d.Header) == 0:
		b.WriteString("header: identical\n\n")
		return
	case len(d.Header) == 1:
		b.WriteString("header: 1 field differs\n")
	default:
		fmt.Fprintf(b, "header: %d fields differ\n", len(d.Header))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, h := range d.Header {
		va, vb := h.A, h.B
		if !h.InA {
			va = "(missing)"
		}
		if !h.InB {
			vb = "(missing)"
		}
		fmt.Fprintf(tw, "  %s\t%s in A, %s in B\n", h.Key, va, vb)
	}
	tw.Flush()
	b.WriteString("\n")
}

func (d *DiffResult) writeVerdict(b *strings.Builder) {
	switch d.Verdict {
	case Same:
		b.WriteString("verdict: SAME EVENTS: the event streams are identical; only the headers differ\n")
	case ScheduleDiff:
		b.WriteString("verdict: SCHEDULE DIFF: the runs made different decisions\n")
	case Nondeterminism:
		b.WriteString("verdict: NONDETERMINISM: same decisions, different effects\n")
	case ConfigDiff:
		b.WriteString("verdict: CONFIG DIFF: same decisions, different effects, under different programs or parameters\n")
	case Prefix:
		b.WriteString("verdict: PREFIX: one trace stops where the other goes on\n")
	}
	if d.Reason != "" {
		fmt.Fprintf(b, "  %s\n", d.Reason)
	}
	if d.Decisions != "" {
		fmt.Fprintf(b, "  decisions at step %d, in both: %s\n", d.Div.Step, d.Decisions)
	}
	for _, e := range d.Explain {
		fmt.Fprintf(b, "  %s\n", e)
	}
	b.WriteString("\n")
}

func (d *DiffResult) writeDivergence(b *strings.Builder) {
	div := d.Div
	fmt.Fprintf(b, "first divergence: event %d (0-based), step %d; ", div.Index, div.Step)
	switch div.Index {
	case 0:
		b.WriteString("it is the first event\n")
	case 1:
		b.WriteString("the one event before it is identical\n")
	default:
		fmt.Fprintf(b, "the %d events before it are identical\n", div.Index)
	}
	for _, side := range [2]struct {
		name string
		line int
		text string
	}{{"A", div.LineA, div.TextA}, {"B", div.LineB, div.TextB}} {
		if side.line == 0 && side.text == "" {
			fmt.Fprintf(b, "  %s: (no more events)\n", side.name)
		} else {
			fmt.Fprintf(b, "  %s line %d: %s\n", side.name, side.line, side.text)
		}
	}
	for _, s := range div.Differs {
		fmt.Fprintf(b, "  differs: %s\n", s)
	}
	for _, side := range [2]struct {
		name string
		ctx  []ContextLine
	}{{"A", div.ContextA}, {"B", div.ContextB}} {
		fmt.Fprintf(b, "\n  %s\n", side.name)
		for _, c := range side.ctx {
			mark := " "
			if c.Mark {
				mark = ">"
			}
			if c.Line == 0 && c.Text == "" {
				fmt.Fprintf(b, "  %s %6s  (end of %s)\n", mark, "", side.name)
				continue
			}
			fmt.Fprintf(b, "  %s %6d  %s\n", mark, c.Line, c.Text)
		}
	}
	b.WriteString("\n")
}

func (d *DiffResult) writeSummary(b *strings.Builder) {
	b.WriteString("summary\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  \tA\tB\n")
	fmt.Fprintf(tw, "  events\t%d\t%d\n", d.A.Events, d.B.Events)
	fmt.Fprintf(tw, "  steps\t%d\t%d\n", d.A.Steps, d.B.Steps)
	outcome := func(s TraceSummary) string {
		if s.OutcomeLine == 0 && s.Outcome == "" {
			return "(none)"
		}
		return s.Outcome
	}
	fmt.Fprintf(tw, "  outcome\t%s\t%s\n", outcome(d.A), outcome(d.B))
	tw.Flush()

	d.writeItemSummary(b)
	b.WriteString(d.endsLine())
}

// writeItemSummary writes the task results, the tasks of one side only
// and the nursery outcomes that differ.
func (d *DiffResult) writeItemSummary(b *strings.Builder) {
	var tw *tabwriter.Writer
	item := func(it ItemDiff) string {
		if it.Name != "" {
			return it.ID + " (" + it.Name + ")"
		}
		return it.ID
	}
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	if len(d.Results) == 0 {
		b.WriteString("  task results: the same\n")
	} else {
		fmt.Fprintf(b, "  task results that differ: %d\n", len(d.Results))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    task\tA\tB\n")
		for _, r := range d.Results {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", item(r), orNone(r.A), orNone(r.B))
		}
		tw.Flush()
	}
	for _, only := range [2]struct {
		side  string
		tasks []ItemDiff
		a     bool
	}{{"A", d.OnlyA, true}, {"B", d.OnlyB, false}} {
		if len(only.tasks) == 0 {
			continue
		}
		fmt.Fprintf(b, "  tasks only in %s: %d\n", only.side, len(only.tasks))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    task\tresult in %s\n", only.side)
		for _, r := range only.tasks {
			res := r.B
			if only.a {
				res = r.A
			}
			fmt.Fprintf(tw, "    %s\t%s\n", item(r), orNone(res))
		}
		tw.Flush()
	}
	if len(d.Nurseries) == 0 {
		b.WriteString("  nursery outcomes: the same\n")
	} else {
		fmt.Fprintf(b, "  nursery outcomes that differ: %d\n", len(d.Nurseries))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    nursery\tA\tB\n")
		for _, r := range d.Nurseries {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", item(r), orNone(r.A), orNone(r.B))
		}
		tw.Flush()
	}
}

// endsLine says, in one line, whether the two runs end alike: what a user
// comparing a schedule change most wants to know.
func (d *DiffResult) endsLine() string {
	var what []string
	if d.A.Outcome != d.B.Outcome || (d.A.OutcomeLine == 0) != (d.B.OutcomeLine == 0) {
		what = append(what, "the outcome")
	}
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			what = append(what, "1 "+one)
		case n > 1:
			what = append(what, strconv.Itoa(n)+" "+many)
		}
	}
	count(len(d.Results), "task result", "task results")
	count(len(d.OnlyA)+len(d.OnlyB), "task present in one run only", "tasks present in one run only")
	count(len(d.Nurseries), "nursery outcome", "nursery outcomes")
	if len(what) == 0 {
		return "the runs end alike: same outcome, same task results, same nursery outcomes\n"
	}
	return "the runs end differently: " + strings.Join(what, ", ") + "\n"
}
