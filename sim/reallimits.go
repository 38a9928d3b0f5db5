package sim

import (
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched"
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
}

var limitNames = [...]string{"tasks", "nurseries", "cleanups", "events"}

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

const (
	limTasks = iota
	limNurseries
	limCleanups
	limEvents
)
