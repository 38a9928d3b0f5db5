package sim

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// TestEveryOpExecutes: every operation's definition runs its Sample on
// the real scheduler, seeded at one and three workers, seeded keeping
// every task, and in real mode, with every invariant holding; and the
// sample changes the seeded trace (an Exec that does nothing would not).
func TestEveryOpExecutes(t *testing.T) {
	t.Parallel()
	for _, k := range scenario.OpKinds() {
		sc, err := scenario.Parse("sample.toml", scenario.SampleSource(k))
		if err != nil {
			t.Fatalf("op %s: %v", k, err)
		}
		// The harness alone: the nursery with only its spawn.
		alone, _ := scenario.Parse("sample.toml", scenario.SampleSource(k))
		n := &alone.Tasks["main"].Ops[0]
		n.Body = n.Body[:1]
		_, aloneTrace := runOnce(t, alone, Options{Seed: 1, HasSeed: true, Workers: 1})
		for _, o := range []Options{
			{Seed: 1, HasSeed: true, Workers: 1}, {Seed: 1, HasSeed: true, Workers: 3},
			{Seed: 1, HasSeed: true, Workers: 2, Mode: ModeSeededKeep}, {Mode: ModeReal, Workers: 2},
		} {
			run, tr := runOnce(t, sc, o)
			if f := failures(run); f != "" {
				t.Errorf("op %s (%+v): checks failed:%s", k, o, f)
			}
			if o.Mode == ModeSeeded && o.Workers == 1 && tr == aloneTrace {
				t.Errorf("op %s: its Sample does not change the trace:\n%s", k, tr)
			}
		}
	}
}
