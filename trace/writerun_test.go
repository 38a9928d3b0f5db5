package trace

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// writerPair is two writers over two buffers, each with h written: the
// same events written two ways compare as text.
func writerPair(rt *rapid.T, h *Header) (a, b *bytes.Buffer, wa, wb *Writer) {
	a, b = new(bytes.Buffer), new(bytes.Buffer)
	wa, wb = NewWriter(a), NewWriter(b)
	if err := wa.WriteHeader(h); err != nil {
		rt.Fatal(err)
	}
	if err := wb.WriteHeader(h); err != nil {
		rt.Fatal(err)
	}
	return a, b, wa, wb
}

// flushPair flushes both writers of a pair.
func flushPair(rt *rapid.T, wa, wb *Writer) {
	if err := wa.Flush(); err != nil {
		rt.Fatal(err)
	}
	if err := wb.Flush(); err != nil {
		rt.Fatal(err)
	}
}

// TestWriteRun: the run event's own encoder writes what WriteEvent writes
// for the same event, for any step, tick, actor and task id.
func TestWriteRun(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		step := rapid.Uint64().Draw(rt, "step")
		tick := rapid.Uint64().Draw(rt, "tick")
		actor := rapid.SampledFrom([]string{"w0", "w1", "w17", "w255", "sim"}).Draw(rt, "actor")
		task := rapid.Int64().Draw(rt, "task")
		h := &Header{Fields: []Field{S("name", "x")}}
		a, b, wa, wb := writerPair(rt, h)
		if err := wa.WriteEvent(&Event{Step: step, Tick: tick, Actor: actor, Kind: KindRun, Fields: []Field{I(KeyTask, task)}}); err != nil {
			rt.Fatal(err)
		}
		if err := wb.WriteRun(step, tick, actor, task); err != nil {
			rt.Fatal(err)
		}
		flushPair(rt, wa, wb)
		if a.String() != b.String() {
			rt.Fatalf("WriteRun wrote %q, WriteEvent %q", b.String(), a.String())
		}
	})
}

// TestWriteRunTail: a sequence of run lines written from kept tails, with
// steps and ticks that mostly count up by one (across every digit count's
// edge), sometimes stay or jump, and other events between them, is what
// WriteEvent writes for the same events, whatever the buffer's fill. A
// tail may carry an at= field (a story run's), bare, quoted, escaped,
// or too long for the tail's room, made new or remade in place (ResetAt);
// a tail without one may have a place added to a line (WriteRunTailAt),
// an explicit at="" too (a story run's task that left its places).
func TestWriteRunTail(t *testing.T) {
	t.Parallel()
	// The steps' edges leave room for the steps taken; a tick may wrap.
	edges := []uint64{0, 8, 9, 98, 99, 998, 999, 9_998, 9_999, 99_999, 999_999_999, 1<<63 - 1, 9_999_999_999_999_999_998}
	tickEdges := append(edges, 1<<64-2)
	rapid.Check(t, func(rt *rapid.T) {
		actors := []string{"w0", "w1", "w17", "w255", "sim", "a-very-long-actor.name_for-a-tail-of-its-own"}
		ats := []string{"", "op1", "task.producer.ops[0].body[1]", "a \"quoted\" place\n", "-12",
			"task.a_rather_long_task_name.ops[12].body[3].body[7].cleanup[0]"}
		var slot RunTail
		var cur *RunTail // the tail the run lines are written from
		var curActor, curAt string
		var curTask int64
		a, b, wa, wb := writerPair(rt, &Header{Fields: []Field{S("name", "x")}})
		step := rapid.SampledFrom(edges).Draw(rt, "step")
		tick := rapid.SampledFrom(tickEdges).Draw(rt, "tick")
		n := rapid.IntRange(1, 3000).Draw(rt, "n")
		for i := range n {
			switch rapid.IntRange(0, 9).Draw(rt, "move") {
			case 0: // the same step
			case 1: // a jump of the tick (a timer), the step by one
				step++
				tick += rapid.Uint64Range(0, 1<<40).Draw(rt, "jump")
			case 2: // an event other than a run
				e := &Event{Step: step, Tick: tick, Actor: "w1", Kind: KindYield, Fields: []Field{I(KeyTask, int64(i))}}
				if err := wa.WriteEvent(e); err != nil {
					rt.Fatal(err)
				}
				if err := wb.WriteEvent(e); err != nil {
					rt.Fatal(err)
				}
				continue
			default:
				step++
				tick++
			}
			if cur == nil || rapid.IntRange(0, 3).Draw(rt, "remake") == 0 {
				ai := rapid.IntRange(0, len(actors)-1).Draw(rt, "actor")
				task := rapid.SampledFrom([]int64{1, 2, 9, 10, 12345, -7, 1<<63 - 1}).Draw(rt, "task")
				at := ats[rapid.IntRange(0, len(ats)-1).Draw(rt, "at")]
				if rapid.Bool().Draw(rt, "reset") {
					// A kept tail remade in place, over whatever
					// longer or shorter tail it held.
					slot.ResetAt(actors[ai], task, at)
					cur = &slot
				} else {
					v := NewRunTailAt(actors[ai], task, at)
					cur = &v
				}
				curActor, curTask, curAt = actors[ai], task, at
			}
			fields := []Field{I(KeyTask, curTask)}
			if curAt != "" {
				fields = append(fields, S(KeyAt, curAt))
			}
			var place *Place // a place the line adds to a tail without one
			if curAt == "" && rapid.Bool().Draw(rt, "place") {
				p := PlaceOf(ats[rapid.IntRange(0, len(ats)-1).Draw(rt, "at")])
				place = &p
				fields = append(fields, S(KeyAt, p.String()))
			}
			if err := wa.WriteEvent(&Event{Step: step, Tick: tick, Actor: curActor, Kind: KindRun, Fields: fields}); err != nil {
				rt.Fatal(err)
			}
			var err error
			if place != nil {
				err = wb.WriteRunTailAt(step, tick, cur, place)
			} else {
				err = wb.WriteRunTail(step, tick, cur)
			}
			if err != nil {
				rt.Fatal(err)
			}
		}
		flushPair(rt, wa, wb)
		if a.String() != b.String() {
			rt.Fatalf("WriteRunTail against WriteEvent, %s", firstDiff(b.Bytes(), a.Bytes()))
		}
	})
}

// TestWriteRunTailBad: the zero RunTail and one of a bad actor panic as
// WriteRun does with the actor, and write nothing.
func TestWriteRunTailBad(t *testing.T) {
	t.Parallel()
	for _, tl := range []RunTail{{}, NewRunTail("W0", 1), NewRunTail("", 1)} {
		var out bytes.Buffer
		w := NewWriter(&out)
		if err := w.WriteHeader(&Header{}); err != nil {
			t.Fatal(err)
		}
		before := len(w.buf)
		func() {
			defer func() {
				if r := recover(); r != "trace: WriteRunTail: bad actor" {
					t.Errorf("recovered %v, want the bad actor panic", r)
				}
			}()
			w.WriteRunTail(1, 1, &tl)
		}()
		if len(w.buf) != before {
			t.Errorf("a bad tail left %q in the buffer", w.buf[before:])
		}
	}
}
