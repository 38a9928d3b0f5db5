package htmlreport_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/trace"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

func load(t *testing.T, name string) *trace.Trace {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

func parse(t *testing.T, text string) *trace.Trace {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func page(t *testing.T, p htmlreport.Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := htmlreport.Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A slice ends where another worker steps: t2's steps 1-2 and 4-5 are
// two slices, because w1 ran t3 at step 3, and t3's run is a slice of
// its own.
func TestSlicesSplitAtPreemption(t *testing.T) {
	tr := parse(t, `# cbcsim-trace 3
# workers: 2
# source: 0
# end
0 0 w0 global task=1
1 1 w0 run task=1
1 1 w0 spawn task=2 parent=1 name=a
1 1 w0 spawn task=3 parent=1 name=b
1 1 w0 block task=1 on=join
2 2 w0 pop task=2
3 3 w0 run task=2
4 4 w0 run task=2
5 5 w1 steal victim=0 task=3
6 6 w1 run task=3
7 7 w0 run task=2
8 8 w0 run task=2
8 8 w0 result task=2 result=ok
9 9 w1 run task=3
9 9 w1 result task=3 result=ok
9 9 w1 wake task=1
`)
	m := htmlreport.Build(tr)
	var got []string
	for _, s := range m.Slices {
		got = append(got, fmt.Sprintf("%s@%s:%d-%d", m.Tasks[s.Task].ID, m.Workers[s.Worker], s.First, s.Last))
	}
	want := "t1@w0:1-1 t2@w0:3-4 t3@w1:6-6 t2@w0:7-8 t3@w1:9-9"
	if strings.Join(got, " ") != want {
		t.Errorf("slices %q, want %q", strings.Join(got, " "), want)
	}
	var arrows []string
	for _, a := range m.Arrows {
		arrows = append(arrows, fmt.Sprintf("%s %d %d->%d", a.Kind, a.Step, a.From, a.To))
	}
	if want := "spawn 1 0->1 spawn 1 0->2 wake 9 2->0"; strings.Join(arrows, " ") != want {
		t.Errorf("arrows %q, want %q", strings.Join(arrows, " "), want)
	}
	if m.Tasks[1].Label() != "t2 a" || m.Tasks[0].Label() != "t1 main" {
		t.Errorf("labels %q %q", m.Tasks[0].Label(), m.Tasks[1].Label())
	}
}

// A deadlock's page lists every unfinished task with what it waits on and
// who could wake it (package waits), and draws the wait-for cycle.
func TestWaitsOfDeadlock(t *testing.T) {
	m := htmlreport.Build(load(t, "lock-order-deadlock.trace"))
	want := "main: nursery n; a_to_b: recv lock_b (b_to_a holds lock_b); b_to_a: recv lock_a (a_to_b holds lock_a); cycle a_to_b -> b_to_a -> a_to_b"
	if got := m.Waits.Summary(); got != want {
		t.Errorf("waits %q, want %q", got, want)
	}
	html := page(t, htmlreport.ForTraces([]string{"lock.trace"}, []*trace.Trace{load(t, "lock-order-deadlock.trace")}))
	for _, s := range []string{`class="waitgraph"`, "Who waits on what", "to receive on channel lock_b", "b_to_a (t3, holds lock_b)",
		"wait-for cycle: a_to_b -&gt; b_to_a -&gt; a_to_b", `class="wait-edge cycle"`} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if !strings.Contains(html, "t3 b_to_a: recv lock_b with t1 main at step 11 (buffer)") {
		t.Error("page lacks b_to_a's receive of lock_b")
	}
	if n := strings.Count(html, `class="wait-edge cycle"`); n != 2 {
		t.Errorf("%d cycle edges, want 2", n)
	}
}

// external finds anything that would make the page load another
// resource: a URL with a scheme, a src or href attribute, url() other
// than a fragment, @import.
var external = regexp.MustCompile(`(?i)(https?:|file://|//[a-z0-9.-]+\.[a-z]{2,}/|\bsrc\s*=|\bhref\s*=|url\(\s*['"]?[^#'"\s)]|@import|<link\b|<iframe\b|<img\b)`)

// SelfContained reports the first reference of page to anything outside
// itself.
func SelfContained(page string) error {
	if loc := external.FindStringIndex(page); loc != nil {
		return fmt.Errorf("references something outside itself at byte %d: %q", loc[0], page[max(0, loc[0]-40):min(len(page), loc[1]+40)])
	}
	return nil
}

func TestSelfContained(t *testing.T) {
	for _, name := range []string{"deadlock.trace", "philosophers-deadlock.trace", "lock-order-deadlock.trace", "rendezvous.trace"} {
		p := htmlreport.ForTraces([]string{name}, []*trace.Trace{load(t, name)})
		p.Notes = []string{"reproduce: cbcsim run https://example.com/x.toml"} // escaped text is still text, but a URL must not appear
		html := page(t, p)
		if err := SelfContained(html); err == nil {
			t.Errorf("%s: the checker missed the URL in a note", name)
		}
		p.Notes = nil
		if err := SelfContained(page(t, p)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	a, b := load(t, "rendezvous.trace"), load(t, "rendezvous-seed4.trace")
	if err := SelfContained(page(t, htmlreport.ForTraces([]string{"A", "B"}, []*trace.Trace{a, b}))); err != nil {
		t.Error(err)
	}
}

// Two runs are drawn with their first divergence, the one trace.Diff
// finds, marked on both.
func TestDiffMarksDivergence(t *testing.T) {
	a, b := load(t, "rendezvous.trace"), load(t, "rendezvous-seed4.trace")
	d := trace.Diff(a, b)
	html := page(t, htmlreport.ForTraces([]string{"A", "B"}, []*trace.Trace{a, b}))
	if n := strings.Count(html, `class="divergence"`); n != 2 {
		t.Errorf("%d divergence lines, want 2 (one per run)", n)
	}
	if !strings.Contains(html, `id="divergence"`) {
		t.Error("no element with id divergence")
	}
	want := fmt.Sprintf("First divergence at step %d", d.Div.Step)
	if !strings.Contains(html, want) {
		t.Errorf("page lacks %q", want)
	}
}

// The same trace gives the same bytes.
func TestDeterministic(t *testing.T) {
	tr := load(t, "philosophers-deadlock.trace")
	p1 := page(t, htmlreport.ForTraces([]string{"x"}, []*trace.Trace{tr}))
	p2 := page(t, htmlreport.ForTraces([]string{"x"}, []*trace.Trace{load(t, "philosophers-deadlock.trace")}))
	if p1 != p2 {
		t.Error("two pages of one trace differ")
	}
}

// A huge trace gives a bounded page that says where its timeline stops.
func TestBounded(t *testing.T) {
	t.Parallel() // independent: the slowest page to build
	var b strings.Builder
	b.WriteString("# cbcsim-trace 3\n# workers: 2\n# source: 0\n# end\n0 0 w0 global task=1\n")
	tasks := 3000
	for i := 2; i <= tasks; i++ {
		fmt.Fprintf(&b, "1 1 w0 spawn task=%d parent=1 name=child%d\n", i, i)
	}
	const steps = 400_000
	for s := 2; s < steps; s++ {
		fmt.Fprintf(&b, "%d %d w%d run task=%d\n", s, s, s%2, 1+s%tasks)
	}
	tr := parse(t, b.String())
	html := page(t, htmlreport.ForTraces([]string{"huge"}, []*trace.Trace{tr}))
	const sizeMax = 12 << 20
	if len(html) > sizeMax {
		t.Errorf("page of %d bytes, want at most %d", len(html), sizeMax)
	}
	for _, s := range []string{"The timeline stops at step", "tasks have a lane", "The tree lists 2000 of 3000 tasks"} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if n := strings.Count(html, "<rect "); n > 2*htmlreport.ElementsMax+htmlreport.TaskLanesMax {
		t.Errorf("%d rects drawn, want at most about %d", n, 2*htmlreport.ElementsMax)
	}
}

// The grid shows a cell per scenario and worker count.
func TestGrid(t *testing.T) {
	html := page(t, htmlreport.Page{Title: "check", Grid: &htmlreport.Grid{
		Workers: []int{1, 2}, SeedFirst: 1, SeedCount: 10,
		Rows: []htmlreport.GridRow{{Scenario: "a.toml", Cells: []htmlreport.GridCell{
			{Runs: 10}, {Runs: 10, Failed: 2, FailSeeds: []uint64{3, 7}, Repro: "repro/a-seed3-w2", Seeds: []uint64{3, 7}},
		}}},
	}})
	if n := strings.Count(html, `class="seed-fail"`); n != 2 {
		t.Errorf("%d failing seeds marked, want 2", n)
	}
	for _, s := range []string{`<td class="pass" title="10 runs passed">pass 10</td>`, "FAIL 2 of 10 (seeds 3, 7) repro/a-seed3-w2", "2 workers",
		"Seeds × workers: seeds 1..10", "<title>seed 7 failed</title>"} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}
