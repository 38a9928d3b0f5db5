package sim

import (
	"fmt"
	"strings"
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
			if got, want := *s.place(at), trace.PlaceOf(at); got != want {
				rt.Fatalf("look-up %d of %q: got %#v, want %#v", i, at, got, want)
			}
		}
	})
}

// A task with an id past denseMax, which keeps no tail, gets the run lines
// a small id gets, at= fields and all, in both encodings of the places;
// its result drops its places from the sink's maps.
func TestSinkLargeIDRunLines(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		atEvery := rapid.Bool().Draw(rt, "atEvery")
		type op struct {
			site   bool
			place  string
			worker int
		}
		places := []string{"", "task.a.ops[0]", "task.a.ops[1]", "x.go:12"}
		ops := rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) op {
			return op{rapid.Bool().Draw(rt, "site"), rapid.SampledFrom(places).Draw(rt, "place"), rapid.IntRange(0, 1).Draw(rt, "worker")}
		}), 1, 60).Draw(rt, "ops")
		lines := func(id uint64) (string, *sink) {
			var b strings.Builder
			w := trace.NewWriter(&b)
			if err := w.WriteHeader(&trace.Header{Fields: []trace.Field{trace.S("name", "x")}}); err != nil {
				rt.Fatal(err)
			}
			s := newSink(2, w)
			s.story, s.atEvery = true, atEvery
			for _, o := range ops {
				if o.site {
					s.Site(id, o.place)
					continue
				}
				s.step++
				s.tick++
				s.EmitRun(o.worker, id)
			}
			s.Emit(0, trace.KindResult, []trace.Field{trace.I(trace.KeyTask, int64(id)), trace.S(trace.KeyResult, "ok")})
			if err := w.Flush(); err != nil {
				rt.Fatal(err)
			}
			return b.String(), s
		}
		small, _ := lines(7)
		large, s := lines(denseMax + 7)
		want := strings.ReplaceAll(small, "task=7", fmt.Sprintf("task=%d", denseMax+7))
		if large != want {
			rt.Fatalf("id %d wrote\n%s\nwant\n%s", denseMax+7, large, want)
		}
		if len(s.siteMap) != 0 || len(s.siteRan) != 0 {
			rt.Fatalf("after the result: siteMap %v, siteRan %v", s.siteMap, s.siteRan)
		}
	})
}
