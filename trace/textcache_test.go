package trace

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestWriteEventTextCache: WriteEvent, which copies the text it keeps for
// heads, keys and fields, writes what AppendEvent encodes afresh, over
// events drawn from a few strings (so that they repeat, share buckets and
// evict each other), fresh copies of the same strings (the same text at
// another address), and values that need quoting.
func TestWriteEventTextCache(t *testing.T) {
	t.Parallel()
	actors := []string{"w0", "w1", "w2", "w3", "sim"}
	keys := []string{KeyTask, KeyOp, KeyCh, KeyVia, KeyAt, "why", "credit", "next-slot"}
	vals := []string{"send", "recv", "jobs", "buffer", "yes", "no", "", "task.main.ops[0]", `a "quoted" value`, "-12", "x y"}
	kinds := []Kind{KindRun, KindChan, KindDecide, KindGlobal, KindYield, KindBlock, KindSpawn, KindWake}
	fresh := func(s string) string { return strings.Clone(s) }
	rapid.Check(t, func(rt *rapid.T) {
		var got bytes.Buffer
		w := NewWriter(&got)
		if err := w.WriteHeader(&Header{}); err != nil {
			rt.Fatal(err)
		}
		var want []byte
		want = appendHeader(want, &Header{}, "")
		n := rapid.IntRange(1, 200).Draw(rt, "events")
		for i := range n {
			e := Event{Step: uint64(i), Tick: uint64(i), Actor: rapid.SampledFrom(actors).Draw(rt, "actor"), Kind: rapid.SampledFrom(kinds).Draw(rt, "kind")}
			if rapid.Bool().Draw(rt, "fresh actor") {
				e.Actor = fresh(e.Actor)
			}
			for range rapid.IntRange(0, 4).Draw(rt, "fields") {
				k := rapid.SampledFrom(keys).Draw(rt, "key")
				if rapid.Bool().Draw(rt, "fresh key") {
					k = fresh(k)
				}
				if rapid.Bool().Draw(rt, "int") {
					e.Fields = append(e.Fields, I(k, rapid.Int64().Draw(rt, "value")))
					continue
				}
				v := rapid.SampledFrom(vals).Draw(rt, "value")
				if rapid.Bool().Draw(rt, "fresh value") {
					v = fresh(v)
				}
				e.Fields = append(e.Fields, S(k, v))
			}
			want = AppendEvent(want, &e)
			if err := w.WriteEvent(&e); err != nil {
				rt.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			rt.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			rt.Fatalf("WriteEvent wrote\n%s\nAppendEvent encodes\n%s", got.Bytes(), want)
		}
	})
}

// TestWriteEventTextCacheBadKey: a bad key panics whether or not a field
// with the same value, or an integer field, was written before.
func TestWriteEventTextCacheBadKey(t *testing.T) {
	t.Parallel()
	for _, f := range []Field{S("Bad Key", "v"), I("Bad Key", 1), S("", "v")} {
		w := NewWriter(new(bytes.Buffer))
		if err := w.WriteHeader(&Header{}); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := w.WriteEvent(&Event{Actor: "w0", Kind: KindRun, Fields: []Field{S(KeyOp, "v"), I(KeyTask, 1)}}); err != nil {
				t.Fatal(err)
			}
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "bad key") {
					t.Errorf("field %+v: recovered %v, want a bad key panic", f, r)
				}
			}()
			_ = w.WriteEvent(&Event{Actor: "w0", Kind: KindRun, Fields: []Field{f}})
		}()
	}
	for _, e := range []Event{{Actor: "W 0", Kind: KindRun}, {}} { // the zero event matches an empty entry's strings
		func() {
			w := NewWriter(new(bytes.Buffer))
			if err := w.WriteHeader(&Header{}); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "bad") {
					t.Errorf("%+v: recovered %v, want a bad actor or kind panic", e, r)
				}
			}()
			_ = w.WriteEvent(&e)
		}()
	}
}

// TestWriteHeadInt (rapid): a line written from a kept HeadInt is the
// line WriteEvent writes for the same event, for any actor, kind, fields
// before the integer, key and integer; and a bad actor, key or the zero
// HeadInt panics.
func TestWriteHeadInt(t *testing.T) {
	t.Parallel()
	actors := []string{"w0", "w12", "sim"}
	keys := []string{KeyTask, "credit", "next-slot", "n"}
	vals := []string{"yes", "no", "", `a "quoted" value`, "-3"}
	rapid.Check(t, func(rt *rapid.T) {
		a, b, wa, wb := writerPair(rt, &Header{})
		var step uint64
		for range rapid.IntRange(1, 30).Draw(rt, "lines") {
			step += rapid.Uint64Range(0, 12).Draw(rt, "step")
			actor := rapid.SampledFrom(actors).Draw(rt, "actor")
			kind := rapid.SampledFrom([]Kind{KindDecide, KindRun, KindChan}).Draw(rt, "kind")
			var fields []Field
			for range rapid.IntRange(0, 2).Draw(rt, "fields") {
				fields = append(fields, S(rapid.SampledFrom(keys).Draw(rt, "key"), rapid.SampledFrom(vals).Draw(rt, "value")))
			}
			key := rapid.SampledFrom(keys).Draw(rt, "int key")
			v := rapid.OneOf(rapid.Int64Range(-5, 120), rapid.Int64()).Draw(rt, "int")
			h := NewHeadInt(actor, kind, fields, key)
			e := Event{Step: step, Tick: step, Actor: actor, Kind: kind, Fields: append(fields, I(key, v))}
			if err := wa.WriteEvent(&e); err != nil {
				rt.Fatal(err)
			}
			if err := wb.WriteHeadInt(step, step, &h, v); err != nil {
				rt.Fatal(err)
			}
		}
		flushPair(rt, wa, wb)
		if a.String() != b.String() {
			rt.Fatalf("WriteEvent wrote\n%s\nWriteHeadInt\n%s", a, b)
		}
	})
	for name, f := range map[string]func(){
		"bad actor": func() { NewHeadInt("W 0", KindDecide, nil, KeyTask) },
		"bad key":   func() { NewHeadInt("w0", KindDecide, nil, "Bad Key") },
		"bad field": func() { NewHeadInt("w0", KindDecide, []Field{S("Bad Key", "v")}, KeyTask) },
		"zero": func() {
			w := NewWriter(new(bytes.Buffer))
			if err := w.WriteHeader(&Header{}); err != nil {
				t.Fatal(err)
			}
			_ = w.WriteHeadInt(0, 0, &HeadInt{}, 1)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
