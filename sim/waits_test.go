package sim_test

import (
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// A stuck run explains itself from its events and, for a channel nobody
// has used yet, from the scenario's code: the sender is blocked before
// its send, so it is the one that could wake the receiver.
func TestWaitsOfAStuckRun(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("w.toml", []byte(`version = 1
name = "w"
[channels]
c = { capacity = 0 }
d = { capacity = 0 }
[task.main]
ops = [ { nursery = "n", body = [ { spawn = "receiver" }, { spawn = "sender" } ] } ]
[task.receiver]
ops = [ { recv = "c" } ]
[task.sender]
ops = [ { recv = "d" }, { send = "c" } ]
`))
	if err != nil {
		t.Fatal(err)
	}
	o := sim.Options{Seed: 1, HasSeed: true, Workers: 2}
	c, err := sim.Resolve(sc, o)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Execute(sc, c, o)
	if err != nil {
		t.Fatal(err)
	}
	if run.Outcome != sim.OutcomeDeadlock || !run.Waits.Stuck() {
		t.Fatalf("outcome %s, waits %v", run.Outcome, run.Waits)
	}
	got := run.Waits.Summary()
	for _, want := range []string{"main: nursery n", "receiver: recv c (sender whose code sends on c)", "sender: recv d"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	var b strings.Builder
	run.Waits.Write(&b)
	if !strings.Contains(b.String(), "no unfinished task has sent on d, and none's code does") {
		t.Errorf("waits:\n%s", b.String())
	}
}
