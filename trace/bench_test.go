package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteEvent measures one event through a Writer backed by
// io.Discard: encoding plus the bufio copy, the cost the simulator pays per
// event when tracing to a file (less the file writes themselves).
func BenchmarkWriteEvent(b *testing.B) {
	cases := []struct {
		name   string
		kind   Kind
		fields []Field
	}{
		{"steal", KindSteal, []Field{S("victim", "w1"), S("task", "t1234")}},
		{"run", KindRun, []Field{S("task", "t1234"), I("ops", 3), I("budget", 61)}},
		{"log-quoted", KindLog, []Field{S("task", "t1234"), S("msg", `child "fetch" failed: timeout after 30 ticks`)}},
		// The story's lines, the commonest after run lines in a version-3
		// trace (docs/trace-format.md).
		{"chan", KindChan, []Field{I(KeyTask, 3), S(KeyOp, "send"), S(KeyCh, "jobs"), S(KeyVia, "buffer")}},
		{"decide", KindDecide, []Field{S("credit", "yes"), I(KeyTask, 1)}},
		{"global", KindGlobal, []Field{I(KeyTask, 12)}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			w := NewWriter(io.Discard)
			if err := w.WriteHeader(&Header{}); err != nil {
				b.Fatal(err)
			}
			e := Event{Step: 1234567, Tick: 1234600, Actor: "w3", Kind: c.kind}
			b.SetBytes(int64(len(AppendEvent(nil, &Event{Step: e.Step, Tick: e.Tick, Actor: e.Actor, Kind: c.kind, Fields: c.fields}))))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.Fields = append(e.Fields[:0], c.fields...)
				if err := w.WriteEvent(&e); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkWriteEventFile is BenchmarkWriteEvent/steal writing to a real
// file, so it includes the write system calls the bufio buffer amortises.
func BenchmarkWriteEventFile(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "bench.trace"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(f)
	if err := w.WriteHeader(&Header{}); err != nil {
		b.Fatal(err)
	}
	e := Event{Step: 1234567, Tick: 1234600, Actor: "w3", Kind: KindSteal}
	fields := []Field{S("victim", "w1"), S("task", "t1234")}
	e.Fields = fields
	b.SetBytes(int64(len(AppendEvent(nil, &e))))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Step++
		e.Fields = append(e.Fields[:0], fields...)
		if err := w.WriteEvent(&e); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}

// benchTrace is a trace of n events shaped like a scheduler's: pops, steals,
// runs and the odd log line.
func benchTrace(n int) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	h, _ := smallTrace()
	if err := w.WriteHeader(h); err != nil {
		panic(err)
	}
	var e Event
	for i := 0; i < n; i++ {
		e.Step, e.Tick = uint64(i), uint64(i+i/10)
		e.Actor = "w" + string(rune('0'+i%8))
		task := "t" + string(rune('a'+i%26))
		switch i % 4 {
		case 0:
			e.Kind = KindPop
			e.Fields = append(e.Fields[:0], S("task", task))
		case 1:
			e.Kind = KindSteal
			e.Fields = append(e.Fields[:0], S("victim", "w1"), S("task", task))
		case 2:
			e.Kind = KindRun
			e.Fields = append(e.Fields[:0], S("task", task), I("ops", int64(i%7)), I("budget", int64(64-i%64)))
		case 3:
			e.Kind = KindLog
			e.Fields = append(e.Fields[:0], S("task", task), S("msg", "hello, world"))
		}
		if err := w.WriteEvent(&e); err != nil {
			panic(err)
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// BenchmarkParse parses a 10,000-event trace; ns/op divided by 10,000 is the
// cost of one event.
func BenchmarkParse(b *testing.B) {
	const events = 10000
	data := benchTrace(events)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := Parse(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Events) != events {
			b.Fatalf("parsed %d events", len(t.Events))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}
