package sched

import (
	"sync"
	"time"
)

// Chan is a typed channel between tasks: a channel whose int64 tokens name
// values of type T kept beside it. It behaves as its channel does (the
// same capacity, blocking, closing, cancellation and costs); a send's value
// is kept from the moment it is sent until a receive takes it, and a send
// that fails (closed channel, cancellation) takes its value back, so a
// value is received at most once and none is left behind.
type Chan[T any] struct {
	c *channel

	mu   sync.Mutex // guards vals and free
	vals []T        // by token; a free slot holds the zero T
	free []int64    // tokens not in use
}

// NewChan creates a typed channel with the given capacity (0: rendezvous).
func NewChan[T any](s *Scheduler, name string, capacity int) *Chan[T] {
	return &Chan[T]{c: s.drv().NewChannel(name, capacity)}
}

// Send sends v, blocking while the channel is full.
func (c *Chan[T]) Send(t *Task, v T) error {
	tok := c.put(v)
	if err := t.ops().Send(c.c, tok); err != nil {
		c.take(tok)
		return err
	}
	return nil
}

// Recv receives a value, blocking while the channel is empty: ok is false once the channel is
// closed and drained.
func (c *Chan[T]) Recv(t *Task) (v T, ok bool, err error) {
	tok, ok, err := t.ops().Recv(c.c)
	if err != nil || !ok {
		return v, ok, err
	}
	return c.take(tok), true, nil
}

// Close closes the channel: receivers drain what is left, then get ok == false.
func (c *Chan[T]) Close(t *Task) error { return t.ops().Close(c.c) }

// put stores v and returns its token.
func (c *Chan[T]) put(v T) int64 {
	c.mu.Lock()
	if k := len(c.free); k > 0 {
		tok := c.free[k-1]
		c.free = c.free[:k-1]
		c.vals[tok] = v
		c.mu.Unlock()
		return tok
	}
	c.vals = append(c.vals, v) // no panic: running out of memory is fatal
	tok := int64(len(c.vals) - 1)
	c.mu.Unlock()
	return tok
}

// take removes and returns the value of tok.
func (c *Chan[T]) take(tok int64) T {
	c.mu.Lock()
	v := c.vals[tok]
	var zero T
	c.vals[tok] = zero
	c.free = append(c.free, tok)
	c.mu.Unlock()
	return v
}

// Ticks converts a duration to real-mode ticks (RealTickNanos each) for
// Task.Sleep and NurseryOptions.Timeout, rounding up so that a positive
// duration is never zero ticks.
func Ticks(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + RealTickNanos - 1) / RealTickNanos)
}
