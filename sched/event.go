package sched

import (
	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// emitter is the per-worker scratch space for building events without
// allocating.
type emitter struct {
	sink    link.Sink
	runs    link.RunSink    // sink's path for run events: sink itself, or runEvents; nil without a sink
	decides link.DecideSink // sink's path for decide events when it has one
	worker  int
	buf     []trace.Field
}

func newEmitter(sink link.Sink, worker int) emitter {
	runs, ok := sink.(link.RunSink)
	if !ok && sink != nil {
		runs = &runEvents{Sink: sink}
	}
	decides, _ := sink.(link.DecideSink)
	return emitter{sink: sink, runs: runs, decides: decides, worker: worker}
}

// emitDecide emits the decide event of d's answer yes about task: through
// the sink's EmitDecide when it has one, else as any event.
func (e *emitter) emitDecide(d link.Decision, yes bool, task uint64) {
	if e.decides != nil {
		e.decides.EmitDecide(e.worker, d, yes, task)
		return
	}
	e.emit(trace.KindDecide, d.Field(yes), trace.I(trace.KeyTask, int64(task)))
}

func (e *emitter) on() bool { return e.sink != nil }

func (e *emitter) emit(kind trace.Kind, fields ...trace.Field) {
	if e.sink == nil {
		return
	}
	// Copied one by one rather than with append(buf[:0], fields...): an
	// event has one to four fields, and the bulk copy's typedslicecopy and
	// memmove cost a seeded step more than the loop
	// (docs/performance.md#the-seeded-step).
	buf := e.buf[:0]
	//lint:ignore S1011 the loop is the faster copy here, as the comment above says
	for i := range fields {
		buf = append(buf, fields[i])
	}
	e.buf = buf
	e.sink.Emit(e.worker, kind, buf)
}

// emitRun emits the run event of task, the one every seeded step writes,
// to the sink's EmitRun (runEvents' for a sink without one). It is one
// interface call, small enough to be inlined, so that a step makes one
// call for its run event, not two.
func (e *emitter) emitRun(task uint64) {
	if e.runs != nil {
		e.runs.EmitRun(e.worker, task)
	}
}

// runEvents is the run event's path for a sink without one of its own:
// the event with its one field, without building a variadic slice to
// copy.
type runEvents struct {
	link.Sink
	buf []trace.Field
}

func (r *runEvents) EmitRun(worker int, task uint64) {
	r.buf = append(r.buf[:0], trace.I(trace.KeyTask, int64(task)))
	r.Emit(worker, trace.KindRun, r.buf)
}
