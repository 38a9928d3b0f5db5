package fiber

import (
	"fmt"
	"iter"
	"runtime/debug"
)

// Reason says why a fiber gave control back. The scheduler defines the
// values; this package only carries them from Yield to Resume. A fiber that
// finished (Done or Panicked) reports reason 0.
type Reason uint32

// Status says what state a fiber is in after Resume returns.
type Status uint8

const (
	// Suspended: the body called Yield (or has not started yet); Resume
	// again to continue it.
	Suspended Status = iota
	// Done: the body returned (or was unwound by Close).
	Done
	// Panicked: the body panicked; Fiber.Panic holds the value and stack.
	Panicked
)

// String returns the constant's name, for test failures and traces.
func (s Status) String() string {
	switch s {
	case Suspended:
		return "Suspended"
	case Done:
		return "Done"
	case Panicked:
		return "Panicked"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Body is what a fiber runs. It is an interface rather than only a func so
// that a scheduler's task struct can be the body itself, without allocating a
// closure per task.
type Body interface {
	RunFiber(f *Fiber)
}

// BodyFunc adapts a plain function to Body. A BodyFunc is pointer-shaped, so
// converting one to Body does not allocate.
type BodyFunc func(f *Fiber)

// RunFiber calls fn(f). Called only by the fiber's coroutine.
func (fn BodyFunc) RunFiber(f *Fiber) { fn(f) }

// PanicError is a panic captured from a fiber body: the value passed to panic
// and the stack of the coroutine at the moment of the panic (debug.Stack, so
// it names the panicking function).
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns "panic: <value>"; the stack is left out so that the message
// stays one line in logs and traces.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error (for example a
// runtime.Error), so errors.As can reach it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Fiber is a stackful coroutine running one Body at a time. Its coroutine
// (one iter.Pull) outlives the body: when a body ends, the coroutine parks
// and can be given a new body by Pool.Get, so running a task on a pooled
// fiber starts no goroutine.
//
// A Fiber is owned by one goroutine at a time. Ownership may move between
// goroutines (work stealing), provided the hand-over itself synchronizes
// (a channel send, a mutex, an atomic with release/acquire order).
type Fiber struct {
	// The hot-path fields come first so that Resume and Yield touch one
	// cache line: next and yield are the two halves of the switch, reason
	// and status are what a switch reports.

	// next resumes the coroutine; from iter.Pull. It also ends it: Close
	// sets closed and resumes it, and the coroutine, seeing closed where
	// it was suspended, unwinds and returns. (iter.Pull's stop would do the
	// same; not keeping it keeps a Fiber at 48 bytes, which every parked
	// task holds one of.)
	next func() (struct{}, bool)
	// yield switches back to the Resume caller; from iter.Pull, set once by
	// the coroutine when it first runs.
	yield  func(struct{}) bool
	reason Reason
	status Status
	// closed: Close has run, or the body called runtime.Goexit. A closed
	// fiber is never resumed or pooled again.
	closed bool
	// exiting: the coroutine is parked in the middle of a Goexit (see
	// finish) until release lets it exit.
	exiting bool
	// inBody: loop is inside a body (so a deferred finish that runs means
	// the body did not return).
	inBody bool

	body     Body
	panicErr *PanicError
}

// release lets a coroutine parked in the middle of a Goexit exit. Resumed,
// it finishes the Goexit, and next then passes the Goexit on to the
// goroutine that called it (iter.Pull does), so it runs on a goroutine of
// its own.
// Called only by the fiber's current owner.
func (f *Fiber) release() {
	if f.exiting {
		f.exiting = false
		go f.next()
	}
}

// Goexited reports whether the panic is a runtime.Goexit of the body
// rather than a panic.
func (e *PanicError) Goexited() bool { return e.Value == goexitValue }

// unwinding is the panic value Yield raises when Close stops a suspended
// fiber. It is a private type so no body can raise it by accident, and it is
// zero-sized so boxing it into the panic interface does not allocate.
type unwinding struct{}

// goexitValue is the PanicError.Value recorded when a body calls
// runtime.Goexit. It is a private pointer so it cannot be confused with a
// value a body panics with.
var goexitValue = &goexitMarker{}

type goexitMarker struct{ _ byte }

func (*goexitMarker) String() string { return "runtime.Goexit called in fiber body" }

// New returns a fiber that will run body on its own coroutine. The coroutine
// (a goroutine the runtime switches to directly) is created now; the body
// starts at the first Resume. Call Close, or hand the fiber to Pool.Put once
// finished, to release the coroutine.
// Can be called from any goroutine.
func New(body Body) *Fiber {
	f := &Fiber{body: body}
	f.next, _ = iter.Pull(f.loop())
	return f
}

// loop returns the coroutine's sequence function, which loops so that one
// coroutine serves many bodies: after a body ends it yields a "finished" switch and, on
// the next Resume, runs whatever body Pool.Get bound in the meantime. It
// returns, ending the coroutine, when Close resumes it (before its first
// body, while it sat finished, or once Close has unwound a body) and after a
// body panicked: the recover is in a deferred call of this frame, so that
// the frames below a suspended body are as few as can be (the collector
// walks every parked fiber's frames at each cycle:
// docs/performance.md#parked-stacks), and
// a recovered panic ends the frame. A panicked fiber therefore does not keep
// its coroutine: rebind gives it a new one, which costs iter.Pull's
// allocations only after a panic. The deferred call also catches panics
// raised by the body's own deferred functions. The function runs only on
// the fiber's coroutine.
//
// It is a closure literal rather than the method value of a method: a
// method value calls the method through an autogenerated wrapper, one more
// frame (hidden from tracebacks, not from the collector) under every body.
// Like the method value, the closure is one 16-byte allocation a fiber.
func (f *Fiber) loop() func(yield func(struct{}) bool) {
	return func(yield func(struct{}) bool) {
		f.yield = yield
		defer f.finish()
		for !f.closed {
			f.inBody = true
			f.body.RunFiber(f)
			f.inBody = false
			if f.panicErr == againMark {
				f.panicErr = nil
				continue // the body called Again
			}
			f.status = Done
			f.reason = 0
			f.body = nil // drop the task so a parked fiber pins no memory
			if f.closed {
				return
			}
			yield(struct{}{})
		}
	}
}

// Again makes the fiber run its body once more as soon as the running
// body returns, on the same coroutine and without giving control back to
// the Resume caller, which sees nothing of it. A body that loops with a
// deferred recover in its frame (a scheduler's loop running tasks right
// above it, so that a task parked there has no frame of the loop's between
// its own and the fiber's: the collector walks every frame of every parked
// fiber at each cycle, docs/performance.md#parked-stacks) can so go on after
// a recovered
// panic has ended its frame. It applies to the body's return only: a body
// that panics or calls runtime.Goexit after it ends the fiber as it would
// have.
// Called only from inside the running body of f.
func (f *Fiber) Again() { f.panicErr = againMark }

// againMark is panicErr while a body that called Again runs: a running
// body has no captured panic, and a field of its own would take Fiber out
// of the 48-byte size class. The loop tests it after the body returns, so
// that nothing is added before the body's call: a parked fiber's frame
// whose call comes later in the function costs the collector more to
// decode when the runtime's pcvalue cache misses
// (docs/performance.md#parked-stacks).
var againMark = &PanicError{}

// finish records how a body ended that did not return: a panic, an unwind
// by Close, or a runtime.Goexit. It is deferred by loop and must call
// recover itself (recover only works directly in a deferred function).
// Runs only on the fiber's coroutine.
func (f *Fiber) finish() {
	if !f.inBody {
		return // loop returned: Close resumed it outside a body
	}
	f.inBody = false
	f.reason = 0
	f.body = nil // drop the task so a dead fiber pins no memory
	switch v := recover().(type) {
	case unwinding:
		// Close stopped the body at a Yield and its defers have run. That
		// is an orderly end, not a failure.
		f.status = Done
	case nil:
		// No panic yet the body did not return: runtime.Goexit. It cannot
		// be stopped, and once this coroutine exits iter.Pull passes it on
		// to whichever goroutine switched to it last, which would end the
		// Resume caller (a scheduler's worker) too. So the coroutine does
		// not exit yet: it switches back to Resume from here, in the middle
		// of the Goexit, as a finished body would, and stays parked until
		// release lets it exit on a goroutine of its own. The fiber is
		// never pooled again.
		f.status = Panicked
		f.panicErr = &PanicError{Value: goexitValue, Stack: debug.Stack()}
		f.closed, f.exiting = true, true
		f.yield(struct{}{})
	default:
		f.status = Panicked
		f.panicErr = &PanicError{Value: v, Stack: debug.Stack()}
	}
}

// Resume runs the body until it yields or ends, and returns the reason given
// to Yield with Suspended, or (0, Done), or (0, Panicked). A panic in the
// body never escapes Resume, nor does a runtime.Goexit: that ends the body
// as Panicked, with a PanicError whose Goexited is true.
//
// Called only by the fiber's current owner, from any goroutine, never
// concurrently and never from inside the fiber's own body. Resuming a fiber
// that is Done or Panicked (without rebinding it through a Pool) or one that
// is closed panics: that is a scheduler bug, not a task failure.
func (f *Fiber) Resume() (Reason, Status) {
	if f.status != Suspended {
		f.badResume()
	}
	if _, ok := f.next(); !ok {
		// loop returns while it is being resumed only after its body
		// panicked (Close and Goexit replace next): the coroutine has
		// ended, and rebind makes the fiber a new one if it is reused.
		if f.status != Panicked {
			panic("fiber: Resume: coroutine ended")
		}
		f.next = nil
	}
	return f.reason, f.status
}

// badResume reports a Resume of a finished fiber. It is out of line so that
// Resume stays small.
func (f *Fiber) badResume() {
	if f.closed {
		closedNext()
	}
	panic("fiber: Resume: fiber finished (status " + f.status.String() + ")")
}

// closedNext replaces next on a closed fiber, so that a late Resume fails
// with a sentence, not a switch into a coroutine that has ended.
func closedNext() (struct{}, bool) { panic("fiber: Resume: fiber closed") }

// Yield suspends the body; the pending Resume returns (r, Suspended). Yield
// returns when the fiber is resumed again, possibly on another goroutine.
//
// Called only from inside the running body of f. If the fiber is closed while
// suspended here, Yield does not return: it panics with a private value that
// unwinds the body (running its defers) and is recovered by the fiber. A body
// that recovers every panic should re-panic values it does not recognize.
func (f *Fiber) Yield(r Reason) {
	f.reason = r
	f.yield(struct{}{})
	if f.closed {
		panic(unwinding{})
	}
}

// Panic returns the captured panic when the fiber's status is Panicked, and
// nil otherwise.
// Called only by the fiber's current owner.
func (f *Fiber) Panic() *PanicError {
	if f.status != Panicked {
		return nil
	}
	return f.panicErr
}

// Status returns the fiber's status as of the last Resume (Suspended for a
// fiber that has not started).
// Called only by the fiber's current owner.
func (f *Fiber) Status() Status { return f.status }

// Close releases the coroutine. If the body is suspended in Yield, it is
// unwound first: Yield panics with a private value, the body's defers run,
// and the fiber records Done (or Panicked, if a deferred function panicked
// with something else). Close is idempotent; Resume after Close panics.
//
// Called only by the fiber's current owner, never from inside its own body.
func (f *Fiber) Close() {
	f.release()
	if f.closed {
		return
	}
	f.closed = true
	next := f.next
	f.next = closedNext
	if next == nil {
		return // its body panicked, and the coroutine has ended (Resume)
	}
	// next cannot panic here: finish recovers everything the body raises,
	// so the sequence function always returns normally, and it does
	// return: the coroutine sees closed wherever it was suspended.
	next()
	// A deferred call of the unwound body that yields (a task's deferred
	// unlock that blocks) suspends the body again, and would never be
	// resumed: its coroutine would outlive the fiber. Resume it, and its
	// Yield panics as the first did, until the body is unwound. Each
	// round runs at least one deferred call to its end, so the rounds are
	// bounded by the body's deferred calls; closeRoundsMax is a guard.
	for round := 0; f.inBody; round++ {
		if round == closeRoundsMax {
			panic("fiber: Close: the body yields again at every unwinding")
		}
		next()
	}
}

// closeRoundsMax bounds the resumptions Close makes of a body whose
// deferred calls yield while it is unwound.
const closeRoundsMax = 1 << 20

// rebind gives a finished fiber a new body; the next Resume starts it on the
// same coroutine.
// Called only by Pool.Get, on a fiber no other goroutine can reach.
func (f *Fiber) rebind(body Body) {
	if f.next == nil {
		f.next, _ = iter.Pull(f.loop()) // the last body panicked (Resume)
	}
	f.body = body
	f.status = Suspended
	f.reason = 0
	f.panicErr = nil
}
