package sim

import (
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
)

// Each mode maps to the driver mode its doc comment names: real modes
// are not stepped, and exactly seeded-keep and real keep every task.
func TestModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		real, lean bool
		want       Mode
	}{{false, false, ModeSeeded}, {true, false, ModeReal}, {true, true, ModeRealLean}, {false, true, ModeSeeded}} {
		if got := ModeOf(c.real, c.lean); got != c.want {
			t.Errorf("ModeOf(%v, %v) = %v, want %v", c.real, c.lean, got, c.want)
		}
	}
	seen := map[string]bool{}
	for m := range Mode(len(modeNames)) {
		d := m.driver()
		if d.Stepped() == m.Real() || d.Keeps() != (m == ModeSeededKeep || m == ModeReal) || m.Lean() != (m.Real() && !d.Keeps()) {
			t.Errorf("%v: driver mode %v", m, d)
		}
		if seen[m.String()] {
			t.Errorf("%v: name used twice", m)
		}
		seen[m.String()] = true
	}
	sc, err := scenario.Parse("m.toml", []byte("version = 1\n[task.main]\nops = [ { compute = 1 } ]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(sc, Options{Mode: Mode(len(modeNames))}); err == nil {
		t.Errorf("Resolve took an unknown mode")
	}
}
