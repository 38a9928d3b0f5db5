package sched

import (
	"context"
	"sync"
	"time"
)

// Time in the scheduler is a count of ticks: a virtual clock under the
// seeded driver (one tick a step, jumping to the next timer when no
// worker can act), wall time in real mode, where a tick is RealTickNanos
// (a microsecond). A time.Duration maps to ticks the same way under both
// drivers: d / RealTickNanos, rounded up, so that a positive duration
// never becomes zero ticks. Durations below a microsecond round up to
// one tick; every Duration fits (math.MaxInt64 nanoseconds are about
// 9.2e12 ticks).

// SleepFor is Sleep for a time.Duration (Ticks(d) ticks): a checkpoint,
// free of budget, interrupted by cancellation. It is time.Sleep for a
// task; under the seeded driver the time is virtual and passes at once
// when no task can run.
func (t *Task) SleepFor(d time.Duration) error { return t.Sleep(Ticks(d)) }

// Elapsed is the scheduler's time since the run began, as a Duration.
func (t *Task) Elapsed() time.Duration {
	return time.Duration(t.s.drv().Now()) * RealTickNanos
}

// Timer is a single event on the scheduler's clock, as time.Timer: when
// it fires, the time (Elapsed) is sent on C, a channel of capacity one,
// which a task receives from or waits on in Select (C.RecvCase). Make it
// with NewTimer or After.
type Timer struct {
	C *Chan[time.Duration]

	s      *Scheduler
	mu     sync.Mutex // guards tm
	tm     *timer
	period int64 // ticks between a Ticker's firings, 0 for a Timer

	unwatched func() bool // C.unwatched, the timer's inert (timers.nextWaking)

	stop *Chan[struct{}] // AfterFunc's: closed by Stop, which ends the waiting task
}

// NewTimer returns a Timer that fires once d has passed (at once for
// d <= 0, at the scheduler's next firing of timers). Making it is not a
// step boundary and costs nothing.
func NewTimer(t *Task, d time.Duration) *Timer {
	tr := &Timer{C: NewChan[time.Duration](t.s, "timer", 1), s: t.s}
	t.armTimers()
	tr.mu.Lock()
	tr.start(Ticks(d))
	tr.mu.Unlock()
	return tr
}

// After is NewTimer(t, d).C, as time.After: a channel that receives once
// d has passed.
func After(t *Task, d time.Duration) *Chan[time.Duration] { return NewTimer(t, d).C }

// armTimers readies t's worker for timers that fire on another goroutine
// (real mode's clock) and touch channels: its channel operations take
// their locks from now on (worker.unshared).
func (t *Task) armTimers() { t.w.timed = true }

// start arms the timer to fire ticks from now. Called with tr.mu held.
func (tr *Timer) start(ticks int64) {
	if tr.unwatched == nil {
		tr.unwatched = tr.C.unwatched // a func value made once, not at each of a Ticker's firings
	}
	tr.tm = tr.s.timers.addFunc(tr.s.drv().Now()+uint64(max(ticks, 0)), tr.fire, tr.unwatched)
}

// fire is the timer's firing, on the driver's or the clock's goroutine:
// the time goes on C unless C is full (a Ticker's receiver is behind: the
// tick is dropped, as time.Ticker does), and a Ticker is armed again.
func (tr *Timer) fire(now uint64) {
	tr.C.offer(time.Duration(now) * RealTickNanos)
	tr.mu.Lock()
	if tr.period > 0 && tr.tm != nil {
		tr.start(tr.period)
	}
	tr.mu.Unlock()
}

// Stop stops the timer from firing and reports whether it was still
// pending. It does not drain C. An AfterFunc's Stop that comes before the
// firing keeps f from running and ends its task.
func (tr *Timer) Stop() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tm := tr.tm
	tr.tm = nil
	pending := tm != nil && tr.s.timers.kill(tm)
	if pending && tr.stop != nil {
		tr.stop.closeFrom(nil)
	}
	return pending
}

// AfterFunc runs f in a task of its own once d has passed, as
// time.AfterFunc runs it in a goroutine of its own. The task is spawned
// now, by t into n (Nursery.GoFrom, so t is n's owner or one of its
// children), and waits for the timer in a Select: n waits for it as for
// any child, until it has run f or the returned Timer was stopped. Stop
// before the firing keeps f from running; Reset does not restart f (make
// another AfterFunc). The error is the spawn's.
func AfterFunc(t *Task, n *Nursery, d time.Duration, f Func) (*Timer, error) {
	tr := NewTimer(t, d)
	tr.stop = NewChan[struct{}](t.s, "afterfunc stop", 0)
	err := n.GoFrom(t, "afterfunc", func(c *Task) error {
		i, err := Select(c, tr.C.RecvCase(nil, nil), tr.stop.RecvCase(nil, nil))
		if err != nil || i == 1 {
			return err
		}
		return f(c)
	})
	if err != nil {
		tr.Stop()
		return nil, err
	}
	return tr, nil
}

// Reset makes the timer fire once d has passed from now, and reports
// whether it was still pending. As with time.Timer since Go 1.23, a value
// of an earlier firing not yet received stays in C only if it was sent.
func (tr *Timer) Reset(d time.Duration) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	pending := tr.tm != nil && tr.s.timers.kill(tr.tm)
	tr.start(Ticks(d))
	return pending
}

// Ticker sends the time on C every period, as time.Ticker; a tick its
// receiver is not ready for is dropped. Make it with NewTicker; Stop it
// when done. A Ticker (or Timer) no task waits on does not keep a run
// alive: when every task is blocked and no pending timer's firing would
// wake one, the run is deadlocked (NextTimer).
type Ticker struct {
	C *Chan[time.Duration]
	t *Timer
}

// NewTicker returns a Ticker firing every d, which must be positive.
func NewTicker(t *Task, d time.Duration) *Ticker {
	if d <= 0 {
		panic("sched: NewTicker: non-positive interval")
	}
	tr := &Timer{C: NewChan[time.Duration](t.s, "ticker", 1), s: t.s, period: Ticks(d)}
	t.armTimers()
	tr.mu.Lock()
	tr.start(tr.period)
	tr.mu.Unlock()
	return &Ticker{C: tr.C, t: tr}
}

// Stop turns the ticker off.
func (tk *Ticker) Stop() { tk.t.Stop() }

// Reset changes the ticker's period to d and restarts it from now.
func (tk *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("sched: Ticker.Reset: non-positive interval")
	}
	tk.t.mu.Lock()
	defer tk.t.mu.Unlock()
	if tk.t.tm != nil {
		tk.t.s.timers.kill(tk.t.tm)
	}
	tk.t.period = Ticks(d)
	tk.t.start(tk.t.period)
}

// unwatched reports whether no task waits on c, in a Recv or a Select:
// a timer's firing on it would wake no one (timers.nextWaking).
func (c *Chan[T]) unwatched() bool {
	ch := c.c
	ch.lock()
	defer ch.mu.Unlock()
	return ch.recvq.len() == 0 && len(ch.sel) == 0
}

// offer sends v on c without a task and without waiting, from outside
// any worker (a timer's firing): to a parked receiver, a select waiting
// to receive, or the buffer; it is dropped if none can take it.
func (c *Chan[T]) offer(v T) {
	ch := c.c
	ch.lock()
	defer ch.mu.Unlock()
	if ch.closed {
		return
	}
	if r := ch.recvq.pop(); r != nil {
		r.waitVal = c.slot(v)
		r.wait.state = waitDone
		r.waitingOn.Store(nil)
		ch.s.wakeFrom(nil, r)
		return
	}
	if c.sendToSelect(v, nil, nil) {
		return
	}
	if ch.n < ch.cap {
		c.buf[(ch.head+ch.n)%ch.cap] = v
		ch.n++
	}
}

// taskCtx is the context Task.Context returns: a cancel context that
// knows its task's done channel, which DoneCase waits on.
type taskCtx struct {
	context.Context
	done *Chan[struct{}]
}

// taskCtxKey is the key under which a taskCtx finds itself through
// context.Value, from a context derived from it with WithValue.
var taskCtxKey = new(byte)

func (c *taskCtx) Value(key any) any {
	if key == taskCtxKey {
		return c
	}
	return c.Context.Value(key)
}

// DoneCase is a Select case that is ready once ctx is done, as
// `case <-ctx.Done():` is in Go: for a Task's Context (or a context
// derived from one by context.WithValue, which is done with it), a
// receive from a channel the scheduler closes when that task is
// cancelled or ends, which Select waits on like any other.
//
// Any other context (context.Background, one of context.WithCancel,
// WithTimeout...) is done on a goroutine or a clock the scheduler does
// not drive: its case is ready when Select finds ctx.Err() non-nil, but
// it cannot wake a waiting Select, so a Select that would have to wait
// with such a case fails with ErrForeignContext instead of hanging. Use
// a nursery's Timeout, or a Timer, for deadlines; context.Background's
// case (whose Done is nil) is never ready and is no error, as a nil
// channel's case.
func DoneCase(ctx context.Context) SelectCase {
	if ctx.Done() == nil {
		return SelectCase{}
	}
	if tc, ok := ctx.Value(taskCtxKey).(*taskCtx); ok && tc.Done() == ctx.Done() {
		return tc.done.RecvCase(nil, nil)
	}
	return SelectCase{foreign: ctx}
}

// foreignCtxErr is Select's error for a foreign context it would wait on.
func foreignCtxErr() error {
	return &SchedError{Code: CodeForeignContext, Detail: "Select would wait on a context the scheduler does not drive (see DoneCase)"}
}

// closeDone closes the task context's done channel, from w (nil: outside
// a worker), once. Called when the context is cancelled: the task was
// cancelled, or ended.
func (c *taskCtx) closeDone(w *worker) { c.done.closeFrom(w) }

// closeFrom closes c without a task, from w (nil: outside a worker), if
// it is open: parked receivers get ok false, waiting selects their
// receive case's. Only channels no task sends on are closed this way (a
// context's done channel, an AfterFunc's stop).
func (c *Chan[T]) closeFrom(w *worker) {
	ch := c.c
	ch.lock()
	defer ch.mu.Unlock()
	if ch.closed {
		return
	}
	ch.closed = true
	for r := ch.recvq.pop(); r != nil; r = ch.recvq.pop() {
		r.wait.state = waitClosed
		r.waitingOn.Store(nil)
		ch.s.wakeFrom(w, r)
	}
	if len(ch.sel) > 0 {
		ch.closeSelects(w)
	}
}
