package explore

import (
	"testing"
	"unsafe"

	"github.com/cbcsim/cbcsim/sim"
)

// TestChooserDetached: a finished run's chooser keeps its points and
// nothing of the run (its workers, a task): a search holds a batch of
// choosers until it folds them, and through a worker a chooser held the
// run's scheduler and trace buffer (docs/explore.md#memory).
func TestChooserDetached(t *testing.T) {
	t.Parallel()
	sc := parse(t, threeLoggers)
	cfg, err := Resolve(sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, ch, err := execute(sim.Execute, sc, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.points) == 0 {
		t.Fatal("the run made no decisions: the test does not test")
	}
	if ch.prevW != nil || ch.prevT != nil || ch.useful != nil || ch.ready != nil || ch.fair.owed != nil {
		t.Fatalf("the chooser still holds the run: prevW %v, prevT %v, %d useful, %d ready, %d owed",
			ch.prevW, ch.prevT, len(ch.useful), len(ch.ready), len(ch.fair.owed))
	}
}

// TestPointSize: a point is 32 bytes, and a decision's or a choice's
// options among at most 8 workers are shared, not allocated.
func TestPointSize(t *testing.T) {
	if n := unsafe.Sizeof(point{}); n != 32 {
		t.Errorf("a point is %d bytes, want 32", n)
	}
	for m, set := range optionSet {
		mask := 0
		for i, id := range set {
			if i > 0 && id <= set[i-1] {
				t.Fatalf("option set %d = %v is not ascending", m, set)
			}
			mask |= 1 << id
		}
		if mask != m {
			t.Fatalf("option set %d = %v", m, set)
		}
	}
}
