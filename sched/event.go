package sched

import (
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// emitter is the per-worker scratch space for building events without
// allocating.
type emitter struct {
	sink   link.Sink
	runs   link.RunSink // sink, when it takes run events on their own path
	worker int
	buf    []trace.Field
}

func newEmitter(sink link.Sink, worker int) emitter {
	runs, _ := sink.(link.RunSink)
	return emitter{sink: sink, runs: runs, worker: worker}
}

func (e *emitter) on() bool { return e.sink != nil }

func (e *emitter) emit(kind trace.Kind, fields ...trace.Field) {
	if e.sink == nil {
		return
	}
	// Copied one by one rather than with append(buf[:0], fields...): an
	// event has one to four fields, and the bulk copy's typedslicecopy and
	// memmove cost a seeded step more than the loop (docs/performance.md).
	buf := e.buf[:0]
	//lint:ignore S1011 the loop is the faster copy here, as the comment above says
	for i := range fields {
		buf = append(buf, fields[i])
	}
	e.buf = buf
	e.sink.Emit(e.worker, kind, buf)
}

// emitRun emits the run event of task, the one every seeded step writes:
// to a RunSink's EmitRun when the sink has one, else as an event with its
// one field, without building a variadic slice to copy.
func (e *emitter) emitRun(task uint64) {
	if e.runs != nil {
		e.runs.EmitRun(e.worker, task)
		return
	}
	if e.sink == nil {
		return
	}
	e.buf = append(e.buf[:0], trace.I(trace.KeyTask, int64(task)))
	e.sink.Emit(e.worker, trace.KindRun, e.buf)
}
