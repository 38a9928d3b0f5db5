package trace

// Diff's comparison of the headers and programs, and the summary of each
// trace.

import (
	"slices"
	"strings"
)

// diffHeader compares two headers key by key. A key may repeat; its values
// are compared as a list. Headers with the same values under each key but
// in another order get one HeaderDiff with the key "(order)", so that Equal
// still means identical files.
func diffHeader(a, b *Header) []HeaderDiff {
	var out []HeaderDiff
	seen := map[string]bool{}
	for _, h := range [2]*Header{a, b} {
		for _, f := range h.Fields {
			if seen[f.Key] {
				continue
			}
			seen[f.Key] = true
			va, vb := headerValues(a, f.Key), headerValues(b, f.Key)
			if slices.Equal(va, vb) {
				continue
			}
			out = append(out, HeaderDiff{Key: f.Key, A: strings.Join(va, ", "), B: strings.Join(vb, ", "),
				InA: len(va) > 0, InB: len(vb) > 0})
		}
	}
	if len(out) == 0 && !slices.EqualFunc(a.Fields, b.Fields, func(x, y Field) bool { return fieldEqual(&x, &y) }) {
		keys := func(h *Header) string {
			var ks []string
			for _, f := range h.Fields {
				ks = append(ks, f.Key)
			}
			return strings.Join(ks, ", ")
		}
		out = append(out, HeaderDiff{Key: "(order)", A: keys(a), B: keys(b), InA: true, InB: true})
	}
	return out
}

// headerValues returns the values of every field named key, for display.
func headerValues(h *Header, key string) []string {
	var vs []string
	for i := range h.Fields {
		if h.Fields[i].Key == key {
			vs = append(vs, displayValue(&h.Fields[i]))
		}
	}
	return vs
}

func diffSource(a, b string) SourceDiff {
	if a == b {
		return SourceDiff{}
	}
	la, lb := sourceLines(a), sourceLines(b)
	for j := 0; j < len(la) || j < len(lb); j++ {
		sd := SourceDiff{Differs: true, Line: j + 1}
		if j < len(la) {
			sd.A = la[j]
		} else {
			sd.MissingA = true
		}
		if j < len(lb) {
			sd.B = lb[j]
		} else {
			sd.MissingB = true
		}
		if sd.MissingA || sd.MissingB || sd.A != sd.B {
			return sd
		}
	}
	return SourceDiff{Differs: true} // only the final newline differs
}

// sourceLines splits a source into its lines as the header shows them: a
// final newline ends the last line rather than starting an empty one.
func sourceLines(src string) []string {
	if src == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(src, "\n"), "\n")
}

func summarise(t *Trace) TraceSummary {
	s := TraceSummary{Events: len(t.Events)}
	counted, have := uint64(0), false
	for i := range t.Events {
		e := &t.Events[i]
		if e.Actor != "sim" && (!have || e.Step != counted) {
			s.Steps++
			counted, have = e.Step, true
		}
		if e.Kind == KindOutcome {
			s.Outcome, s.OutcomeLine = fieldsText(e), lineAt(t, i)
		}
	}
	return s
}

// lineAt returns the file line of event i, or 0 for a trace built without
// line numbers.
func lineAt(t *Trace, i int) int {
	if i < len(t.Lines) {
		return t.Lines[i]
	}
	return 0
}
