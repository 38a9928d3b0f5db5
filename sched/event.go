package sched

import "github.com/cbcsim/cbcsim/trace"

// Sink receives the scheduler's events. The seeded driver implements it to
// number steps, stamp virtual time and record or write the trace. Calls come
// from the worker goroutine that caused the event; fields is scratch memory
// that is reused after Emit returns, so a Sink that keeps events copies them.
// worker is -1 for events caused outside any worker (the driver).
type Sink interface {
	Emit(worker int, kind trace.Kind, fields []trace.Field)
}

// emitter is the per-worker scratch space for building events without
// allocating.
type emitter struct {
	sink   Sink
	worker int
	buf    []trace.Field
}

func (e *emitter) on() bool { return e.sink != nil }

func (e *emitter) emit(kind trace.Kind, fields ...trace.Field) {
	if e.sink == nil {
		return
	}
	e.buf = append(e.buf[:0], fields...)
	e.sink.Emit(e.worker, kind, e.buf)
}
