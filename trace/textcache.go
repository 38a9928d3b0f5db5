package trace

import "unsafe"

// textCache is a Writer's memory of the text it encoded for an event's
// head (actor and kind), an integer field's key and a string field: a
// simulator writes the same few of each again and again, from the same
// strings (constant keys and values, a channel's or an op's name), so the
// Writer checks and encodes each once and copies its text afterwards
// (docs/performance.md#the-seeded-step).
//
// An entry is found by the address of its strings and used only when they
// are the same strings: same address and length, so the same bytes, which
// the entry keeps alive. The addresses choose a bucket and nothing else:
// a miss encodes as a Writer without the cache would, so the text written
// never depends on them.
type textCache struct {
	b [textBuckets][2]textEntry // two ways a bucket, the one used last first
}

const (
	textBits    = 5
	textBuckets = 1 << textBits
)

// The kinds of entry besides an event head's, whose kind is its event's.
const (
	entryKey   = KindEnd + 1 + iota // an integer field's " key="
	entryField                      // a string field's " key=value"
)

type textEntry struct {
	a, b string // the actor, the key, or the key and the value
	kind Kind
	text string // the encoded text; "" while a field has been seen once
}

// same reports that a and b are the same string: the same bytes at the
// same address.
func same(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// find returns the entry of a, b and kind, and whether it was found; when
// it was not, the bucket's older entry, made the newer and emptied.
func (c *textCache) find(a, b string, kind Kind) (*textEntry, bool) {
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(a)))) ^
		uint64(uintptr(unsafe.Pointer(unsafe.StringData(b))))*0x9e3779b97f4a7c15 ^ uint64(kind)
	w := &c.b[(h*0xbf58476d1ce4e5b9)>>(64-textBits)]
	if e := &w[0]; e.kind == kind && same(e.a, a) && same(e.b, b) {
		return e, true
	}
	if e := &w[1]; e.kind == kind && same(e.a, a) && same(e.b, b) {
		w[0], w[1] = w[1], w[0]
		return &w[0], true
	}
	w[1] = w[0]
	w[0] = textEntry{a: a, b: b, kind: kind}
	return &w[0], false
}

// heads is "wN kind" for the workers a simulator names most, w0 to
// w9, and every kind: an event's head without a look-up.
var heads = func() (t [10][KindEnd]string) {
	for w := range t {
		for k := KindPop; k < KindEnd; k++ {
			t[w][k] = "w" + string(rune('0'+w)) + " " + kindNames[k]
		}
	}
	return t
}()

// head returns e's "actor kind", checked (checkEvent).
func (c *textCache) head(e *Event, op string) string {
	if a := e.Actor; len(a) == 2 && a[0] == 'w' && a[1]-'0' < 10 && e.Kind.valid() {
		return heads[a[1]-'0'][e.Kind]
	}
	h, ok := c.find(e.Actor, "", e.Kind)
	if !ok || h.text == "" { // an empty entry matches the zero actor and kind
		checkEvent(e, op)
		h.text = e.Actor + " " + kindNames[e.Kind]
	}
	return h.text
}

// appendBody is appendEventBody through the cache.
func (c *textCache) appendBody(dst []byte, e *Event, op string) []byte {
	dst = append(dst, c.head(e, op)...)
	for i := range e.Fields {
		f := &e.Fields[i]
		if f.IsInt {
			if f.Key == KeyTask { // most integer fields: no look-up
				dst = appendInt2(append(dst, " "+KeyTask+"="...), f.Int)
				continue
			}
			k, ok := c.find(f.Key, "", entryKey)
			if !ok {
				checkKey(f.Key, op)
				k.text = " " + f.Key + "="
			}
			dst = appendInt2(append(dst, k.text...), f.Int)
			continue
		}
		v, ok := c.find(f.Key, f.Str, entryField)
		if ok && v.text != "" {
			dst = append(dst, v.text...)
			continue
		}
		// A field's text is kept the second time its strings are seen,
		// so that a value made anew for each event (a message) costs no
		// allocation.
		checkKey(f.Key, op)
		n := len(dst)
		dst = appendValue(append(append(append(dst, ' '), f.Key...), '='), f)
		if ok {
			v.text = string(dst[n:])
		}
	}
	return append(dst, '\n')
}

// checkKey panics if key is bad.
func checkKey(key, op string) {
	if !validKey(key) {
		panic(op + "bad key")
	}
}

// appendInt2 is appendInt with its commonest case, 0 to 99 (a task id, a
// count), written out: one call, not appendInt's three.
func appendInt2(dst []byte, v int64) []byte {
	if uint64(v) < 100 {
		if v < 10 {
			return append(dst, byte('0'+v))
		}
		return append(dst, digitPairs[v*2], digitPairs[v*2+1])
	}
	return appendInt(dst, v)
}

// HeadInt is the text of an event's line after its step and tick up to
// the value of its last field, an integer: "ACTOR KIND K=V ... KEY=",
// checked and encoded as WriteEvent does. A line written again and again
// with only that integer changing (a policy decision's, about a task)
// keeps its HeadInt and is written by WriteHeadInt, the line of the run
// event's kind: no fields to build, look up or encode. The zero HeadInt
// is not valid: writing it panics.
type HeadInt struct{ text string }

// NewHeadInt returns the HeadInt of events of actor and kind with fields
// and then an integer field key. A bad actor, kind or key panics, as
// WriteEvent's do.
func NewHeadInt(actor string, kind Kind, fields []Field, key string) HeadInt {
	const op = "trace: NewHeadInt: "
	e := Event{Actor: actor, Kind: kind, Fields: fields}
	checkEvent(&e, op)
	checkKey(key, op)
	b := appendEventBody(nil, &e, op)
	return HeadInt{string(append(append(append(b[:len(b)-1], ' '), key...), '='))}
}

// WriteHeadInt writes the event of h whose last field's value is v: what
// WriteEvent writes for it.
func (w *Writer) WriteHeadInt(step, tick uint64, h *HeadInt, v int64) error {
	if !w.header {
		panic("trace: WriteHeadInt: header not written")
	}
	if step < w.pre.step {
		panic("trace: WriteHeadInt: step went backwards")
	}
	if h.text == "" {
		panic("trace: WriteHeadInt: the zero HeadInt")
	}
	w.buf = append(appendInt2(append(w.appendPrefix(step, tick), h.text...), v), '\n')
	return w.spill()
}
