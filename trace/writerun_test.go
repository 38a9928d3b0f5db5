package trace

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestWriteRun: the run event's own encoder writes what WriteEvent writes
// for the same event, for any step, tick, actor and task id.
func TestWriteRun(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		step := rapid.Uint64().Draw(rt, "step")
		tick := rapid.Uint64().Draw(rt, "tick")
		actor := rapid.SampledFrom([]string{"w0", "w1", "w17", "w255", "sim"}).Draw(rt, "actor")
		task := rapid.Int64().Draw(rt, "task")
		h := &Header{Fields: []Field{S("name", "x")}}
		var a, b bytes.Buffer
		wa, wb := NewWriter(&a), NewWriter(&b)
		if err := wa.WriteHeader(h); err != nil {
			rt.Fatal(err)
		}
		if err := wb.WriteHeader(h); err != nil {
			rt.Fatal(err)
		}
		if err := wa.WriteEvent(&Event{Step: step, Tick: tick, Actor: actor, Kind: KindRun, Fields: []Field{I(KeyTask, task)}}); err != nil {
			rt.Fatal(err)
		}
		if err := wb.WriteRun(step, tick, actor, task); err != nil {
			rt.Fatal(err)
		}
		if err := wa.Flush(); err != nil {
			rt.Fatal(err)
		}
		if err := wb.Flush(); err != nil {
			rt.Fatal(err)
		}
		if a.String() != b.String() {
			rt.Fatalf("WriteRun wrote %q, WriteEvent %q", b.String(), a.String())
		}
	})
}
