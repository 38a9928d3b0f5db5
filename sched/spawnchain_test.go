package sched

import (
	"errors"
	"fmt"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/trace"
)

// untouchable fails the test if anything reads it: an error chain below a
// ChildError that must not be walked again.
type untouchable struct{ t *testing.T }

func (u untouchable) Error() string {
	u.t.Fatal("Error called on an already classified chain")
	return ""
}
func (u untouchable) Unwrap() error {
	u.t.Fatal("Unwrap called on an already classified chain")
	return nil
}

// A ChildError's chain is classified once, when it is made: resultOf and
// the next level's ChildError read that, so a failure rising through n
// nested nurseries costs O(n), not O(n^2) (a self-spawning task ran 30,000
// levels deep in over 20 s before).
func TestClassifyStopsAtChildError(t *testing.T) {
	se := &SchedError{Code: CodeSpawnBudgetExhausted}
	ce := &ChildError{Text: "x", Err: untouchable{t}, cls: errClass{sched: se}}
	wrapped := fmt.Errorf("level: %w", ce)
	if got := resultOf(wrapped, 0, false); got != nursery.Err(CodeSpawnBudgetExhausted) {
		t.Fatalf("resultOf = %v, want err:%s", got, CodeSpawnBudgetExhausted)
	}
	if c := classify(&ChildError{Err: wrapped, cls: classify(wrapped)}); c.sched != se {
		t.Fatalf("classify lost the SchedError: %+v", c)
	}
}

// classify agrees with errors.As on chains without a ChildError, trees
// included.
func TestClassifyMatchesErrorsAs(t *testing.T) {
	ce, se := &CancelError{Reason: nursery.SiblingFailed}, &SchedError{Code: CodeResourceExhausted}
	for _, err := range []error{
		errors.New("plain"),
		fmt.Errorf("a: %w", se),
		fmt.Errorf("a: %w", fmt.Errorf("b: %w", ce)),
		errors.Join(errors.New("x"), se, ce),
		fmt.Errorf("%w and %w", se, ce),
	} {
		var wc *CancelError
		var ws *SchedError
		errors.As(err, &wc)
		errors.As(err, &ws)
		if c := classify(err); c.cancel != wc || c.sched != ws {
			t.Errorf("classify(%v) = %+v, errors.As gives %v, %v", err, c, wc, ws)
		}
	}
}

type nopSink struct{}

func (nopSink) Emit(int, trace.Kind, []trace.Field) {}
func (nopSink) Now() uint64                         { return 0 }

// Under the seeded driver a nursery whose pool is no smaller than what is
// left above links its quota past itself, so a spawn in a chain of
// self-spawning tasks pays one pool, not one per level; a smaller pool
// still counts.
func TestQuotaLinksPastLargerPools(t *testing.T) {
	const depth = 50
	budget := DefaultBudget
	budget.SpawnCount = 1000
	s, err := newWith(Config{Workers: 1, Budget: budget}, link.Options{Mode: link.SeededKeep, Sink: nopSink{}, Clock: nopSink{}})
	if err != nil {
		t.Fatal(err)
	}
	var chain Func
	level := 0
	chain = func(t *Task) error {
		level++
		if level > depth {
			return nil
		}
		o := NurseryOptions{Label: "n"}
		if level == depth-3 {
			small := budget
			small.SpawnCount = 5
			o.Budget = &small
		}
		return t.Nursery(o, func(n *Nursery) error { return n.Go("c", chain) })
	}
	s.drv().Start("main", chain)
	for steps := 0; !s.Done(); steps++ {
		if steps > 1e6 {
			t.Fatal("the chain did not finish")
		}
		for _, w := range s.drv().Workers() {
			if !w.Parked() {
				w.Step()
			}
		}
	}
	ns := s.drv().Nurseries()
	if len(ns) < depth {
		t.Fatalf("%d nurseries, want %d", len(ns), depth)
	}
	for i, n := range ns {
		switch {
		case i == 0 || i == depth-4:
			if n.quota != n {
				t.Errorf("nursery %d: a pool smaller than what is left above must count itself", i)
			}
		case n.quota == n:
			t.Errorf("nursery %d: its pool can never run out first, yet it is its own quota", i)
		}
	}
}
