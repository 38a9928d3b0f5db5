package waits

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/trace"
)

// lockOrder is the end of a lock-order deadlock: main waits on its
// nursery, a_to_b holds lock_a and waits to receive lock_b, b_to_a the
// other way round.
const lockOrder = `# cbcsim-trace 3
# source: 0
# end
1 1 w0 nursery task=1 nursery=1 label=n mode=fail_fast to=Open
1 1 w0 chan task=1 op=send ch=lock_a via=buffer
1 1 w0 chan task=1 op=send ch=lock_b via=buffer
2 2 w0 spawn task=2 parent=1 nursery=1 name=a_to_b admit=run
3 3 w0 spawn task=3 parent=1 nursery=1 name=b_to_a admit=run
3 3 w0 block task=1 on="nursery n (n1)" at="task.main.ops[0]"
4 4 w0 run task=2 at="task.a_to_b.ops[0]"
4 4 w0 chan task=2 op=recv ch=lock_a peer=1 via=buffer
5 5 w1 run task=3 at="task.b_to_a.ops[0]"
5 5 w1 chan task=3 op=recv ch=lock_b peer=1 via=buffer
6 6 w0 block task=2 on="recv lock_b" at="task.a_to_b.ops[1]"
7 7 w1 block task=3 on="recv lock_a" at="task.b_to_a.ops[1]"
8 8 sim deadlock live=3
8 8 sim outcome outcome=deadlock result=pending
`

func analyse(t *testing.T, text string) *Analysis {
	t.Helper()
	tr, err := trace.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return FromEvents(tr.Events)
}

func TestLockOrder(t *testing.T) {
	a := analyse(t, lockOrder)
	if a.Outcome != "deadlock" || len(a.Waits) != 3 {
		t.Fatalf("outcome %q, %d waits, want deadlock and 3", a.Outcome, len(a.Waits))
	}
	want := "main: nursery n; a_to_b: recv lock_b (b_to_a holds lock_b); b_to_a: recv lock_a (a_to_b holds lock_a); cycle a_to_b -> b_to_a -> a_to_b"
	if got := a.Summary(); got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
	var b strings.Builder
	a.Write(&b)
	wantText := `Waits (who waits on what, who could wake it)
  main (t1) waits for the end of nursery n at task.main.ops[0], since step 3
      could wake it: a_to_b (t2, child of n), b_to_a (t3, child of n)
  a_to_b (t2) waits to receive on channel lock_b at task.a_to_b.ops[1], since step 6
      could wake it: b_to_a (t3, holds lock_b)
  b_to_a (t3) waits to receive on channel lock_a at task.b_to_a.ops[1], since step 7
      could wake it: a_to_b (t2, holds lock_a)
  wait-for cycle: a_to_b -> b_to_a -> a_to_b
`
	if b.String() != wantText {
		t.Errorf("Write:\n%s\nwant\n%s", b.String(), wantText)
	}
}

func TestNobodyAndOthers(t *testing.T) {
	a := analyse(t, `# cbcsim-trace 3
# source: 0
# end
1 1 w0 nursery task=1 nursery=1 label=n mode=fail_fast to=Open
2 2 w0 spawn task=2 parent=1 nursery=1 name=receiver admit=run
2 2 w0 spawn task=3 parent=1 nursery=1 name=sleeper admit=run
2 2 w0 spawn task=4 parent=1 nursery=1 name=worker admit=run
2 2 w0 spawn task=5 parent=1 nursery=1 name=spinner admit=run
3 3 w0 block task=1 on="nursery n (n1)"
4 4 w0 block task=2 on="recv c"
5 5 w0 block task=3 on=sleep until=40
6 6 w0 exhausted task=4 comp=ops
6 6 w0 block task=4 on=recharge
7 7 w0 run task=5
8 8 sim livelock max_steps=8
`)
	got := []string{}
	for _, w := range a.Waits {
		got = append(got, w.Name+"|"+string(w.Kind)+"|"+w.Nobody)
	}
	want := []string{
		"main|nursery|",
		"receiver|recv|unknown: the trace does not record channel operations (recorded before chan events)",
		"sleeper|sleep|the clock",
		"worker|recharge|",
		"spinner|runnable|any worker (it is ready to run)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("waits:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Waits[2].What() != "in a sleep until tick 40" || a.Waits[3].Wakers[0].Name != "main" || len(a.Cycle) != 2 {
		t.Errorf("sleep %q, recharge wakers %v, cycle %v", a.Waits[2].What(), a.Waits[3].Wakers, a.Cycle)
	}
	// main waits for worker to end, worker for main to recharge it.
	if a.Outcome != "" {
		t.Errorf("outcome %q without an outcome event", a.Outcome)
	}
}

func TestFinishedRunHasNoWaits(t *testing.T) {
	a := analyse(t, `# cbcsim-trace 3
# source: 0
# end
1 1 w0 run task=1
1 1 w0 result task=1 result=ok
2 2 sim outcome outcome=ok result=ok
`)
	if a.Stuck() || a.Summary() != "" || a.Lines() != nil {
		t.Errorf("a finished run explains %q", a.Summary())
	}
}

// A chain of a hundred thousand waits closed into a ring is one cycle,
// found without a frame per task.
func TestLongCycle(t *testing.T) {
	const n = 100_000
	a := &Analysis{names: map[int64]string{}}
	for i := int64(1); i <= n; i++ {
		next := i%n + 1
		a.Waits = append(a.Waits, Wait{Task: i, Kind: KindRecv, Wakers: []Waker{{Task: next}}})
	}
	c := cycle(a)
	if len(c) != n || c[0] != 1 || c[n-1] != n {
		t.Fatalf("cycle of %d tasks from %v", len(c), c[:min(len(c), 3)])
	}
}
