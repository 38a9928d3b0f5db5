// Package trace is the event log of a cbcsim run: the event model, its text
// encoding, the parser, and an in-memory recorder.
//
// A seeded run logs every decision (which worker acts at each step, which
// victim it steals from) and every effect (run, yield, spawn, cancel, ...)
// as one text line. The header carries the format version, the run's
// parameters and the scenario source verbatim, so a trace file alone is
// enough to replay the run, and two runs can be compared byte for byte.
// The text has no wall-clock times and no addresses; fields keep the order
// the caller gave them. The grammar is in docs/trace-format.md.
//
// Writing, with no allocation per event:
//
//	w := trace.NewWriter(f)
//	w.WriteHeader(&trace.Header{Fields: []trace.Field{trace.I("seed", 42)}, Source: src})
//	ev := trace.Event{Actor: "w0", Kind: trace.KindSteal}
//	for ... {
//		ev.Step, ev.Tick = step, tick
//		ev.Fields = append(ev.Fields[:0], trace.S("victim", "w1"), trace.S("task", "t3"))
//		if err := w.WriteEvent(&ev); err != nil { ... }
//	}
//	err := w.Flush()
//
// Reading:
//
//	t, err := trace.Parse(f) // err is a *trace.ParseError naming the line
//	seed, _ := t.Header.Get("seed")
//	for i, e := range t.Events { ... t.Lines[i] ... }
//
// A Recorder keeps events in memory instead (for tests and for diffing a
// replay against a file) and can write them out with WriteTo.
//
// Parse accepts only the canonical text that the encoder writes, so
// Parse(text) succeeding means re-encoding gives text back byte for byte.
// Misuse of the encoder that would write a line Parse rejects (a key outside
// [a-z0-9_.-]+, an unset Kind, a step going backwards) panics: it is a bug
// in the caller, not bad input.
package trace
