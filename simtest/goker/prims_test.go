package goker

import (
	"github.com/cbcsim/cbcsim/sched"
)

// What the kernels share: the spawning of named tasks into a nursery, and
// Go's context.WithCancel as a task sees it.

// task is a named child for goAll.
type task struct {
	name string
	fn   sched.Func
}

// goAll starts every task in n, in order, and returns the first error.
func goAll(n *sched.Nursery, ts ...task) error {
	for _, c := range ts {
		if err := n.Go(c.name, c.fn); err != nil {
			return err
		}
	}
	return nil
}

// scope runs body in a nursery: the place where a Go program would start
// goroutines and forget them. A goroutine that leaks in Go is a child the
// nursery waits for forever, so a leak is a deadlock simtest reports.
func scope(t *sched.Task, body func(n *sched.Nursery) error) error {
	return t.Nursery(sched.NurseryOptions{}, body)
}

// goCtx is context.WithCancel's context as the kernels use it: Done is a
// channel that cancel closes; a child context is cancelled with its
// parent.
type goCtx struct {
	done     *sched.Chan[struct{}]
	err      error
	children []*goCtx
}

// errCanceled is context.Canceled.
var errCanceled = errorString("context canceled")

type errorString string

func (e errorString) Error() string { return string(e) }

// newCtx returns a context that nothing cancels until cancel is called
// (context.Background with WithCancel).
func newCtx(t *sched.Task, name string) *goCtx {
	return &goCtx{done: sched.NewChan[struct{}](t.Scheduler(), name, 0)}
}

// withCancel returns a child of parent, cancelled with it.
func (c *goCtx) withCancel(t *sched.Task, name string) *goCtx {
	child := newCtx(t, name)
	if c.err != nil {
		child.err = c.err
		child.done.Close(t)
		return child
	}
	c.children = append(c.children, child)
	return child
}

// cancel cancels the context and its children; a second cancel does
// nothing, as in Go.
func (c *goCtx) cancel(t *sched.Task) error {
	if c.err != nil {
		return nil
	}
	c.err = errCanceled
	for _, ch := range c.children {
		if err := ch.cancel(t); err != nil {
			return err
		}
	}
	return c.done.Close(t)
}

// wait is <-ctx.Done().
func (c *goCtx) wait(t *sched.Task) error {
	_, _, err := c.done.Recv(t)
	return err
}

// once is sync.Once: a second Do waits while the first runs, as Go's
// does (its slow path is a mutex).
type once struct {
	m    *mutex
	done bool
}

func newOnce(t *sched.Task, name string) *once { return &once{m: newMutex(t, name)} }

func (o *once) do(t *sched.Task, fn sched.Func) error {
	if err := o.m.lock(t); err != nil {
		return err
	}
	defer o.m.unlock(t)
	if o.done {
		return nil
	}
	o.done = true
	return fn(t)
}
