package trace

// A story run's run line says its task's place only when it changed
// (header "run_at: changed", docs/trace-format.md); a version-3 trace
// written before said it on every run line. Two traces of the same run in
// the two encodings differ in those run lines alone, so Diff compares the
// older one as it would be written now.

// RunAtChanged is the value of the header field run_at (KeyRunAt) of a
// trace whose run lines say a place only when it changed.
const RunAtChanged = "changed"

// placesChanged reports whether t's header says its run lines give a
// place only when it changed.
func placesChanged(t *Trace) bool {
	f, ok := t.Header.Get(KeyRunAt)
	return ok && !f.IsInt && f.Str == RunAtChanged
}

// samePlaces returns a and b with the run lines of the one that says
// every place (when only one does not say "run_at: changed") rewritten to
// say only a changed place, and notes which in d.PlacesRewritten.
func (d *DiffResult) samePlaces(a, b *Trace) (*Trace, *Trace) {
	ca, cb := placesChanged(a), placesChanged(b)
	switch {
	case ca && !cb && tellsStory(b):
		d.PlacesRewritten = "B"
		return a, withChangedPlaces(b)
	case cb && !ca && tellsStory(a):
		d.PlacesRewritten = "A"
		return withChangedPlaces(a), b
	}
	return a, b
}

// withChangedPlaces returns a copy of t, a trace whose run lines say every
// place, with its run events as a story run writes them now: the at=
// field only where the task's place changed, at="" where it left its
// places. The other events are shared with t.
func withChangedPlaces(t *Trace) *Trace {
	c := *t
	c.Events = make([]Event, len(t.Events))
	copy(c.Events, t.Events)
	last := map[int64]string{} // by task: its place as its last run line said
	for i := range c.Events {
		e := &c.Events[i]
		if e.Kind != KindRun || len(e.Fields) == 0 || e.Fields[0].Key != KeyTask || !e.Fields[0].IsInt {
			continue
		}
		task, at, has := e.Fields[0].Int, "", false
		if len(e.Fields) > 1 && e.Fields[len(e.Fields)-1].Key == KeyAt {
			at, has = e.Fields[len(e.Fields)-1].Str, true
		}
		prev := last[task]
		switch {
		case at == prev && has:
			e.Fields = e.Fields[: len(e.Fields)-1 : len(e.Fields)-1]
		case at != prev && !has: // left its places: at="" now
			e.Fields = append(e.Fields[:len(e.Fields):len(e.Fields)], S(KeyAt, ""))
		}
		if at == "" {
			delete(last, task)
		} else {
			last[task] = at
		}
	}
	return &c
}
