package goker

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/simtest"
)

// recorder is a testing.TB that records Check's failure instead of
// failing the test, so that the suite can assert that simtest finds each
// buggy kernel.
type recorder struct {
	testing.TB
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprint(args...))
}
func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }
func (r *recorder) Log(args ...any)                   { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)   { r.Log(fmt.Sprintf(format, args...)) }

var seedRe = regexp.MustCompile(`seed (\d+), workers (\d+)`)

// firstFailure runs Check on body with opts and returns the 1-based index
// of the first failing run in Check's order (seed by seed, each seed on
// every worker count), or 0 when every run passed, and the message.
func firstFailure(t testing.TB, body sched.Func, workers []int, opts ...simtest.Option) (int, string) {
	rec := &recorder{TB: t}
	simtest.Check(rec, body, append(opts, simtest.Workers(workers...))...)
	msg := strings.Join(rec.msgs, "\n")
	if !rec.failed {
		return 0, msg
	}
	m := seedRe.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("simtest failed without naming the seed:\n%s", msg)
	}
	seed, _ := strconv.Atoi(m[1])
	w, _ := strconv.Atoi(m[2])
	for i, x := range workers {
		if x == w {
			return seed*len(workers) + i + 1, msg
		}
	}
	t.Fatalf("simtest failed on workers %d, not one of %v:\n%s", w, workers, msg)
	return 0, msg
}

// TestGoKer runs every ported kernel: the buggy version must be found
// within simtest's default runs, the fixed version must pass them.
func TestGoKer(t *testing.T) {
	for _, k := range Kernels() {
		t.Run(k.ID, func(t *testing.T) {
			opts := k.options()
			if k.Strategy != "" {
				opts = append(opts, simtest.Strategy(k.Strategy))
			}
			run, msg := firstFailure(t, k.Body(false), simtest.DefaultWorkers(), opts...)
			want := "deadlock: every task is blocked"
			if k.Livelock {
				want = "livelock:"
			}
			if run == 0 {
				t.Errorf("%s: simtest did not find the bug in %d runs", k.ID, simtest.DefaultSeeds*len(simtest.DefaultWorkers()))
			} else if !strings.Contains(firstLine(msg), want) {
				t.Errorf("%s: simtest failed, but not with %q (a bug of the port?):\n%s", k.ID, want, msg)
			} else if testing.Verbose() {
				t.Logf("found at run %d: %s", run, firstLine(msg))
			}
			if k.FixHangs != "" {
				return
			}
			if run, msg := firstFailure(t, k.Body(true), simtest.DefaultWorkers(), append(k.options(), simtest.Seeds(fixedSeeds()), simtest.Repeat(1))...); run != 0 {
				t.Errorf("%s: the fixed version failed:\n%s", k.ID, msg)
			}
		})
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fixedSeeds bounds the seeds a fixed kernel runs in TestGoKer, each run
// executed once, without the nondeterminism check's second execution:
// under `make test` (testkit.Full) 20 seeds on workers 1, 2, 4, 60 runs,
// which keeps the whole suite within 60 s under -race on the project's
// 2-core machine; in plain `go test` 4 seeds, 12 runs, four fifths of the
// suite's cost saved. A fixed version fails on none of the 300 runs the
// table gives it (TestGoKerTable, each executed twice), so the smaller
// count checks the port's fix the same way, on fewer schedules. The buggy
// versions keep simtest's defaults in both: each must still be found.
func fixedSeeds() int {
	if testkit.Full() {
		return 20
	}
	return 4
}

// options are the simtest options the kernel asks for.
func (k Kernel) options() []simtest.Option {
	if k.MaxSteps > 0 {
		return []simtest.Option{simtest.MaxSteps(k.MaxSteps)}
	}
	return nil
}
