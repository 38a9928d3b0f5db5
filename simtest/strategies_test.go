package simtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
)

// TestExploreFindsABBA: the systematic search finds the AB-BA deadlock of
// two sched.Mutexes, shrinks it, names the strategy and the schedule, and
// saves a trace whose name says explore.
func TestExploreFindsABBA(t *testing.T) {
	withFailures(t.TempDir(), func() {
		msg := checkFails(t, abbaMutex, "deadlock", Strategy("explore"), Workers(2))
		for _, want := range []string{"strategy explore (schedule ", "shrunk to", "-simtest.strategy=explore"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message lacks %q:\n%s", want, msg)
			}
		}
		m := traceRe.FindStringSubmatch(msg)
		if m == nil || !strings.Contains(filepath.Base(m[1]), "-explore-seed0-w2") {
			t.Fatalf("trace file %v does not name the strategy:\n%s", m, msg)
		}
		if _, err := os.Stat(m[1]); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExplorePassesFixed: the fixed order (both tasks take a first) passes
// every schedule within the bound.
func TestExplorePassesFixed(t *testing.T) {
	Check(t, func(t *sched.Task) error {
		var a, b sched.Mutex
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			for range 2 {
				n.Go("ab", func(t *sched.Task) error {
					if err := a.Lock(t); err != nil {
						return err
					}
					defer a.Unlock(t)
					if err := b.Lock(t); err != nil {
						return err
					}
					b.Unlock(t)
					return nil
				})
			}
			return nil
		})
	}, Strategy("explore"), Workers(1, 2))
}

// TestTraceNamesCarryTheStrategy: random and pct traces of one seed no
// longer overwrite each other.
func TestTraceNamesCarryTheStrategy(t *testing.T) {
	withFailures(t.TempDir(), func() {
		for _, st := range []string{"random", "pct"} {
			tl := Count(t, abbaMutex, Strategy(st), Workers(2), Seeds(30), Repeat(1))
			if tl.First == 0 {
				t.Fatalf("%s: no failure in 30 seeds", st)
			}
			if !strings.Contains(filepath.Base(tl.Trace), "-"+st+"-seed") {
				t.Errorf("%s: trace %q does not name the strategy", st, tl.Trace)
			}
		}
	})
}

// TestCountCountsEveryFailure: Count runs every seed and counts the
// failing ones; a body that fails on odd seeds (its own randomness comes
// from Config().Seed) fails on exactly half of them.
func TestCountCountsEveryFailure(t *testing.T) {
	body := func(t *sched.Task) error {
		if t.Scheduler().Config().Seed%2 == 1 {
			panic("odd seed")
		}
		return nil
	}
	tl := Count(t, body, Seeds(20), Workers(1), StartSeed(100), Repeat(1))
	if tl.Runs != 20 || tl.Failed != 10 || tl.First != 2 || tl.FirstSeed != 101 {
		t.Fatalf("tally %+v, want 20 runs, 10 failed, the first at run 2 (seed 101)", tl)
	}
	ex := Count(t, abbaMutex, Strategy("explore"), Workers(2), Seeds(200))
	if ex.Failed == 0 || ex.First == 0 || ex.Runs < ex.Failed {
		t.Fatalf("explore tally %+v: want failures counted", ex)
	}
	t.Logf("random %+v; explore %+v", tl, ex)
}

// TestOptionsRejected: the new options' bad values are reported.
func TestOptionsRejected(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want string
	}{
		{[]Option{PCTDepth(3)}, "PCTDepth(3) needs Strategy"},
		{[]Option{Strategy("pct"), PCTDepth(100)}, "PCTDepth(100): want 1..64"},
		{[]Option{Strategy("explore"), Preemptions(-1)}, "Preemptions(-1)"},
		{[]Option{Strategy("dfs")}, `Strategy("dfs")`},
		{[]Option{StartSeed(1 << 63)}, "StartSeed"},
	} {
		rec := &recorder{TB: t}
		Check(rec, func(*sched.Task) error { return nil }, tc.opts...)
		if !rec.failed || !strings.Contains(rec.message(), tc.want) {
			t.Errorf("options %v: got %q, want %q", tc.want, rec.message(), tc.want)
		}
	}
}

// TestPCTDepthApplies: the depth reaches the run (its header says so).
func TestPCTDepthApplies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pct.trace")
	withFlags("3", "2", "", path, func() {
		Check(t, func(*sched.Task) error { return nil }, Strategy("pct"), PCTDepth(5), Workers(2))
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "5") || !strings.Contains(string(b), "pct") {
		t.Fatalf("trace header lacks pct depth 5:\n%.400s", b)
	}
}

// withFailures points the failures directory at dir for the length of fn.
func withFailures(dir string, fn func()) {
	old := *flagFailures
	*flagFailures = dir
	defer func() { *flagFailures = old }()
	fn()
}
