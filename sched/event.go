package sched

import (
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// emitter is the per-worker scratch space for building events without
// allocating.
type emitter struct {
	sink   link.Sink
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
