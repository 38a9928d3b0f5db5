package sched

import (
	"strconv"
	"testing"

	"github.com/cbcsim/cbcsim/trace"
)

// emitsSink records the events given to Emit; it has no EmitRun.
type emitsSink struct{ got []trace.Event }

func (s *emitsSink) Emit(worker int, kind trace.Kind, fields []trace.Field) {
	s.got = append(s.got, trace.Event{Actor: "w" + strconv.Itoa(worker), Kind: kind, Fields: append([]trace.Field(nil), fields...)})
}

// TestEmitRunWithoutRunSink: a sink without the run event's own path gets
// each run event through Emit, as the event with its one field, from the
// emitter's worker; without a sink, emitRun does nothing.
func TestEmitRunWithoutRunSink(t *testing.T) {
	s := &emitsSink{}
	em := newEmitter(s, 3)
	em.emitRun(42)
	em.emitRun(7)
	want := []string{"w3 run task=42\n", "w3 run task=7\n"}
	if len(s.got) != len(want) {
		t.Fatalf("%d events, want %d", len(s.got), len(want))
	}
	for i, e := range s.got {
		if line := string(trace.AppendEvent(nil, &e)); line != "0 0 "+want[i] {
			t.Errorf("event %d is %q, want %q", i, line, "0 0 "+want[i])
		}
	}
	none := newEmitter(nil, 0)
	none.emitRun(1)
	if none.runs != nil {
		t.Error("an emitter without a sink has a run path")
	}
}
