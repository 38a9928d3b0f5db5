package htmlreport

// The page: its parts and its bounds. Write lays it out top to bottom:
// the summary of each run, the timelines on one step scale, the trees,
// the waits, and check's grid.

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/cbcsim/cbcsim/trace"
)

// The page's bounds: a huge trace still gives a page of bounded size
// (docs/report.md, "Bounds"); past each, the page says what it left out.
const (
	// ElementsMax bounds the timeline's drawn elements (slices, block
	// spans, arrows, channel operations) over all runs; the timeline stops at the step where
	// the bound is reached.
	ElementsMax = 20000
	// TaskLanesMax bounds the task lanes of a run's timeline.
	TaskLanesMax = 400
	// TreeMax bounds the tasks listed in a run's tree.
	TreeMax = 2000
	// WaitsMax bounds the waits listed and drawn.
	WaitsMax = 200
	// GridMax bounds the grid's rows.
	GridMax = 2000
	// NotesMax bounds the notes shown at the top.
	NotesMax = 200
	// SeedMarksMax bounds the failing seeds drawn in the grid's seed
	// strips, over all rows.
	SeedMarksMax = 20000
)

// Page is what Write draws.
type Page struct {
	Title string
	// Notes are lines shown under the title: the failed checks, the
	// command that reproduces the run.
	Notes []string
	// Runs are one run, or two to compare (A first).
	Runs []Run
	// Diff is the comparison of two runs (trace.Diff(A, B)); its first
	// divergence is marked on both timelines.
	Diff *trace.DiffResult
	// Grid is check's pass and fail grid, or nil.
	Grid *Grid
}

// Run is one run to draw and the name it is shown under (its file).
type Run struct {
	Label string
	Model *Model
}

// Grid is check's result per scenario and worker count.
type Grid struct {
	Workers []int
	Rows    []GridRow
	// SeedFirst and SeedCount are the seeds the seed strips show
	// (SeedCount 0: no strips); each cell's Seeds are its failing seeds
	// among them.
	SeedFirst, SeedCount uint64
}

// GridRow is one scenario: a cell per worker count, in Grid.Workers order.
type GridRow struct {
	Scenario string
	Cells    []GridCell
}

// GridCell is the runs of one scenario at one worker count.
type GridCell struct {
	Runs, Failed int64
	FailSeeds    []uint64 // the smallest failing seeds
	Repro        string   // the repro directory of its first failure, if any
	// Seeds are the failing seeds among the grid's SeedFirst..SeedCount,
	// in order, for the seed strip.
	Seeds []uint64
}

// Write writes the page as one self-contained HTML document.
func Write(w io.Writer, p Page) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	pw := &pageWriter{w: bw}
	pw.page(&p)
	if pw.err != nil {
		return pw.err
	}
	return bw.Flush()
}

// pageWriter writes the page and keeps the first write error.
type pageWriter struct {
	w   *bufio.Writer
	err error
}

func (pw *pageWriter) printf(format string, args ...any) {
	if pw.err == nil {
		_, pw.err = fmt.Fprintf(pw.w, format, args...)
	}
}

func (pw *pageWriter) raw(s string) {
	if pw.err == nil {
		_, pw.err = pw.w.WriteString(s)
	}
}

// esc escapes text for HTML content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

func (pw *pageWriter) page(p *Page) {
	title := p.Title
	switch {
	case title != "":
	case len(p.Runs) > 0:
		title = "cbcsim: " + p.Runs[0].Model.Name
	default:
		title = "cbcsim"
	}
	pw.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(title), css)
	pw.printf("<h1>%s</h1>\n", esc(title))
	pw.notes(p.Notes)
	if p.Grid != nil {
		pw.grid(p.Grid)
	}
	if p.Diff != nil {
		pw.diffSummary(p)
	}
	pw.raw("<div class=\"runs\">")
	for i := range p.Runs {
		pw.summary(&p.Runs[i])
	}
	pw.raw("</div>\n")
	if len(p.Runs) > 0 {
		pw.timelines(p)
	}
	for i := range p.Runs {
		pw.tree(&p.Runs[i])
		pw.waits(&p.Runs[i])
	}
	pw.printf("<script>%s</script>\n</body>\n</html>\n", script)
}

func (pw *pageWriter) notes(notes []string) {
	if len(notes) == 0 {
		return
	}
	pw.raw("<pre class=\"notes\">")
	for i, n := range notes {
		if i == NotesMax {
			pw.printf("... %d more lines not shown\n", len(notes)-NotesMax)
			break
		}
		pw.printf("%s\n", esc(n))
	}
	pw.raw("</pre>\n")
}

// summary is a run's header fields and outcome.
func (pw *pageWriter) summary(r *Run) {
	m := r.Model
	pw.printf("<section class=\"summary\"><h2>%s</h2>\n<table class=\"kv\">", esc(runTitle(r)))
	pw.printf("<tr><th>outcome</th><td class=\"%s\">%s</td></tr>", outcomeClass(m.Outcome), esc(orNone(m.Outcome)))
	if m.Finding != "" {
		pw.printf("<tr><th>finding</th><td class=\"bad\">%s</td></tr>", esc(m.Finding))
	}
	pw.printf("<tr><th>steps</th><td>%d (%d events, trace version %d)</td></tr>", m.Steps, m.Events, m.Version)
	for _, f := range m.Header {
		if f.Key == "name" || f.Key == "scenario-sha256" {
			continue
		}
		pw.printf("<tr><th>%s</th><td>%s</td></tr>", esc(f.Key), esc(fieldText(f)))
	}
	pw.raw("</table></section>\n")
}

func runTitle(r *Run) string {
	if r.Label == "" {
		return r.Model.Name
	}
	return r.Label + ": " + r.Model.Name
}

func outcomeClass(outcome string) string {
	if outcome == "" || !hasWord(outcome, "outcome=ok") {
		return "bad"
	}
	return "good"
}

func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

func orNone(s string) string {
	if s == "" {
		return "(none: the trace has no outcome line)"
	}
	return s
}

// diffSummary is the comparison's verdict and its first divergence.
func (pw *pageWriter) diffSummary(p *Page) {
	d := p.Diff
	pw.printf("<section class=\"diff\"><h2>Comparison</h2>\n<p>%s</p>\n", esc(d.Headline()))
	if d.Div == nil {
		pw.raw("<p>The event streams are identical.</p></section>\n")
		return
	}
	pw.printf("<p class=\"divergence-text\">First divergence at step %d (event %d): %s</p>\n<ul>", d.Div.Step, d.Div.Index+1, esc(d.Reason))
	for _, s := range d.Div.Differs {
		pw.printf("<li>%s</li>", esc(s))
	}
	pw.raw("</ul>\n<table class=\"ctx\"><tr><th>A</th><th>B</th></tr><tr><td><pre>")
	pw.context(d.Div.ContextA)
	pw.raw("</pre></td><td><pre>")
	pw.context(d.Div.ContextB)
	pw.raw("</pre></td></tr></table></section>\n")
}

func (pw *pageWriter) context(lines []trace.ContextLine) {
	for _, l := range lines {
		text := l.Text
		if l.Line == 0 {
			text = "(end of trace)"
		}
		if l.Mark {
			pw.printf("<mark>%s</mark>\n", esc(text))
		} else {
			pw.printf("%s\n", esc(text))
		}
	}
}

// grid is check's table: a row per scenario, a column per worker count.
func (pw *pageWriter) grid(g *Grid) {
	pw.raw("<section class=\"grid\"><h2>Check: pass and fail per scenario and worker count</h2>\n<table class=\"grid\"><tr><th>scenario</th>")
	for _, w := range g.Workers {
		pw.printf("<th>%d workers</th>", w)
	}
	pw.raw("</tr>\n")
	for i, row := range g.Rows {
		if i == GridMax {
			pw.printf("<tr><td colspan=\"%d\">... %d more scenarios not shown</td></tr>\n", len(g.Workers)+1, len(g.Rows)-GridMax)
			break
		}
		pw.printf("<tr><th>%s</th>", esc(row.Scenario))
		for _, c := range row.Cells {
			pw.cell(c)
		}
		pw.raw("</tr>\n")
	}
	pw.raw("</table>\n")
	pw.seedStrips(g)
	pw.raw("</section>\n")
}

// seedStrips draws, per scenario, a strip per worker count with a cell
// per seed: green where the run passed, red where it failed.
func (pw *pageWriter) seedStrips(g *Grid) {
	if g.SeedCount == 0 {
		return
	}
	px := min(max(900/float64(g.SeedCount), 1), 8)
	w := float64(g.SeedCount) * px
	pw.printf("<h3>Seeds × workers: seeds %d..%d, a cell per seed (red: failed)</h3>\n<table class=\"strips\">", g.SeedFirst, g.SeedFirst+g.SeedCount-1)
	marks := 0
	for i, row := range g.Rows {
		if i == GridMax {
			break
		}
		for ci, c := range row.Cells {
			if c.Runs == 0 {
				continue
			}
			pw.printf("<tr><th>%s</th><td>%d workers</td><td><svg class=\"strip\" width=\"%s\" height=\"12\"><rect class=\"seeds-pass\" x=\"0\" y=\"0\" width=\"%s\" height=\"12\"/>", esc(row.Scenario), g.Workers[ci], num(w), num(w))
			for _, seed := range c.Seeds {
				if seed < g.SeedFirst || seed-g.SeedFirst >= g.SeedCount || marks == SeedMarksMax {
					continue
				}
				marks++
				pw.printf("<rect class=\"seed-fail\" x=\"%s\" y=\"0\" width=\"%s\" height=\"12\"><title>seed %d failed</title></rect>", num(float64(seed-g.SeedFirst)*px), num(px), seed)
			}
			pw.raw("</svg></td></tr>\n")
		}
	}
	pw.raw("</table>\n")
	if marks == SeedMarksMax {
		pw.printf("<p class=\"cut\">The strips mark at most %d failing seeds; the counts above cover every run.</p>\n", SeedMarksMax)
	}
}

func (pw *pageWriter) cell(c GridCell) {
	switch {
	case c.Runs == 0:
		pw.raw("<td class=\"none\">-</td>")
	case c.Failed == 0:
		pw.printf("<td class=\"pass\" title=\"%d runs passed\">pass %d</td>", c.Runs, c.Runs)
	default:
		text := fmt.Sprintf("FAIL %d of %d", c.Failed, c.Runs)
		if len(c.FailSeeds) > 0 {
			text += fmt.Sprintf(" (seeds %s)", joinSeeds(c.FailSeeds))
		}
		if c.Repro != "" {
			text += " " + c.Repro
		}
		pw.printf("<td class=\"fail\">%s</td>", esc(text))
	}
}

func joinSeeds(seeds []uint64) string {
	s := ""
	for i, v := range seeds {
		if i == 8 {
			return s + ", ..."
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(v)
	}
	return s
}
