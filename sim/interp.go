package sim

import (
	"errors"
	"fmt"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// errReturn unwinds a body on `return`; it never escapes a task.
var errReturn = errors.New("sim: return")

// program interprets a scenario's task bodies on the sched API. It is just
// one client of that API: every operation maps to a public sched call.
type program struct {
	sc       *scenario.Scenario
	funcs    map[string]sched.Func
	channels map[string]driver.Channel
	lim      realLimits // real mode only
}

func newProgram(sc *scenario.Scenario, s *driver.Scheduler) *program {
	p := &program{sc: sc, funcs: make(map[string]sched.Func, len(sc.Tasks)), channels: map[string]driver.Channel{}}
	for _, ch := range sc.Channels {
		p.channels[ch.Name] = driver.NewChannel(s, ch.Name, ch.Capacity)
	}
	for _, name := range sc.TaskNames {
		ops := sc.Tasks[name].Ops
		p.funcs[name] = func(t *sched.Task) error {
			err := p.exec(t, nil, ops)
			if err == errReturn {
				return nil
			}
			return err
		}
	}
	return p
}

// scope is the chain of nurseries lexically enclosing a body, innermost last.
type scope []*sched.Nursery

func (sc scope) find(label string) *sched.Nursery {
	for i := len(sc) - 1; i >= 0; i-- {
		if sc[i].Label() == label {
			return sc[i]
		}
	}
	return nil
}

func budgetOf(b scenario.Budget) sched.Budget {
	return sched.Budget{Ops: b.Ops, Memory: b.Memory, SpawnCount: b.SpawnCount, ChannelOps: b.ChannelOps, Syscalls: b.Syscalls}
}

// exec runs ops in t. It returns errReturn when a `return` ended the body.
func (p *program) exec(t *sched.Task, sc scope, ops []scenario.Op) error {
	for i := range ops {
		if err := p.op(t, sc, &ops[i]); err != nil {
			return err
		}
	}
	return nil
}

// op runs one operation: its row of execs.
func (p *program) op(t *sched.Task, sc scope, op *scenario.Op) error {
	if int(op.Kind) >= len(execs) || execs[op.Kind] == nil {
		panic(fmt.Sprintf("sim: op: unknown operation %d at %s", op.Kind, op.Path))
	}
	return execs[op.Kind](p, t, sc, op)
}

// execFunc runs one operation of task t, inside the nurseries sc.
type execFunc func(p *program, t *sched.Task, sc scope, op *scenario.Op) error

// execs is what each operation does, one row per scenario.OpKind: the
// table docs/scenarios.md describes, on the real scheduler's Task API. It
// is filled in init because the rows that run bodies (call, loop, ...)
// reach execs again through program.exec.
var execs [scenario.OpKindEnd]execFunc

func init() {
	execs = [...]execFunc{
		scenario.Compute: func(_ *program, t *sched.Task, _ scope, op *scenario.Op) error { return driver.Compute(t, op.N) },
		scenario.Yield:   func(_ *program, t *sched.Task, _ scope, _ *scenario.Op) error { return t.Yield() },
		scenario.Call:    execCall,
		scenario.Loop:    execLoop,
		scenario.Spawn:   execSpawn,
		scenario.Nursery: execNursery,
		scenario.Cancel: func(_ *program, t *sched.Task, sc scope, op *scenario.Op) error {
			sc.find(op.Str).Cancel(t)
			return nil
		},
		scenario.CheckCancel: func(_ *program, t *sched.Task, _ scope, _ *scenario.Op) error { return t.Checkpoint() },
		scenario.Alloc:       func(_ *program, t *sched.Task, _ scope, op *scenario.Op) error { return driver.Alloc(t, op.N) },
		scenario.Syscall:     func(_ *program, t *sched.Task, _ scope, op *scenario.Op) error { return driver.Syscall(t, op.N) },
		scenario.Defer:       execDefer,
		scenario.Using:       execUsing,
		scenario.Send: func(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
			return driver.Send(t, p.channels[op.Str], 1)
		},
		scenario.Recv: execRecv,
		scenario.Close: func(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
			return driver.Close(t, p.channels[op.Str])
		},
		scenario.Sleep:    func(_ *program, t *sched.Task, _ scope, op *scenario.Op) error { return t.Sleep(op.N) },
		scenario.Recharge: execRecharge,
		scenario.Log:      execLog,
		scenario.Return: func(_ *program, t *sched.Task, _ scope, op *scenario.Op) error {
			driver.SetValue(t, op.N)
			return errReturn
		},
		scenario.Fail:  func(_ *program, _ *sched.Task, _ scope, op *scenario.Op) error { return &failure{msg: op.Str} },
		scenario.Panic: func(_ *program, _ *sched.Task, _ scope, op *scenario.Op) error { panic(op.Str) },
	}
}

func execCall(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
	if err := driver.Call(t); err != nil {
		return err
	}
	err := p.exec(t, nil, p.sc.Tasks[op.Str].Ops)
	if err == errReturn {
		return nil
	}
	return err
}

func execLoop(p *program, t *sched.Task, sc scope, op *scenario.Op) error {
	for i := int64(0); op.N == scenario.LoopForever || i < op.N; i++ {
		if err := driver.Call(t); err != nil { // each iteration start: a checkpoint, one op
			return err
		}
		if err := p.exec(t, sc, op.Body); err != nil {
			return err
		}
	}
	return nil
}

func execSpawn(p *program, _ *sched.Task, sc scope, op *scenario.Op) error {
	n := sc[len(sc)-1]
	o := sched.SpawnOptions{As: op.As, HasCaps: op.HasCaps}
	if op.SpawnBudget != nil {
		b := budgetOf(op.SpawnBudget.Over(p.sc.Budget))
		o.Budget = &b
	}
	if op.HasCaps {
		caps, err := sched.ParseCaps(op.Caps)
		if err != nil {
			return err
		}
		o.Caps = caps
	}
	if err := p.lim.take(limTasks); err != nil {
		return err
	}
	return n.Go(op.Str, p.funcs[op.Str], o)
}

func execNursery(p *program, t *sched.Task, sc scope, op *scenario.Op) error {
	if err := p.lim.take(limNurseries); err != nil {
		return err
	}
	mode, _ := nursery.ParseMode(op.Mode)
	o := sched.NurseryOptions{Label: op.Str, Mode: mode, MaxConcurrent: op.MaxConcurrent, Catch: op.Catch}
	if op.HasTimeout {
		o.Timeout = op.Timeout
	}
	if op.NurseryBudget != nil {
		b := budgetOf(op.NurseryBudget.Over(p.sc.Budget))
		o.Budget = &b
	}
	var b block
	return b.leave(t.Nursery(o, func(n *sched.Nursery) error {
		return b.run(p, t, append(sc[:len(sc):len(sc)], n), op.Body)
	}))
}

func execDefer(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
	label, body := op.Str, op.Body
	// A cleanup logs its label when it runs.
	if err := p.lim.take(limCleanups, limEvents); err != nil {
		return err
	}
	t.Defer(label, func(t *sched.Task) error {
		p.lim.release(limCleanups)
		driver.Log(t, label)
		var b block
		return b.run(p, t, nil, body)
	})
	return nil
}

func execUsing(p *program, t *sched.Task, sc scope, op *scenario.Op) error {
	// A using block logs two lines, acquire and release.
	if err := p.lim.take(limCleanups, limEvents, limEvents); err != nil {
		return err
	}
	defer p.lim.release(limCleanups)
	var b block
	return b.leave(t.Using(op.Str, func() error { return b.run(p, t, sc, op.Body) }))
}

func execLog(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
	if err := p.lim.take(limEvents); err != nil {
		return err
	}
	driver.Log(t, op.Str)
	return nil
}

func execRecv(p *program, t *sched.Task, _ scope, op *scenario.Op) error {
	_, _, err := driver.Recv(t, p.channels[op.Str])
	return err
}

func execRecharge(_ *program, t *sched.Task, _ scope, op *scenario.Op) error {
	_, err := driver.Recharge(t, op.Str, budgetOf(op.Recharge.Over(scenario.Budget{})))
	return err
}

// block runs the body of a nursery, using or defer: a `return` inside it
// leaves the block normally (the nursery is awaited, not cancelled) and is
// passed on once the block has ended.
type block struct{ returned bool }

func (b *block) run(p *program, t *sched.Task, sc scope, ops []scenario.Op) error {
	err := p.exec(t, sc, ops)
	if err == errReturn {
		b.returned = true
		return nil
	}
	return err
}

// leave passes a `return` seen inside the block on to the enclosing body.
func (b *block) leave(err error) error {
	if err == nil && b.returned {
		return errReturn
	}
	return err
}

// failure is the error of a `fail` operation; its text is the task's error.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }
