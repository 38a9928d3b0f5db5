package simtest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cbcsim/cbcsim/internal/testkit"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/simtest/examples"
	"github.com/cbcsim/cbcsim/trace"
)

// recorder is a testing.TB that records Check's failures instead of
// failing the test, so that a test can run Check on a buggy body and
// assert that it failed, and how.
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

func (r *recorder) message() string { return strings.Join(r.msgs, "\n") }

// checkFails runs Check on a recorder and returns its failure message,
// failing t if Check passed or the message lacks want.
func checkFails(t *testing.T, body sched.Func, want string, opts ...Option) string {
	t.Helper()
	rec := &recorder{TB: t}
	Check(rec, body, opts...)
	if !rec.failed {
		t.Fatalf("Check passed a buggy body; it logged:\n%s", rec.message())
	}
	msg := rec.message()
	if !strings.Contains(msg, want) {
		t.Fatalf("Check's failure lacks %q:\n%s", want, msg)
	}
	return msg
}

var (
	seedRe  = regexp.MustCompile(`seed (\d+), workers (\d+)`)
	traceRe = regexp.MustCompile(`trace: (\S+)`)
	rerunRe = regexp.MustCompile(`rerun: (go test .*)`)
)

// withFlags sets simtest's flags as a rerun command does, for the length
// of fn.
func withFlags(seed, workers, strategy, tracePath string, fn func()) {
	old := [4]string{*flagSeed, fmt.Sprint(*flagWorkers), *flagStrategy, *flagTrace}
	*flagSeed, *flagStrategy, *flagTrace = seed, strategy, tracePath
	fmt.Sscan(workers, flagWorkers)
	defer func() {
		*flagSeed, *flagStrategy, *flagTrace = old[0], old[2], old[3]
		fmt.Sscan(old[1], flagWorkers)
	}()
	fn()
}

// assertReruns checks what a failure message promises: a trace file that
// parses, a rerun command naming the test, the seed and the worker count,
// and that the rerun (the same flags) fails the same way, with the same
// trace.
func assertReruns(t *testing.T, msg string, body sched.Func, opts ...Option) {
	t.Helper()
	m := seedRe.FindStringSubmatch(msg)
	tm := traceRe.FindStringSubmatch(msg)
	rm := rerunRe.FindStringSubmatch(msg)
	if m == nil || tm == nil || rm == nil {
		t.Fatalf("failure message lacks seed, trace or rerun:\n%s", msg)
	}
	want := fmt.Sprintf("go test -run '^%s$' -simtest.seed=%s -simtest.workers=%s", regexp.QuoteMeta(t.Name()), m[1], m[2])
	if !strings.HasPrefix(rm[1], want) {
		t.Fatalf("rerun command %q, want it to start with %q", rm[1], want)
	}
	first, err := os.ReadFile(tm[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Parse(bytes.NewReader(first)); err != nil {
		t.Fatalf("the failure's trace %s does not parse: %v", tm[1], err)
	}
	strategy := ""
	if strings.Contains(rm[1], "-simtest.strategy=pct") {
		strategy = "pct"
	}
	again := t.TempDir() + "/again.trace"
	var rerun string
	withFlags(m[1], m[2], strategy, again, func() { rerun = checkFails(t, body, m[0], opts...) })
	if len(seedRe.FindAllString(rerun, -1)) != 1 {
		t.Fatalf("the rerun ran more than the one run:\n%s", rerun)
	}
	second, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("the rerun wrote another trace than the failure")
	}
	os.Remove(tm[1])
}

func TestLockOrderDeadlock(t *testing.T) {
	msg := checkFails(t, examples.LockOrder(false), "deadlock")
	t.Logf("the failure, as a test prints it:\n%s", msg)
	// Each stuck task by name, with the channel it waits on, the Go line
	// of its sched call and who holds the lock; then the cycle.
	for _, re := range []string{
		`a_to_b \(t\d+\) waits to send on channel lock_b at bugs\.go:\d+, since step \d+\n\s+could wake it: b_to_a \(t\d+, holds lock_b\)`,
		`b_to_a \(t\d+\) waits to send on channel lock_a at bugs\.go:\d+`,
		`main \(t1\) waits for the end of nursery transfers at bugs\.go:\d+`,
		`wait-for cycle: (a_to_b -> b_to_a -> a_to_b|b_to_a -> a_to_b -> b_to_a)`,
	} {
		if !regexp.MustCompile(re).MatchString(msg) {
			t.Errorf("the failure message does not match %s", re)
		}
	}
	assertReruns(t, msg, examples.LockOrder(false))
}

func TestLostMessage(t *testing.T) {
	msg := checkFails(t, examples.LostMessage(false), "lost")
	assertReruns(t, msg, examples.LostMessage(false))
}

func TestBoundedBufferStarves(t *testing.T) {
	msg := checkFails(t, examples.BoundedBuffer(false), "livelock", MaxSteps(20_000))
	assertReruns(t, msg, examples.BoundedBuffer(false), MaxSteps(20_000))
}

func TestLockOrderDeadlockPCT(t *testing.T) {
	msg := checkFails(t, examples.LockOrder(false), "deadlock", Strategy("pct"))
	assertReruns(t, msg, examples.LockOrder(false), Strategy("pct"))
}

// TestFixedVersionsPass: the fixed examples pass Check's default 300
// runs under `make test` (testkit.Full), seeds 0..24 (75 runs, each twice
// for the nondeterminism check) in plain `go test`.
func TestFixedVersionsPass(t *testing.T) {
	t.Parallel()
	opts := []Option{MaxSteps(20_000)}
	if !testkit.Full() {
		opts = append(opts, Seeds(25))
	}
	for name, body := range map[string]sched.Func{
		"LockOrder": examples.LockOrder(true), "LostMessage": examples.LostMessage(true),
		"BoundedBuffer": examples.BoundedBuffer(true),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			Check(t, body, opts...)
		})
	}
}

func TestRacyGoroutineIsNondeterministic(t *testing.T) {
	t.Parallel()
	msg := checkFails(t, examples.RacyGoroutine(), "nondeterministic")
	if !strings.Contains(msg, "real goroutine") {
		t.Fatalf("the message does not name the likely cause:\n%s", msg)
	}
}

func TestBlockedOutsideScheduler(t *testing.T) {
	t.Parallel()
	checkFails(t, examples.BlockedOnGoroutine(), "blocked outside the scheduler", Stall(300*time.Millisecond), Seeds(1))
}

func TestBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []Option{Seeds(0), Workers(), Workers(0), Strategy("dfs"), Repeat(0), MaxSteps(0), Stall(0)} {
		rec := &recorder{TB: t}
		Check(rec, examples.LockOrder(true), o)
		if !rec.failed || !strings.HasPrefix(rec.message(), "simtest: ") {
			t.Errorf("a bad option was accepted or reported as %q", rec.message())
		}
	}
}

func TestRerunCommandSubtest(t *testing.T) {
	t.Parallel()
	got := RerunCommand("TestX/case_1.a", 5, 2, "pct")
	want := `go test -run '^TestX$/^case_1\.a$' -simtest.seed=5 -simtest.workers=2 -simtest.strategy=pct`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCheckScenarios(t *testing.T) {
	t.Parallel()
	CheckScenarios(t, "../scenarios/basic_*.toml", Seeds(5), Workers(1, 2))
}

// A goroutine whose timing changes nothing in the trace is still found
// when it is alive at a look (here: left running when the body ends):
// the run's goroutines are looked for, not only the traces compared.
func TestQuietGoroutineIsNondeterministic(t *testing.T) {
	t.Parallel()
	body := func(t *sched.Task) error {
		got := make(chan int)
		go func() { got <- 42; got <- 43 }() // the second result is never wanted: the goroutine leaks
		if err := t.Yield(); err != nil {
			return err
		}
		if v := <-got; v != 42 {
			return fmt.Errorf("got %d", v)
		}
		return nil
	}
	msg := checkFails(t, body, "started a real goroutine", Seeds(1), Workers(1))
	if !strings.Contains(msg, "simtest.TestQuietGoroutineIsNondeterministic") {
		t.Fatalf("the message does not show where the goroutine runs:\n%s", msg)
	}
}

// -simtest.trace writes the trace of a passing run too, and the trace is
// the one the run writes every time.
func TestTraceFlagPassingRun(t *testing.T) {
	path := t.TempDir() + "/pass.trace"
	withFlags("3", "2", "", path, func() { Check(t, examples.LockOrder(true)) })
	a, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no trace written for a passing run: %v", err)
	}
	tr, err := trace.Parse(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := tr.Header.Get("seed"); !ok || f.Int != 3 {
		t.Fatalf("the trace's seed is %v, want 3", f)
	}
	withFlags("3", "2", "", path, func() { Check(t, examples.LockOrder(true)) })
	if b, _ := os.ReadFile(path); !bytes.Equal(a, b) {
		t.Fatal("the same seed wrote another trace")
	}
}

// At one worker a body whose run makes no policy decision is the same run
// for every seed: Check runs it once (and logs why), not once per seed.
func TestOneWorkerNoDecisionRunsOnce(t *testing.T) {
	calls := 0
	body := func(t *sched.Task) error {
		calls++
		return t.Checkpoint()
	}
	Check(t, body, Workers(1), Seeds(10))
	if calls != DefaultRepeat {
		t.Errorf("the body ran %d times, want %d: one seed, executed %d times", calls, DefaultRepeat, DefaultRepeat)
	}
	calls = 0
	Check(t, body, Workers(2), Seeds(3), Strategy("random"))
	if calls != 3*DefaultRepeat {
		t.Errorf("at 2 workers the body ran %d times, want %d", calls, 3*DefaultRepeat)
	}
}
