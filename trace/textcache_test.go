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
	w := NewWriter(new(bytes.Buffer))
	if err := w.WriteHeader(&Header{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "bad actor") {
			t.Errorf("recovered %v, want a bad actor panic", r)
		}
	}()
	_ = w.WriteEvent(&Event{Actor: "W 0", Kind: KindRun})
}
