package deque

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The history of one run: operations on a Deque[int] whose items are the
// ints 1, 2, 3, ... so that 0 can stand for a nil result.

type opKind int

const (
	opPush opKind = iota
	opPop
	opSteal
)

type dequeInput struct {
	kind opKind
	v    int // the item pushed; unused by Pop and Steal
}

// dequeModel is the sequential deque: its state is the items from top to
// bottom, as an immutable []int (Step never writes a slice it was given).
//
// Push appends at the bottom. Pop takes the bottom item, and may return nil
// (0) only when the state is empty. Steal takes the top item, or returns nil
// in any state: a nil Steal is allowed to be spurious, when it lost a race,
// and the model cannot tell which nils were. TestLinearizable checks
// separately that not every steal came back nil.
//
// popFIFO breaks the model on purpose: Pop takes the top item instead, which
// real histories must refute.
func dequeModel(popFIFO bool) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return []int(nil) },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.([]int), input.(dequeInput), output.(int)
			switch in.kind {
			case opPush:
				// Clip so that append copies rather than writing into
				// a slice another state shares.
				return true, append(slices.Clip(s), in.v)
			case opPop:
				if len(s) == 0 {
					return out == 0, s
				}
				if popFIFO {
					return out == s[0], s[1:]
				}
				return out == s[len(s)-1], s[:len(s)-1]
			case opSteal:
				if out == 0 {
					return true, s
				}
				return len(s) > 0 && out == s[0], s[min(1, len(s)):]
			}
			panic("unknown op")
		},
		Equal: func(a, b any) bool { return slices.Equal(a.([]int), b.([]int)) },
		Hash: func(state any) uint64 {
			h := uint64(14695981039346656037) // FNV-1a over the items
			for _, v := range state.([]int) {
				h = (h ^ uint64(v)) * 1099511628211
			}
			return h
		},
		DescribeOperation: describeOp,
		DescribeState:     func(state any) string { return fmt.Sprint(state.([]int)) },
	}
}

func describeOp(input, output any) string {
	in, out := input.(dequeInput), output.(int)
	switch in.kind {
	case opPush:
		return fmt.Sprintf("Push(%d)", in.v)
	case opPop:
		return fmt.Sprintf("Pop() -> %s", itemString(out))
	default:
		return fmt.Sprintf("Steal() -> %s", itemString(out))
	}
}

func itemString(v int) string {
	if v == 0 {
		return "nil"
	}
	return fmt.Sprint(v)
}

// recorder stamps operations with a shared monotonic counter: an
// operation's call stamp is taken before it starts and its return stamp
// after it ends, so any operation that finished before another started has
// a smaller return stamp than the other's call stamp.
type recorder struct {
	clock atomic.Int64 // orders the stamps of all clients of one history
	d     *Deque[int]
	vals  []int // item storage, so each Push gets a distinct pointer
}

func (r *recorder) do(client int, in dequeInput) porcupine.Operation {
	// fetch-add, seq-cst: the call stamp precedes the operation.
	call := r.clock.Add(1)
	out := 0
	switch in.kind {
	case opPush:
		r.d.Push(&r.vals[in.v])
	case opPop:
		if p := r.d.Pop(); p != nil {
			out = *p
		}
	case opSteal:
		if p := r.d.Steal(); p != nil {
			out = *p
		}
	}
	// fetch-add, seq-cst: the return stamp follows the operation.
	ret := r.clock.Add(1)
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

// step is one client's next operation and the pause before it.
type step struct {
	in    dequeInput
	pause int // spins before the operation; yieldPause means runtime.Gosched
}

const (
	// pauseMax bounds the spins a client makes before an operation, so
	// that clients drift against each other and overlap in varied ways.
	pauseMax = 256
	// yieldPause asks for a runtime.Gosched instead of a spin, so that with
	// three clients on two Ps the third gets turns mid-history.
	yieldPause = -1
)

// scriptHistory draws the operations of history h: one owner script
// (client 0) of ownerOps pushes and pops, and thiefOps steals for each
// thief. Drawing everything up front from the seed fixes the operations
// whatever the interleaving turns out to be.
func scriptHistory(seed uint64, h, ownerOps, thiefOps, thieves int) [][]step {
	rng := pcg(seed, h)
	pause := func() int {
		if rng.IntN(4) == 0 {
			return yieldPause
		}
		return rng.IntN(pauseMax)
	}
	scripts := make([][]step, 1+thieves)
	pushed := 0
	for range ownerOps {
		in := dequeInput{kind: opPop}
		if rng.IntN(100) < 60 {
			pushed++
			in = dequeInput{kind: opPush, v: pushed}
		}
		scripts[0] = append(scripts[0], step{in, pause()})
	}
	for c := 1; c <= thieves; c++ {
		for range thiefOps {
			scripts[c] = append(scripts[c], step{dequeInput{kind: opSteal}, pause()})
		}
	}
	return scripts
}

// recordHistories runs the scripted histories one after another, each on a
// fresh deque with a small ring (so histories cross growth), and returns
// each history's operations. It stops early, after at least historiesMin
// histories, once budget has passed, so that a loaded machine shortens the
// run instead of stretching it; it fails if the watchdog fires first.
//
// The clients are goroutines that live across all the histories and wait
// for the next one by spinning with runtime.Gosched, then, if that takes
// long (the machine is busy), by blocking. Starting fresh goroutines per
// history gave almost no overlap: a goroutine needs tens of microseconds to
// reach an idle P, longer than a whole script, while busy goroutines keep
// both Ps awake and trade places within a microsecond.
func recordHistories(seed uint64, scripts [][][]step, historiesMin int, budget, timeout time.Duration) ([][]porcupine.Operation, error) {
	const spinsMax = 64 // Gosched spins before a waiting client blocks
	clients := len(scripts[0])
	recs := make([]*recorder, len(scripts))
	ops := make([][][]porcupine.Operation, len(scripts))
	started := make([]chan struct{}, len(scripts)+1) // started[h] closes when history h may run
	for h := range scripts {
		recs[h] = &recorder{d: New[int](pcg(seed, h).IntN(9)), vals: make([]int, len(scripts[h][0])+1)}
		for i := range recs[h].vals {
			recs[h].vals[i] = i
		}
		ops[h] = make([][]porcupine.Operation, clients)
		started[h] = make(chan struct{})
	}
	started[len(scripts)] = make(chan struct{})
	close(started[0])
	var (
		// current is the history the clients may run; the last client to
		// finish one advances it. Its store is ordered after limit's.
		current  atomic.Int64
		limit    atomic.Int64 // how many histories to record
		finished = make([]atomic.Int32, len(scripts))
		stopped  = make(chan struct{})
	)
	limit.Store(int64(len(scripts)))
	begin := time.Now()
	watchdog := time.AfterFunc(timeout, func() { close(stopped) })
	defer watchdog.Stop()

	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for h := range scripts {
				for spins := 0; current.Load() < int64(h); spins++ {
					if spins < spinsMax {
						runtime.Gosched()
						continue
					}
					select {
					case <-started[h]:
					case <-stopped:
						return
					}
				}
				if int64(h) >= limit.Load() {
					return
				}
				r := recs[h]
				for _, s := range scripts[h][c] {
					if s.pause == yieldPause {
						runtime.Gosched()
					}
					for range s.pause {
						spinSink.Add(1)
					}
					ops[h][c] = append(ops[h][c], r.do(c, s.in))
				}
				if finished[h].Add(1) == int32(clients) {
					if h+1 >= historiesMin && time.Since(begin) > budget {
						limit.Store(int64(h) + 1)
					}
					current.Store(int64(h) + 1)
					close(started[h+1])
				}
			}
		})
	}
	wg.Wait()
	n := int(current.Load())
	if n < int(limit.Load()) {
		return nil, fmt.Errorf("deque: recordHistories: %d of %d histories recorded after %v", n, len(scripts), timeout)
	}
	histories := make([][]porcupine.Operation, n)
	for h := range histories {
		histories[h] = slices.Concat(ops[h]...)
	}
	return histories, nil
}

// spinSink gives the pause loops a side effect the compiler must keep.
var spinSink atomic.Int64

// TestLinearizable records many short concurrent histories of one owner and
// two thieves and checks with porcupine that each is linearizable against
// the sequential deque. It also checks that steals were not all nil (the
// model allows any Steal to return nil), and that the deliberately broken
// FIFO-Pop model is refuted by some of the same histories, so a pass means
// the checker looked.
//
// It logs how many pairs of operations from different clients overlapped in
// time, but does not assert it: on a machine whose CPUs do not really run at
// once (the two-vCPU development VM gives two busy threads about one CPU of
// time between them) overlaps come only from the host descheduling a client
// mid-operation, and a run may see none. Clients still interleave at every
// yield, so steals race with pops and pushes at operation granularity; the
// stress test covers the fine-grained races by volume.
func TestLinearizable(t *testing.T) {
	const (
		thieves  = 2
		thiefOps = 6
	)
	// Up to historiesMax histories, stopping after historiesMin once budget
	// has passed.
	historiesMin, historiesMax, budget := 200, 1000, 3*time.Second
	if testing.Short() {
		historiesMax = historiesMin
	}
	seed := testSeed(t)
	rng := pcg(seed, -1)
	t.Logf("HISTORIES %d..%d BUDGET %v THIEVES %d THIEF_OPS %d OWNER_OPS 16..28 PAUSE <%d GOMAXPROCS %d",
		historiesMin, historiesMax, budget, thieves, thiefOps, pauseMax, runtime.GOMAXPROCS(0))

	scripts := make([][][]step, historiesMax)
	for h := range scripts {
		scripts[h] = scriptHistory(seed, h, 16+rng.IntN(13), thiefOps, thieves)
	}
	recorded, err := recordHistories(seed, scripts, historiesMin, budget, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}

	good, broken := dequeModel(false), dequeModel(true)
	ops, steals, stealsNil, refuted, overlapping := 0, 0, 0, 0, 0
	for h, history := range recorded {
		ops += len(history)
		for i, op := range history {
			if op.Input.(dequeInput).kind == opSteal {
				steals++
				if op.Output.(int) == 0 {
					stealsNil++
				}
			}
			for _, other := range history[i+1:] {
				if op.ClientId != other.ClientId && op.Call < other.Return && other.Call < op.Return {
					overlapping++
				}
			}
		}
		res, info := porcupine.CheckOperationsVerbose(good, history, 10*time.Second)
		if res != porcupine.Ok {
			t.Fatalf("history %d: porcupine says %s\nOPS %d\n%s\n%s", h, res, len(history),
				lastLines(describeHistory(history), 60), visualize(good, info))
		}
		if porcupine.CheckOperationsTimeout(broken, history, 10*time.Second) == porcupine.Illegal {
			refuted++
		}
	}
	t.Logf("%d histories, %d ops, steals %d (%d nil), overlapping op pairs %d, broken model refuted by %d histories",
		len(recorded), ops, steals, stealsNil, overlapping, refuted)
	if stealsNil == steals {
		t.Errorf("all %d steals returned nil: the histories tested nothing concurrent", steals)
	}
	if refuted == 0 {
		t.Errorf("the FIFO-Pop model passed every history: the checker is not discriminating")
	}
}

// TestBrokenModelRejected checks that porcupine can fail: on a history in
// which LIFO order is observable (push 1, push 2, pop returns 2) the FIFO-Pop
// model must be Illegal while the real model is Ok.
func TestBrokenModelRejected(t *testing.T) {
	t.Parallel()
	r := &recorder{d: New[int](8), vals: []int{0, 1, 2}}
	history := []porcupine.Operation{
		r.do(0, dequeInput{kind: opPush, v: 1}),
		r.do(0, dequeInput{kind: opPush, v: 2}),
		r.do(0, dequeInput{kind: opPop}),
		r.do(1, dequeInput{kind: opSteal}),
	}
	if got := history[2].Output.(int); got != 2 {
		t.Fatalf("Pop after Push(1), Push(2) = %s, want 2", itemString(got))
	}
	if got := history[3].Output.(int); got != 1 {
		t.Fatalf("Steal = %s, want 1", itemString(got))
	}
	if res := porcupine.CheckOperationsTimeout(dequeModel(false), history, time.Second); res != porcupine.Ok {
		t.Errorf("real model: %s, want Ok", res)
	}
	if res := porcupine.CheckOperationsTimeout(dequeModel(true), history, time.Second); res != porcupine.Illegal {
		t.Errorf("FIFO-Pop model: %s, want Illegal", res)
	}
}

func describeHistory(history []porcupine.Operation) []string {
	sorted := slices.Clone(history)
	slices.SortFunc(sorted, func(a, b porcupine.Operation) int { return int(a.Call - b.Call) })
	lines := make([]string, len(sorted))
	for i, op := range sorted {
		lines[i] = fmt.Sprintf("[%4d,%4d] client %d: %s", op.Call, op.Return, op.ClientId, describeOp(op.Input, op.Output))
	}
	return lines
}

// visualize writes porcupine's HTML view of a failed check to a file that
// outlives the test and returns a line naming it.
func visualize(model porcupine.Model, info porcupine.LinearizationInfo) string {
	f, err := os.CreateTemp("", "deque-linearizability-*.html")
	if err != nil {
		return fmt.Sprintf("(no visualization: %v)", err)
	}
	defer f.Close()
	if err := porcupine.Visualize(model, info, f); err != nil {
		return fmt.Sprintf("(no visualization: %v)", err)
	}
	return "visualization: " + f.Name()
}
