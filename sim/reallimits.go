package sim

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// realLimits enforces the run limits in real mode, where there is no
// driver between steps to check them and a task runs until it yields (a
// loop of defer ops with a large yield_interval is one step). The
// interpreter counts at the operations that hold memory; past a limit the
// operation fails the task, and the run is reported as a livelock at that
// limit, as in seeded mode. The seeded driver checks the same limits after
// each step instead, so its traces do not depend on this.
type realLimits struct {
	on                              bool
	tasks, nurseries, cleanups, log atomic.Int64
	hit                             atomic.Int32 // 1 + the index in limitNames of the first limit passed

	// The wall-time bound (startWall): deadline in ticks of real mode's
	// clock, 0 for none; wall is set once a wait was cut by it.
	deadline uint64
	now      func() uint64 // real mode's clock, in ticks
	wallMax  time.Duration
	wall     atomic.Bool
}

// limitNames names the limits, indexed by scenario.Limit (the limits an
// operation's Exec takes).
var limitNames = [...]string{
	scenario.LimitTasks: "tasks", scenario.LimitNurseries: "nurseries",
	scenario.LimitCleanups: "cleanups", scenario.LimitEvents: "events",
}

// take counts one more of each limit in is (indexes in limitNames) and
// fails when that passes one.
func (l *realLimits) take(is ...int) error {
	if !l.on {
		return nil
	}
	for _, i := range is {
		counter, max := l.counter(i)
		if counter.Add(1) > int64(max) {
			l.hit.CompareAndSwap(0, int32(i+1))
			return &sched.SchedError{Code: "SimulatorLimit", Detail: limitText(limitNames[i], max)}
		}
	}
	return nil
}

// release gives one back (a cleanup that ran).
func (l *realLimits) release(i int) {
	if l.on {
		c, _ := l.counter(i)
		c.Add(-1)
	}
}

func (l *realLimits) counter(i int) (*atomic.Int64, int) {
	switch i {
	case 0:
		return &l.tasks, limits.tasks
	case 1:
		return &l.nurseries, limits.nurseries
	case 2:
		return &l.cleanups, limits.cleanups
	}
	return &l.log, limits.events
}

// passed names the first limit passed, "" if none.
func (l *realLimits) passed() (string, int) {
	i := int(l.hit.Load()) - 1
	if i < 0 {
		return "", 0
	}
	_, max := l.counter(i)
	return limitNames[i], max
}

// DefaultRealTimeout bounds a real-mode run in wall time when
// Options.RealTimeout is 0 (docs/reliability.md).
const DefaultRealTimeout = 10 * time.Second

// startWall sets the wall-time bound of a real-mode run: sleeps and
// nursery timeouts end by it. Real mode's clock counts ticks from the
// start of Run, so the bound is a tick count from there.
//
// A real-mode run waits for real: a sleep or a timeout of 2^63 ticks would
// hold the run (and the worker parked on it) forever, and max_steps, which
// counts steps that did something, never passes while every task waits.
// The seeded driver needs no such bound, since its clock jumps to the
// next timer.
func (l *realLimits) startWall(d time.Duration, now func() uint64) {
	l.now = now
	if d <= 0 {
		d = DefaultRealTimeout
	}
	l.wallMax = d
	l.deadline = max(1, uint64(d/sched.RealTickNanos)) // 0 would mean none
}

// sleep is the sleep operation in real mode: a sleep that would end past
// the deadline ends at it and fails the task with the wall-time limit.
func (l *realLimits) sleep(t *sched.Task, ticks int64) error {
	if !l.on || l.deadline == 0 || ticks <= 0 {
		return t.Sleep(ticks)
	}
	left := int64(l.deadline) - int64(l.now())
	if ticks <= left {
		return t.Sleep(ticks)
	}
	if left > 0 {
		if err := t.Sleep(left); err != nil {
			return err // cancelled first: the wait ended for its own reason
		}
	}
	return l.passWall()
}

// timeout is a nursery's timeout in real mode, cut to the deadline; cut
// says it was, so that the nursery's end past the deadline is reported
// as the limit (endTimeout) rather than as a timeout the scenario did not
// ask for.
func (l *realLimits) timeout(t *sched.Task, ticks int64) (_ int64, cut bool) {
	if !l.on || l.deadline == 0 || ticks <= 0 {
		return ticks, false
	}
	left := int64(l.deadline) - int64(l.now())
	if ticks <= left {
		return ticks, false
	}
	return max(left, 1), true
}

// endTimeout is called when a nursery whose timeout was cut has ended:
// past the deadline, its end is the limit's doing.
func (l *realLimits) endTimeout(t *sched.Task, err error) error {
	if l.now() >= l.deadline {
		return l.passWall()
	}
	return err
}

func (l *realLimits) passWall() error {
	l.wall.Store(true)
	return &sched.SchedError{Code: "SimulatorLimit", Detail: l.wallText()}
}

// wallPassed reports whether the wall-time limit was passed; it outranks
// the deadlock its cancellations may leave behind.
func (l *realLimits) wallPassed() bool { return l.wall.Load() }

func (l *realLimits) wallText() string {
	return fmt.Sprintf("the run passed real mode's wall-time limit of %v (--real-timeout; docs/reliability.md)", l.wallMax)
}
