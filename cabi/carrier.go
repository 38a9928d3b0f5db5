package main

/*
#include "janus_internal.h"
*/
import "C"

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched"
)

// carrier is the sched task body of one C task. It owns the task's
// janus_ctx (its C stack and mailbox) and serves its requests: janus_run
// runs the C code until its next janus_* call, on the worker's own thread,
// inside one cgo call that has returned before the carrier calls the sched
// API. So a yield suspends the task's fiber with no cgo call on its stack,
// which iter.Pull requires, and the C frames wait on their own stack until
// some worker resumes them.
//
// Nurseries nest as Go's do: a janus_nursery_create runs the rest of the C
// code, up to the await or destroy of that nursery, inside the body given to
// Task.Nursery (open below), so the sched API's scoped nurseries carry the
// C API's create/await pair without a second implementation.
type carrier struct {
	body    sched.Func // k.run, made once per carrier
	cs      *cSched
	fn, arg C.uintptr_t
	ctx     *C.janus_ctx // nil before the task starts and after it ends
	ret     int64        // the C function's value, once it has returned
	t       *sched.Task
	spawned uintptr   // children spawned with janus_nursery_spawn: their tokens
	open    []*handle // the task's open nurseries, innermost last
	handles []*handle // nurseries not yet destroyed (open or awaited)

	// The request that is leaving one or more nursery levels: an await or
	// destroy of target, or the task's end (target nil). Zero otherwise.
	leaving int32
	target  *handle
}

// handle is a C nursery handle (JanusNursery *): an id, never a pointer,
// so that a destroyed or foreign handle is answered with JANUS_E_INVALID
// instead of being dereferenced.
type handle struct {
	id   uintptr
	n    *sched.Nursery // nil once the nursery has ended
	kind int32          // its result, once ended
	code int64
}

// handleIDs numbers nursery handles for the whole process, so that a stale
// handle never names a newer nursery.
var handleIDs atomic.Uintptr

// carriers keeps finished carriers, each with its body func value: a
// spawn then allocates neither (two allocations and their garbage were a
// fifth of a C spawn's time).
var carriers sync.Pool

// body returns the sched task body of a new C task running fn(arg).
func (cs *cSched) body(fn, arg C.uintptr_t) sched.Func {
	k, _ := carriers.Get().(*carrier)
	if k == nil {
		k = &carrier{}
		k.body = k.run
	}
	k.cs, k.fn, k.arg = cs, fn, arg
	return k.body
}

// run is the sched task body: it serves the C task to its end, turns the C
// function's value into the task's result, and puts the carrier back in
// carriers (nothing reads it once run has returned: the scheduler calls a
// body once).
func (k *carrier) run(t *sched.Task) error {
	err := k.serveTask(t)
	clear(k.open)
	clear(k.handles)
	*k = carrier{body: k.body, open: k.open[:0], handles: k.handles[:0]}
	carriers.Put(k)
	return err
}

// serveTask serves the C task to its end. The C stack is taken when the
// task first runs (a spawned task that never runs costs none) and given
// back by the cgo call in which it ends.
func (k *carrier) serveTask(t *sched.Task) error {
	k.t = t
	defer func() {
		if k.ctx != nil {
			// Only when the scheduler unwinds a suspended task
			// (Scheduler.Abort): its C frames are abandoned.
			C.janus_ctx_free(k.ctx)
			k.ctx = nil
		}
	}()
	k.serve()
	if k.leaving != C.JANUS_OP_END {
		return errNoStack
	}
	code := k.ret
	switch {
	case code == 0:
		return nil
	case code == int64(codeCancelled) && t.IsCancelled():
		// The task returns JANUS_E_CANCELLED it was given: it ends as
		// cancelled, not failed (a Go body returns its *CancelError).
		if err := t.Checkpoint(); err != nil {
			return err
		}
	}
	return &codeError{code: code}
}

// serve resumes the C task and answers its requests until it ends or makes
// a request that leaves the nursery level serve runs in (k.leaving).
func (k *carrier) serve() {
	t := k.t
	for {
		st := C.janus_run(k.ctx, k.fn, k.arg)
		k.ctx = st.ctx
		c := st.ctx
		switch st.op {
		case 0: // no memory for a stack
			return
		case C.JANUS_OP_END:
			k.leaving, k.target, k.ret = C.JANUS_OP_END, nil, int64(st.ret)
			return
		case C.JANUS_OP_YIELD:
			k.reply(codeOf(t.Yield()))
		case C.JANUS_OP_SPAWN:
			k.reply(k.spawnInnermost(c.a0, c.a1))
		case C.JANUS_OP_BUDGET_GET:
			c.budget = budgetOut(t.Budget())
			c.last_error = C.int32_t(codeOK)
		case C.JANUS_OP_RECHARGE:
			k.reply(codeOf(t.RechargeSelf(budgetIn(c.budget))))
		case C.JANUS_OP_NURSERY_CREATE:
			k.create()
			if k.leaving != 0 {
				return
			}
		case C.JANUS_OP_NURSERY_SPAWN:
			k.spawnInto(c.a0, c.a1, c.a2)
		case C.JANUS_OP_NURSERY_AWAIT, C.JANUS_OP_NURSERY_DESTROY:
			if k.leave(int32(c.op), uintptr(c.a0)) {
				return
			}
		default:
			panic("cabi: serve: unknown request")
		}
	}
}

// reply answers an int-returning request.
func (k *carrier) reply(code int32) {
	k.ctx.ret = C.int64_t(code)
	k.ctx.last_error = C.int32_t(code)
}

func (k *carrier) find(id uintptr) *handle {
	for _, h := range k.handles {
		if h.id == id {
			return h
		}
	}
	return nil
}

// spawnInnermost is janus_scheduler_spawn inside a task.
func (k *carrier) spawnInnermost(fn, arg C.uintptr_t) int32 {
	if len(k.open) == 0 {
		return codeNurseryNotActive
	}
	n := k.open[len(k.open)-1].n
	return codeOf(n.Go("c", k.cs.body(fn, arg)))
}

// spawnInto is janus_nursery_spawn: a0 answers the task token, 0 when
// refused, and last_error says why.
func (k *carrier) spawnInto(id, fn, arg C.uintptr_t) {
	c := k.ctx
	c.a0 = 0
	h := k.find(uintptr(id))
	switch {
	case h == nil:
		c.last_error = C.int32_t(codeInvalid)
	case h.n == nil:
		c.last_error = C.int32_t(codeNurseryNotActive)
	default:
		code := codeOf(h.n.Go("c", k.cs.body(fn, arg)))
		c.last_error = C.int32_t(code)
		if code == codeOK {
			// The JanusTask * token: no call takes one yet, so it need
			// only be non-NULL and distinct among this task's spawns (a
			// process-wide counter would be an atomic shared by every
			// worker on every spawn).
			k.spawned++
			c.a0 = C.uintptr_t(k.spawned)
		}
	}
}

// errLeave ends a nursery body that the C task left without awaiting it
// (a destroy, an outer destroy, or the task's end): Task.Nursery then
// cancels the children (NurseryExited) and awaits them.
var errLeave = errors.New("cabi: nursery left without await")

// create is janus_nursery_create. The C code that follows, up to the await
// or destroy that leaves this nursery, runs inside its body.
func (k *carrier) create() {
	c := k.ctx
	h := &handle{id: handleIDs.Add(1)}
	entered := false
	err := k.t.Nursery(sched.NurseryOptions{Label: "c"}, func(n *sched.Nursery) error {
		entered = true
		h.n = n
		k.open = append(k.open, h)
		k.handles = append(k.handles, h)
		c.a0 = C.uintptr_t(h.id)
		c.last_error = C.int32_t(codeOK)
		k.serve()
		k.open = k.open[:len(k.open)-1]
		if k.leaving == C.JANUS_OP_NURSERY_AWAIT && k.target == h {
			return nil
		}
		return errLeave
	})
	if !entered {
		// Refused on entry: cancelled, out of budget, or the profile.
		c.a0 = 0
		c.last_error = C.int32_t(codeOf(err))
		return
	}
	h.n = nil
	h.kind, h.code = resultOf(err)
	if k.target != h {
		return // still leaving: an outer nursery or the task's end
	}
	if k.leaving == C.JANUS_OP_NURSERY_AWAIT {
		k.answerAwait(h)
	} else {
		k.drop(h)
		c.last_error = C.int32_t(codeOK)
	}
	k.leaving, k.target = 0, nil
}

// leave handles an await or destroy of nursery id. It reports whether the
// request leaves the current nursery level (serve returns, and create
// answers it once Task.Nursery has awaited the children); otherwise it has
// answered already.
func (k *carrier) leave(op int32, id uintptr) bool {
	c := k.ctx
	h := k.find(id)
	switch {
	case h == nil:
		c.kind, c.ret = C.JANUS_NURSERY_PENDING, 0
		c.last_error = C.int32_t(codeInvalid)
		return false
	case h.n == nil && op == C.JANUS_OP_NURSERY_AWAIT:
		k.answerAwait(h) // awaited before: the same result again
		return false
	case h.n == nil:
		k.drop(h)
		c.last_error = C.int32_t(codeOK)
		return false
	case op == C.JANUS_OP_NURSERY_AWAIT && h != k.open[len(k.open)-1]:
		// Nurseries end inner first: an outer one cannot be awaited while
		// an inner one is open.
		c.kind, c.ret = C.JANUS_NURSERY_PENDING, 0
		c.last_error = C.int32_t(codeInvalid)
		return false
	}
	k.leaving, k.target = op, h
	return true
}

func (k *carrier) answerAwait(h *handle) {
	k.ctx.kind, k.ctx.ret = C.int32_t(h.kind), C.int64_t(h.code)
	k.ctx.last_error = C.int32_t(codeOK)
}

func (k *carrier) drop(h *handle) {
	for i, x := range k.handles {
		if x == h {
			k.handles = append(k.handles[:i], k.handles[i+1:]...)
			return
		}
	}
}

// resultOf maps what Task.Nursery returned to a JanusNurseryResult.
func resultOf(err error) (kind int32, code int64) {
	var child *sched.ChildError
	switch {
	case err == nil:
		return C.JANUS_NURSERY_SUCCESS, 0
	case errors.As(err, &child):
		return C.JANUS_NURSERY_CHILD_FAILED, childCode(child)
	case errors.Is(err, errLeave), errors.Is(err, sched.ErrCancelled):
		return C.JANUS_NURSERY_CANCELLED, 0
	}
	return C.JANUS_NURSERY_CHILD_FAILED, int64(codeOf(err))
}

// childCode is the first failing child's code: what its C function
// returned, or the JANUS_E_* code of what the scheduler failed it with.
func childCode(e *sched.ChildError) int64 {
	var ce *codeError
	if errors.As(e.Err, &ce) {
		return ce.code
	}
	if e.Err != nil {
		return int64(codeOf(e.Err))
	}
	return int64(codeInvalid)
}
