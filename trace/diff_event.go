package trace

// Comparing events and fields, and writing them back as text, for Diff.

import (
	"strconv"
	"strings"
)

// commonPrefix returns the number of leading events a and b share.
func commonPrefix(a, b []Event) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if !eventEqual(&a[i], &b[i]) {
			return i
		}
	}
	return n
}

// eventEqual reports whether a and b are written as the same line.
func eventEqual(a, b *Event) bool {
	if a.Step != b.Step || a.Tick != b.Tick || a.Actor != b.Actor || a.Kind != b.Kind || len(a.Fields) != len(b.Fields) {
		return false
	}
	for j := range a.Fields {
		if !fieldEqual(&a.Fields[j], &b.Fields[j]) {
			return false
		}
	}
	return true
}

func fieldEqual(a, b *Field) bool {
	if a.Key != b.Key || a.IsInt != b.IsInt {
		return false
	}
	if a.IsInt {
		return a.Int == b.Int
	}
	return a.Str == b.Str
}

// valueText returns f's value as the trace writes it.
func valueText(f *Field) string { return string(appendValue(nil, f)) }

// displayValue returns f's value for a sentence: a string that has no
// spaces and needs no escapes is shown without the quotes the trace may put
// around it (a hash that starts with a digit), so that a bare and a quoted
// string do not look like different types. Anything else is quoted, and so
// is a string that reads as an integer: the type is part of the value, and
// 1 and "1" differ.
func displayValue(f *Field) string {
	if f.IsInt {
		return strconv.FormatInt(f.Int, 10)
	}
	if _, plain := classify(f.Str); plain && f.Str != "" && !strings.ContainsRune(f.Str, ' ') {
		if _, err := strconv.ParseInt(f.Str, 10, 64); err != nil {
			return f.Str
		}
	}
	return strconv.Quote(f.Str)
}

// lineText returns e's line without its newline.
func lineText(e *Event) string {
	l := AppendEvent(nil, e)
	return string(l[:len(l)-1])
}

// fieldsText returns e's fields as "k=v k=v", leaving out the given keys.
func fieldsText(e *Event, skip ...string) string {
	var b []byte
outer:
	for j := range e.Fields {
		f := &e.Fields[j]
		for _, k := range skip {
			if f.Key == k {
				continue outer
			}
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, f.Key...)
		b = append(b, '=')
		b = appendValue(b, f)
	}
	return string(b)
}

// get returns the value text of e's first field named key, as the trace
// writes it. It is called for every event when summarising a trace, so the
// common values (a bare string, a small integer) cost no allocation.
func get(e *Event, key string) (string, bool) {
	for j := range e.Fields {
		f := &e.Fields[j]
		if f.Key != key {
			continue
		}
		switch {
		case f.IsInt:
			return strconv.FormatInt(f.Int, 10), true
		case isBare(f.Str):
			return f.Str, true
		}
		return valueText(f), true
	}
	return "", false
}
