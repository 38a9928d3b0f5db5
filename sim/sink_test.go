package sim

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/cbcsim/cbcsim/trace"
)

// The sink's cache of encoded places answers what trace.PlaceOf does for
// any sequence of places: short and long, empty, escaped, and many more
// than its slots, which collide and evict one another.
func TestSinkPlaceCache(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		s := newSink(1, nil)
		pool := rapid.SliceOfN(rapid.OneOf(
			rapid.StringMatching(`task\.[a-z]{1,8}\.ops\[[0-9]{1,2}\](\.body\[[0-9]{1,2}\])?`),
			rapid.StringMatching(`[a-z]{1,6}\.go:[0-9]{1,3}`),
			rapid.String(),
		), 1, 3*placeSlots).Draw(rt, "places")
		for i := range rapid.IntRange(1, 500).Draw(rt, "n") {
			at := pool[rapid.IntRange(0, len(pool)-1).Draw(rt, "i")]
			if got, want := s.place(at), trace.PlaceOf(at); got != want {
				rt.Fatalf("look-up %d of %q: got %#v, want %#v", i, at, got, want)
			}
		}
	})
}
