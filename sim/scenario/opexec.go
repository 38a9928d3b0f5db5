package scenario

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Env is what an operation's Exec reaches of the interpreter that runs it
// (package sim's program): the other task bodies, the channels and the
// run limits. Everything else an operation does is a public sched or
// driver call on its task: the interpreter is one client of that API.
type Env interface {
	// Run runs a body in t inside the nurseries sc; it returns ErrReturn
	// when a `return` ended it.
	Run(t *sched.Task, sc Scope, ops []Op) error
	Scenario() *Scenario
	Func(task string) sched.Func // the body of a task, to spawn it
	Channel(name string) driver.Channel
	// Take counts one more of a limit (real mode only; the seeded
	// driver checks its limits between steps) and fails past it;
	// Release gives one back.
	Take(l Limit) error
	Release(l Limit)
	// Sleep is t.Sleep bounded by real mode's wall-time limit.
	Sleep(t *sched.Task, ticks int64) error
	// Timeout is a nursery's timeout cut to that limit; cut says it was,
	// and EndTimeout is then called with the nursery's error.
	Timeout(t *sched.Task, ticks int64) (_ int64, cut bool)
	EndTimeout(t *sched.Task, err error) error
}

// Limit is one of the run limits an operation counts against in real
// mode (docs/reliability.md).
type Limit uint8

// The limits, in the order of package sim's limit names.
const (
	LimitTasks Limit = iota
	LimitNurseries
	LimitCleanups
	LimitEvents
)

// take takes each of ls in turn, up to the first that fails. It is not
// a variadic Env method so that the list stays on the stack: an
// interface call's arguments escape.
func take(e Env, ls ...Limit) error {
	for _, l := range ls {
		if err := e.Take(l); err != nil {
			return err
		}
	}
	return nil
}

// Scope is the chain of nurseries lexically enclosing a body, innermost
// last.
type Scope []*sched.Nursery

// Find returns the innermost nursery labelled label, or nil.
func (sc Scope) Find(label string) *sched.Nursery {
	for i := len(sc) - 1; i >= 0; i-- {
		if sc[i].Label() == label {
			return sc[i]
		}
	}
	return nil
}

// ErrReturn unwinds a body on `return`; it never escapes a task.
var ErrReturn = errors.New("sim: return")

// SchedBudget is b in the scheduler's type.
func SchedBudget(b Budget) sched.Budget {
	return sched.Budget{Ops: b.Ops, Memory: b.Memory, SpawnCount: b.SpawnCount, ChannelOps: b.ChannelOps, Syscalls: b.Syscalls}
}

// block runs the body of a nursery, using or defer: a `return` inside it
// leaves the block normally (the nursery is awaited, not cancelled) and is
// passed on once the block has ended.
type block struct{ returned bool }

func (b *block) run(e Env, t *sched.Task, sc Scope, ops []Op) error {
	err := e.Run(t, sc, ops)
	if err == ErrReturn {
		b.returned = true
		return nil
	}
	return err
}

// leave passes a `return` seen inside the block on to the enclosing body.
func (b *block) leave(err error) error {
	if err == nil && b.returned {
		return ErrReturn
	}
	return err
}
