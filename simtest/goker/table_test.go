package goker

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/simtest"
)

var flagTable = flag.Bool("goker.table", false, "regenerate the GoKer table in docs/simtest.md (runs every kernel under every strategy)")

const (
	docPath     = "../../docs/simtest.md"
	nativePath  = "testdata/native.txt"
	tableBegin  = "<!-- goker-table:begin (go test ./simtest/goker -run TestGoKerTable -goker.table) -->"
	tableEnd    = "<!-- goker-table:end -->"
	gokerTotal  = 68 // blocking kernels in GoBench's GoKer
	notFoundCol = "not found"
)

// notPorted says, for each GoKer blocking kernel not in the suite, why.
var notPorted = map[string]string{}

// TestGoKerTable regenerates the table of docs/simtest.md's "GoKer
// suite" section: for each kernel, the first failing run of its buggy
// version under each strategy (in simtest's default runs: 100 seeds on 1,
// 2 and 4 workers, in that order), whether its fixed version passes the
// same runs, and how often plain `go test` shows the original kernel
// (testdata/native.txt, written by native/run.sh).
func TestGoKerTable(t *testing.T) {
	if !*flagTable {
		t.Skip("regenerates docs/simtest.md's GoKer table with -goker.table")
	}
	native, err := readNative(nativePath)
	if err != nil {
		t.Fatal(err)
	}
	strategies := []string{sim.StrategyPortfolio, sim.StrategyRandom, sim.StrategyPCT, sim.StrategyExplore}
	var rows []tableRow
	for _, k := range Kernels() {
		r := tableRow{k: k, native: native[k.ID]}
		for _, s := range strategies {
			r.tallies = append(r.tallies, simtest.Count(t, k.Body(false), append(k.options(), simtest.Strategy(s))...))
		}
		r.fixed = simtest.Count(t, k.Body(true), k.options()...)
		rows = append(rows, r)
	}
	var b bytes.Buffer
	writeTable(&b, rows, strategies)
	if err := replaceSection(docPath, b.String()); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote the table of %d kernels to %s", len(rows), docPath)
}

type tableRow struct {
	k       Kernel
	tallies []simtest.Tally // the buggy version's, per strategy
	fixed   simtest.Tally   // the fixed version's, under the kernel's strategy (the default portfolio)
	native  string
}

// found reports whether the kernel's strategy (simtest's default, the
// portfolio, unless the kernel names one) found the bug.
func (r tableRow) found(strategies []string) bool {
	want := r.k.Strategy
	if want == "" {
		want = sim.StrategyPortfolio
	}
	for i, s := range strategies {
		if s == want {
			return r.tallies[i].First > 0
		}
	}
	return false
}

func writeTable(w io.Writer, rows []tableRow, strategies []string) {
	runs := simtest.DefaultSeeds * len(simtest.DefaultWorkers())
	found, fixedClean := 0, 0
	for _, r := range rows {
		if r.found(strategies) {
			found++
		}
		if r.fixed.Failed == 0 {
			fixedClean++
		}
	}
	fmt.Fprintf(w, "%d of GoKer's %d blocking kernels ported; %d found within simtest's default %d runs (by the default portfolio strategy, or the one the found column names); %d fixed versions clean in the same runs.\n\n",
		len(rows), gokerTotal, found, runs, fixedClean)
	fmt.Fprintf(w, "| kernel | GoBench subtype | found |")
	for _, s := range strategies {
		fmt.Fprintf(w, " %s: first failing run (failing/runs) |", s)
	}
	fmt.Fprintf(w, " fixed version | plain `go test` shows the original |\n|---|---|---|")
	for range strategies {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintf(w, "---|---|\n")
	for _, r := range rows {
		foundCol := "yes"
		if !r.found(strategies) {
			foundCol = "no"
		} else if r.k.Strategy != "" {
			foundCol = "yes (" + r.k.Strategy + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s |", r.k.ID, r.k.Subtype, foundCol)
		for _, ty := range r.tallies {
			if ty.First == 0 {
				fmt.Fprintf(w, " %s (0/%d) |", notFoundCol, ty.Runs)
			} else {
				fmt.Fprintf(w, " %d (%d/%d) |", ty.First, ty.Failed, ty.Runs)
			}
		}
		fixed := fmt.Sprintf("clean (%d runs)", r.fixed.Runs)
		switch {
		case r.k.FixHangs != "":
			fixed = "still hangs: " + r.k.FixHangs
		case r.fixed.Failed != 0:
			fixed = fmt.Sprintf("FAILS %d/%d, first at run %d", r.fixed.Failed, r.fixed.Runs, r.fixed.First)
		}
		native := r.native
		if native == "" {
			native = "not measured"
		}
		fmt.Fprintf(w, " %s | %s |\n", fixed, native)
	}
	if len(notPorted) > 0 {
		ids := make([]string, 0, len(notPorted))
		for id := range notPorted {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintf(w, "\nNot ported (%d):\n\n", len(ids))
		for _, id := range ids {
			fmt.Fprintf(w, "- %s: %s\n", id, notPorted[id])
		}
	}
}

// readNative reads native/run.sh's output: "<id> <failures>/<runs>" lines.
func readNative(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || !strings.Contains(fields[1], "/") {
			return nil, fmt.Errorf("%s:%d: want \"<id> <failures>/<runs>\", got %q", path, line, sc.Text())
		}
		m[fields[0]] = fields[1]
	}
	return m, sc.Err()
}

// replaceSection puts body between the table markers of the file at path.
func replaceSection(path, body string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(doc)
	i, j := strings.Index(s, tableBegin), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s: the markers %q and %q are missing", path, tableBegin, tableEnd)
	}
	out := s[:i+len(tableBegin)] + "\n" + body + s[j:]
	return sim.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, out)
		return err
	})
}
