package sched

import (
	"errors"
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/cbcsim/cbcsim/nursery"
)

func newReal(t *testing.T, workers int) *Scheduler {
	t.Helper()
	b := DefaultBudget
	b.SpawnCount = 1 << 20
	s, err := newWith(Config{Workers: workers, Seed: 1, Budget: b}, link.Options{Mode: link.RealKeep})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRealSpawnJoin: every child runs exactly once and the owner resumes
// only after all of them, on several workers under -race.
func TestRealSpawnJoin(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		s := newReal(t, workers)
		var ran atomic.Int64
		res := s.Run("main", func(t *Task) error {
			err := t.Nursery(NurseryOptions{Label: "n"}, func(n *Nursery) error {
				for i := 0; i < 1000; i++ {
					if _, err := n.Spawn(t, "child", func(t *Task) error {
						ran.Add(1)
						return t.Yield()
					}, SpawnOptions{}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if got := ran.Load(); got != 1000 {
				return errors.New("owner resumed before its children finished")
			}
			return nil
		})
		if res.Kind != nursery.KindOK {
			t.Fatalf("workers %d: main = %s", workers, res)
		}
		if s.drv().Live() != 0 {
			t.Fatalf("workers %d: %d tasks still live", workers, s.drv().Live())
		}
	}
}

// TestRealFailFastPropagates: the first child error becomes the owner's
// error, siblings looping on checkpoints are cancelled, and a panic in a
// child is a result, not a crash.
func TestRealFailFastPropagates(t *testing.T) {
	s := newReal(t, 4)
	var snap nurserySnapshot
	res := s.Run("main", func(t *Task) error {
		var nn *Nursery
		err := t.Nursery(NurseryOptions{Label: "n"}, func(n *Nursery) error {
			nn = n
			spin := func(t *Task) error {
				for {
					if err := t.Yield(); err != nil {
						return err
					}
				}
			}
			n.Spawn(t, "spin1", spin, SpawnOptions{})
			n.Spawn(t, "boom", func(t *Task) error { panic("boom") }, SpawnOptions{})
			n.Spawn(t, "spin2", spin, SpawnOptions{})
			return nil
		})
		snap = (*nurseryView)(nn).Snapshot()
		return err
	})
	if res.String() != "err:panic:boom" {
		t.Fatalf("main = %s, want err:panic:boom", res)
	}
	want := []string{"cancelled:SiblingFailed", "panic:boom", "cancelled:SiblingFailed"}
	for i, r := range snap.Results {
		if r.String() != want[i] {
			t.Fatalf("results = %v, want %v", snap.Results, want)
		}
	}
	if snap.State != nursery.Cancelled || snap.Outcome != nursery.ChildFailed {
		t.Fatalf("nursery %s/%s, want Cancelled/child_failed", snap.State, snap.Outcome)
	}
}

// TestRealTransitiveCancel: cancelling an outer nursery reaches the
// children of a nursery opened by one of its children, with the original
// reason.
func TestRealTransitiveCancel(t *testing.T) {
	s := newReal(t, 2)
	var inner atomic.Pointer[Nursery]
	res := s.Run("main", func(t *Task) error {
		return t.Nursery(NurseryOptions{Label: "outer"}, func(n *Nursery) error {
			n.Spawn(t, "mid", func(t *Task) error {
				return t.Nursery(NurseryOptions{Label: "inner"}, func(in *Nursery) error {
					_, err := in.Spawn(t, "leaf", func(t *Task) error {
						for {
							if err := t.Yield(); err != nil {
								return err
							}
						}
					}, SpawnOptions{})
					// Published only once the leaf exists, so that main's
					// cancel has a grandchild to reach.
					inner.Store(in)
					return err
				})
			}, SpawnOptions{})
			for inner.Load() == nil {
				if err := t.Yield(); err != nil {
					return err
				}
			}
			n.Cancel(t)
			return nil
		})
	})
	if res.Kind != nursery.KindOK {
		t.Fatalf("main = %s, want ok (a cancelled nursery lets its owner continue)", res)
	}
	snap := (*nurseryView)(inner.Load()).Snapshot()
	if snap.State != nursery.Cancelled || snap.Results[0].String() != "cancelled:ExplicitCancel" {
		t.Fatalf("inner nursery %s %v, want Cancelled with cancelled:ExplicitCancel", snap.State, snap.Results)
	}
}

// TestCleanupsLIFO: defers and using releases run in reverse order, also
// when the task fails, and a panic in a cleanup becomes the result while the
// remaining cleanups still run.
func TestCleanupsLIFO(t *testing.T) {
	s := newReal(t, 1)
	res := s.Run("main", func(t *Task) error {
		t.Defer("d1", func(t *Task) error { t.ops().Log("d1"); return nil })
		return t.Using("r1", func() error {
			t.Defer("d2", func(t *Task) error { t.ops().Log("d2"); panic("in cleanup") })
			t.Defer("d3", func(t *Task) error { t.ops().Log("d3"); return nil })
			return errors.New("fail")
		})
	})
	got := strings.Join(s.drv().Log(), ",")
	if got != "acquire r1,d3,d2,release r1,d1" {
		t.Fatalf("log = %s", got)
	}
	if res.String() != "panic:in cleanup" {
		t.Fatalf("main = %s, want panic:in cleanup", res)
	}
}

// TestSpawnBudget: a spawn with no spawn_count left in the pool fails the
// spawner with SpawnBudgetExhausted.
func TestSpawnBudget(t *testing.T) {
	s, err := New(Config{Workers: 1, Budget: Budget{Ops: 1000, SpawnCount: 1, Memory: 1, ChannelOps: 1, Syscalls: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run("main", func(t *Task) error {
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for i := 0; i < 2; i++ {
				if _, err := n.Spawn(t, "c", func(*Task) error { return nil }, SpawnOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if res.String() != "err:SpawnBudgetExhausted" {
		t.Fatalf("main = %s", res)
	}
}

func TestXoshiroDeterministic(t *testing.T) {
	a, b := link.NewXoshiro(42), link.NewXoshiro(42)
	for i := 0; i < 100; i++ {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed, different streams")
		}
	}
	c := link.NewXoshiro(43)
	if link.NewXoshiro(42).Uint64() == c.Uint64() {
		t.Fatal("different seeds, same first value")
	}
	counts := make([]int, 5)
	for i := 0; i < 50000; i++ {
		counts[a.Intn(5)]++
	}
	for i, n := range counts {
		if n < 9000 || n > 11000 {
			t.Fatalf("Intn(5) bucket %d has %d of 50000", i, n)
		}
	}
}

// TestSpawnCapsOnlyUnderSovereign: under service every task holds every
// capability, so a spawn's caps narrow nothing; under sovereign they do, and
// asking for more than the spawner holds is CapabilityDenied.
func TestSpawnCapsOnlyUnderSovereign(t *testing.T) {
	spawnGrandchild := func(t *Task) error {
		return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			_, err := n.Spawn(t, "leaf", func(*Task) error { return nil }, SpawnOptions{})
			return err
		})
	}
	run := func(p Profile, rootCaps Caps, o SpawnOptions) string {
		s, err := New(Config{Workers: 1, Profile: p, RootCaps: rootCaps})
		if err != nil {
			t.Fatal(err)
		}
		res := s.Run("main", func(t *Task) error {
			return t.Nursery(NurseryOptions{}, func(n *Nursery) error {
				_, err := n.Spawn(t, "child", spawnGrandchild, o)
				return err
			})
		})
		return res.String()
	}
	noCaps := SpawnOptions{HasCaps: true}
	if got := run(ProfileService, CapsAll, noCaps); got != "ok" {
		t.Errorf("service, spawn caps = []: main = %s, want ok", got)
	}
	if got := run(ProfileSovereign, CapSpawn, noCaps); got != "err:CapabilityDenied" {
		t.Errorf("sovereign, child without spawn: main = %s, want err:CapabilityDenied", got)
	}
	if got := run(ProfileSovereign, CapSpawn, SpawnOptions{HasCaps: true, Caps: CapSpawn | CapBudget}); got != "err:CapabilityDenied" {
		t.Errorf("sovereign, widening: main = %s, want err:CapabilityDenied", got)
	}
	if got := run(ProfileSovereign, CapSpawn, SpawnOptions{HasCaps: true, Caps: CapSpawn}); got != "ok" {
		t.Errorf("sovereign, child with spawn: main = %s, want ok", got)
	}
}

// TestGoAndSchedErrorText: Nursery.Go spawns with the defaults, and a
// scheduler error reads "Code: Detail" while the task's result keeps the
// code alone.
func TestGoAndSchedErrorText(t *testing.T) {
	s, err := New(Config{Workers: 2, Budget: Budget{Ops: 1000, SpawnCount: 1, Memory: 1, ChannelOps: 1, Syscalls: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var spawnErr error
	res := s.Run("main", func(t *Task) error {
		return t.Nursery(NurseryOptions{Label: "n"}, func(n *Nursery) error {
			if err := n.Go("first", func(*Task) error { return nil }); err != nil {
				return err
			}
			spawnErr = n.Go("second", func(*Task) error { return nil })
			return spawnErr
		})
	})
	if res.String() != "err:SpawnBudgetExhausted" {
		t.Fatalf("main = %s, want err:SpawnBudgetExhausted", res)
	}
	if spawnErr == nil || spawnErr.Error() != "SpawnBudgetExhausted: nursery n" {
		t.Fatalf("spawn error = %v, want %q", spawnErr, "SpawnBudgetExhausted: nursery n")
	}
}

// TestTaskSize: a spawn allocates one Task, so its size is the cost of a
// task, and a parked task's wait record is part of it; it must stay in the
// 240-byte size class (rare fields belong in taskExt). Grow it knowingly,
// with a benchmark, or not at all.
func TestTaskSize(t *testing.T) {
	if n := unsafe.Sizeof(Task{}); n > 240 {
		t.Fatalf("Task is %d bytes, over the 240-byte size class", n)
	}
}

// TestNurserySize: a nursery that cannot be reused (a timeout, a Spawn
// handle, the simulator) allocates one Nursery; keep it in the 512-byte
// size class (see TestTaskSize). It grew from 416 with reuse, the lean
// per-child slots and ChildError.Err, when most nurseries stopped
// allocating at all.
func TestNurserySize(t *testing.T) {
	if n := unsafe.Sizeof(Nursery{}); n > 576 {
		t.Fatalf("Nursery is %d bytes, over the 576-byte size class", n)
	}
}

// TestErrorMatching: errors.Is and errors.As see through a nursery to the
// child's own error value, a panic arrives as its *PanicError, and a
// SchedError matches on its code only when the codes agree.
func TestErrorMatching(t *testing.T) {
	se := &SchedError{Code: CodeCapabilityDenied, Detail: "x"}
	if !errors.Is(se, &SchedError{Code: CodeCapabilityDenied}) || errors.Is(se, &SchedError{Code: CodeResourceExhausted}) {
		t.Fatal("SchedError.Is does not match on the code")
	}
	if errors.Is(se, &SchedError{Code: CodeCapabilityDenied, Detail: "y"}) {
		t.Fatal("SchedError.Is ignores a target's Detail")
	}
	if !errors.Is(&CancelError{Reason: nursery.Timeout}, ErrCancelled) || errors.Is(se, ErrCancelled) {
		t.Fatal("ErrCancelled matches wrongly")
	}
	s := leanSched(t, 2)
	errFirst := errors.New("first")
	var gotFirst, gotPanic bool
	s.Run("main", func(t *Task) error {
		err := t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("a", func(*Task) error { return errFirst })
		})
		gotFirst = errors.Is(err, errFirst)
		err = t.Nursery(NurseryOptions{}, func(n *Nursery) error {
			return n.Go("b", func(*Task) error { panic("boom") })
		})
		var pe *PanicError
		gotPanic = errors.As(err, &pe) && pe.Value == "boom"
		return nil
	})
	if !gotFirst || !gotPanic {
		t.Fatalf("through the nursery: errors.Is %v, PanicError %v", gotFirst, gotPanic)
	}
}
