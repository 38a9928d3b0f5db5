package sched

import (
	"sync/atomic"

	"github.com/cbcsim/cbcsim/sched/internal/link"
)

// The driver's vocabulary lives in sched/internal/link so that sched/driver
// can re-export it without its showing on sched's page (docs/api-split.md).
type (
	taskState       = link.TaskState
	workerStats     = link.WorkerStats
	nurserySnapshot = link.NurserySnapshot
	xoshiro         = link.Xoshiro
)

const (
	stateReady     = link.StateReady
	stateRunning   = link.StateRunning
	stateBlocked   = link.StateBlocked
	stateExhausted = link.StateExhausted
	stateCompleted = link.StateCompleted
	stateCancelled = link.StateCancelled
)

// The driver's views of the public types (docs/api-split.md): the same
// structs under unexported names, whose exported methods go doc does not
// show. A conversion between a type and its view costs nothing.
type (
	driverView  Scheduler // the scheduler as sched/driver drives it
	taskOps     Task      // a task's scenario operations and inspection
	nurseryView Nursery   // a nursery's inspection
)

func init() {
	link.New = newWith
	link.Driver = func(s *Scheduler) any { return (*driverView)(s) }
	link.Task = func(t *Task) any { return (*taskOps)(t) }
	link.Nursery = func(n *Nursery) any { return (*nurseryView)(n) }
	link.Send = sendOn
	link.Recv = recvOn
	link.Yields = func(t *Task) int64 { return int64(t.yields) }
}

func (s *Scheduler) drv() *driverView { return (*driverView)(s) }
func (t *Task) ops() *taskOps         { return (*taskOps)(t) }

// Adapters for sched/driver, which cannot name the unexported worker and
// channel types: it sees them through interfaces of its own.

// NumWorkers is the number of workers.
func (view *driverView) NumWorkers() int { return len(view.workers) }

// WorkerAt is worker i, for the driver's Worker interface.
func (view *driverView) WorkerAt(i int) any { return view.workers[i] }

// Sched is the scheduler itself, for Run under a driver configuration.
func (view *driverView) Sched() *Scheduler { return (*Scheduler)(view) }

// ParkEpoch is the counter of the workers' parked-flag changes: it moves
// whenever a worker parks or a parked worker may act again. Stepped modes
// only, where the driver reads it between steps from its own goroutine.
func (view *driverView) ParkEpoch() *uint64 { return &view.parkEpoch }

// TimerDue is the time of the earliest pending timer (noTimer, all ones,
// if none): FireTimers has nothing to do before it.
func (view *driverView) TimerDue() *atomic.Uint64 { return &view.timers.nextAt }

// MakeChannel is NewChannel for the driver's Channel interface.
func (view *driverView) MakeChannel(name string, capacity int) any {
	return view.NewChannel(name, capacity)
}

// CloseChan is Close on a channel made by MakeChannel. A send and a
// receive on such a channel are sendOn and recvOn (channel.go), which
// package driver calls directly (link.Send and link.Recv).
func (view *taskOps) CloseChan(c any) error { return view.Close(c.(*channel)) }
