package sim_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/waits"
)

// TestWaitsNameLockHolders: a lock-order deadlock through a sched.Mutex
// and an RWMutex is explained as one through channels is: each stuck
// task, the lock it waits to take, the task that holds it, and the cycle.
// The trace's lock events (version 3) say who holds what.
func TestWaitsNameLockHolders(t *testing.T) {
	// A lock's number is given at its first lock, so it depends on which
	// task ran first: the patterns name it by what it is.
	lockDeadlocks(t, "", "", []*regexp.Regexp{
		regexp.MustCompile(`ab \(t2\) waits to read-lock (rwmutex#\d+) at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ba \(t3, holds (rwmutex#\d+)\)`),
		regexp.MustCompile(`ba \(t3\) waits to lock (mutex#\d+) at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ab \(t2, holds (mutex#\d+)\)`),
		regexp.MustCompile(`wait-for cycle: ab -> ba -> ab`),
	})
}

// TestWaitsNamedLocks: a lock given a Name is that name in every
// schedule's waits, whichever task locked first.
func TestWaitsNamedLocks(t *testing.T) {
	lockDeadlocks(t, "table_a", "index_b", []*regexp.Regexp{
		regexp.MustCompile(`ab \(t2\) waits to read-lock index_b at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ba \(t3, holds index_b\)`),
		regexp.MustCompile(`ba \(t3\) waits to lock table_a at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ab \(t2, holds table_a\)`),
	})
}

// lockDeadlocks runs, over 40 seeds, two tasks that take a Mutex and an
// RWMutex named aName and bName in opposite orders, and checks the waits
// of every run that deadlocks against want (a pattern's two groups, if
// any, must be the same lock). At least one seed must deadlock.
func lockDeadlocks(t *testing.T, aName, bName string, want []*regexp.Regexp) {
	deadlocks := 0
	for seed := uint64(0); seed < 40; seed++ {
		a := sched.Mutex{Name: aName}
		b := sched.RWMutex{Name: bName}
		r, err := sim.RunBody(sim.Body{Name: "locks", Source: "locks\n", Seed: seed, Sites: true,
			Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}},
			func(t *sched.Task) error {
				return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
					n.Go("ab", func(t *sched.Task) error {
						a.Lock(t)
						t.Yield()
						b.RLock(t)
						b.RUnlock(t)
						a.Unlock(t)
						return nil
					})
					n.Go("ba", func(t *sched.Task) error {
						b.Lock(t)
						t.Yield()
						a.Lock(t)
						a.Unlock(t)
						b.Unlock(t)
						return nil
					})
					return nil
				})
			})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != sim.OutcomeDeadlock {
			continue
		}
		deadlocks++
		text := strings.Join(r.Waits.Lines(), "\n")
		for _, re := range want {
			m := re.FindStringSubmatch(text)
			if m == nil || len(m) == 3 && m[1] != m[2] {
				t.Errorf("seed %d: the waits do not match %s:\n%s", seed, re, text)
			}
		}
	}
	if deadlocks == 0 {
		t.Fatal("no seed of 40 deadlocked")
	}
}

// TestWaitsWaitGroupAndCond: a task stuck in a WaitGroup's Wait or a
// Cond's Wait is explained as such, and the waits say why the tasks that
// could end it (Done, Signal) are not named: the trace does not record
// those calls (docs/trace-format.md#what-the-waits-name).
func TestWaitsWaitGroupAndCond(t *testing.T) {
	var wg sched.WaitGroup
	var m sched.Mutex
	c := sched.NewCond(&m)
	r, err := sim.RunBody(sim.Body{Name: "wg", Source: "wg\n", Seed: 1, Sites: true,
		Sched: sched.Config{Workers: 2, Budget: sched.Unlimited}},
		func(t *sched.Task) error {
			return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
				wg.Add(1) // never Done
				n.Go("wgwait", func(t *sched.Task) error { return wg.Wait(t) })
				n.Go("condwait", func(t *sched.Task) error {
					m.Lock(t)
					defer m.Unlock(t)
					return c.Wait(t) // never signalled
				})
				return nil
			})
		})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != sim.OutcomeDeadlock {
		t.Fatalf("outcome %s, want deadlock", r.Outcome)
	}
	text := strings.Join(r.Waits.Lines(), "\n")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`wgwait \(t\d+\) waits in a WaitGroup.s Wait at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ` + regexp.QuoteMeta(waits.NobodyWaitGroup)),
		regexp.MustCompile(`condwait \(t\d+\) waits in a Cond.s Wait at waits_lock_test\.go:\d+, since step \d+\n\s+could wake it: ` + regexp.QuoteMeta(waits.NobodyCond)),
	} {
		if !want.MatchString(text) {
			t.Errorf("the waits do not match %s:\n%s", want, text)
		}
	}
}
