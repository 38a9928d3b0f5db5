package sched

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

// TestChanValuesAcrossCancel: senders and receivers on one typed channel,
// some of them parked when a canceller cancels their nursery, on one to
// three workers, rendezvous or buffered, for a T that is a parked task's
// value slot itself (int) and one kept in the channel's table (string).
// The values received, and those left in the buffer (drained after a
// Close), are exactly the values of the sends that succeeded, each once:
// none lost, none duplicated, and none of a send that failed; and the
// table holds no value after the run.
func TestChanValuesAcrossCancel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := chanPlan{
			workers:   rapid.IntRange(1, 3).Draw(rt, "workers"),
			capacity:  rapid.SampledFrom([]int{0, 0, 1, 3}).Draw(rt, "capacity"),
			senders:   rapid.IntRange(1, 4).Draw(rt, "senders"),
			sends:     rapid.IntRange(0, 12).Draw(rt, "sends"),
			receivers: rapid.IntRange(0, 3).Draw(rt, "receivers"),
			recvs:     rapid.IntRange(0, 12).Draw(rt, "recvs"),
			yields:    rapid.IntRange(0, 20).Draw(rt, "yields"),
		}
		checkChanValues(rt, p, func(i int) int { return i })
		checkChanValues(rt, p, func(i int) string { return fmt.Sprint("v", i) })
	})
}

// chanPlan is a run of TestChanValuesAcrossCancel.
type chanPlan struct {
	workers, capacity int
	senders, sends    int // senders, each sending sends values
	receivers, recvs  int // receivers, each receiving at most recvs values
	yields            int // the canceller's yields before it cancels
}

// checkChanValues runs p over a Chan[T] whose values are val(i) for
// distinct i, and fails rt unless the values received or left in the
// buffer are those of the successful sends, each once.
func checkChanValues[T comparable](rt *rapid.T, p chanPlan, val func(int) T) {
	s, err := New(Config{Workers: p.workers, Budget: Unlimited})
	if err != nil {
		rt.Fatal(err)
	}
	ch := NewChan[T](s, "c", p.capacity)
	var mu sync.Mutex
	var sent, got []T
	res := s.Run("main", func(root *Task) error {
		_ = root.Nursery(NurseryOptions{}, func(n *Nursery) error {
			for i := range p.senders {
				if err := n.Go("sender", func(t *Task) error {
					for j := range p.sends {
						v := val(i*1000 + j)
						if err := ch.Send(t, v); err != nil {
							return err
						}
						mu.Lock()
						sent = append(sent, v)
						mu.Unlock()
					}
					return nil
				}); err != nil {
					return err
				}
			}
			for range p.receivers {
				if err := n.Go("receiver", func(t *Task) error {
					for range p.recvs {
						v, ok, err := ch.Recv(t)
						if err != nil || !ok {
							return err
						}
						mu.Lock()
						got = append(got, v)
						mu.Unlock()
					}
					return nil
				}); err != nil {
					return err
				}
			}
			return n.Go("canceller", func(t *Task) error {
				for range p.yields {
					if err := t.Yield(); err != nil {
						return err
					}
				}
				n.Cancel(t)
				return nil
			})
		})
		if err := ch.Close(root); err != nil {
			return err
		}
		for {
			v, ok, err := ch.Recv(root)
			if err != nil || !ok {
				return err
			}
			got = append(got, v)
		}
	})
	if res.String() != "ok" {
		rt.Fatalf("%T: main = %s", *new(T), res)
	}
	// Nothing is left in the table: every token was taken back.
	if len(ch.free) != len(ch.vals) {
		rt.Fatalf("%T: %d of the table's %d tokens free after the run", *new(T), len(ch.free), len(ch.vals))
	}
	key := func(vs []T) []string {
		ks := make([]string, len(vs))
		for i, v := range vs {
			ks[i] = fmt.Sprint(v)
		}
		sort.Strings(ks)
		return ks
	}
	if ks, kg := key(sent), key(got); !reflect.DeepEqual(ks, kg) {
		rt.Fatalf("%T: sent successfully %v, received and left %v", *new(T), ks, kg)
	}
}

// TestChanWordType: which types a typed channel's parked task carries in
// its value slot itself (no pointer, at most a word) and which through
// the channel's table.
func TestChanWordType(t *testing.T) {
	type pair struct{ _, _ int32 }
	type ptrs struct{ _ *int }
	for _, c := range []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[int](), true},
		{reflect.TypeFor[float64](), true},
		{reflect.TypeFor[bool](), true},
		{reflect.TypeFor[pair](), true},
		{reflect.TypeFor[[2]uint32](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[complex128](), false},
		{reflect.TypeFor[[3]int32](), false},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[*int](), false},
		{reflect.TypeFor[ptrs](), false},
		{reflect.TypeFor[uintptr](), false},
		{reflect.TypeFor[func()](), false},
		{reflect.TypeFor[any](), false},
	} {
		if got := wordType(c.typ); got != c.want {
			t.Errorf("wordType(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
}

// TestChanParkedFrames: a task parked in a typed channel's Recv or Send
// has one frame for it, the Chan's own (Send and Recv are the channel's
// send and receive with a typed value, not wrappers of them): each frame
// of a parked task is walked by the collector at every cycle.
func TestChanParkedFrames(t *testing.T) {
	for _, send := range []bool{false, true} {
		s := leanSched(t, 1)
		ch := NewChan[string](s, "c", 0)
		var parked atomic.Int64
		var stack string
		res := s.Run("main", func(root *Task) error {
			return root.Nursery(NurseryOptions{}, func(n *Nursery) error {
				if err := n.Go("parked", func(t *Task) error {
					parked.Add(1)
					if send {
						return ch.Send(t, "v")
					}
					_, _, err := ch.Recv(t)
					return err
				}); err != nil {
					return err
				}
				var err error
				if stack, err = parkedStack(root, &parked, "TestChanParkedFrames.func1.1.1("); err != nil {
					return err
				}
				if send {
					_, _, err := ch.Recv(root)
					return err
				}
				return ch.Send(root, "v")
			})
		})
		if res.String() != "ok" {
			t.Fatalf("send %v: main = %s", send, res)
		}
		// The frames above the task's function (inlined calls, listed
		// with "(...)", have none).
		var above []string
		for line := range strings.SplitSeq(stack, "\n") {
			if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "goroutine") || strings.HasSuffix(line, "(...)") {
				continue
			}
			if strings.Contains(line, "TestChanParkedFrames.func1.1.1(") {
				break
			}
			above = append(above, line[:strings.LastIndex(line, "(")])
		}
		op := "Recv"
		if send {
			op = "Send"
		}
		want := []string{"iter.Pull[...].func1.1", "github.com/cbcsim/cbcsim/sched.(*Chan[...])." + op}
		if strings.Join(above, "\n") != strings.Join(want, "\n") {
			t.Fatalf("frames above a task parked in %s:\n%s\nwant:\n%s\nthe stack:\n%s", op, strings.Join(above, "\n"), strings.Join(want, "\n"), stack)
		}
	}
}
