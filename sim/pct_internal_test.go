package sim

import "testing"

// TestPCTLengthPerMode: the probe's length is cached per mode, so a
// seeded-v2 replay after a seeded run of the same scenario draws its
// change points from its own length (the two schedulers take different
// numbers of working steps), whichever ran first.
func TestPCTLengthPerMode(t *testing.T) {
	t.Parallel()
	sc := loadFile(t, "../scenarios/channel_rendezvous.toml")
	length := func(m Mode) int64 {
		c, err := Resolve(sc, Options{Seed: 9, HasSeed: true, Workers: 2, Strategy: StrategyPCT, Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		return pctLength(sc, c)
	}
	v3, v2 := length(ModeSeeded), length(ModeSeededV2)
	c, err := Resolve(sc, Options{Seed: 9, HasSeed: true, Workers: 2, Strategy: StrategyPCT, Mode: ModeSeededV2})
	if err != nil {
		t.Fatal(err)
	}
	pc := c
	pc.Seed, pc.Strategy, pc.PCTDepth = 0, StrategyExplore, 0
	probe := &pctProbe{}
	if _, err := Execute(sc, pc, Options{Chooser: probe}); err != nil {
		t.Fatal(err)
	}
	if want := max(probe.steps, 2); v2 != want {
		t.Fatalf("seeded-v2 length after a seeded one = %d, want its own probe's %d (seeded: %d)", v2, want, v3)
	}
}
