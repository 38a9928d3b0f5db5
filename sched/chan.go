package sched

import (
	"reflect"
	"time"
	"unsafe"
)

// Chan is a typed channel between tasks. It is a channel (the same
// capacity, blocking, closing, cancellation and costs, and the same wait
// queues and parking) whose values are Ts: its Send and Recv are the
// channel's sendOn and recvOn with a typed value, moved under the
// channel's lock, in its buffer (a ring of Ts) or in the value slot of the
// task parked on the other side, so that a hand-over takes no other lock.
//
// A parked task's value slot is a word (Task.waitVal). A T that fits a
// word and holds no pointer (an int, a float64, a bool, a small struct of
// those: see wordType) is that word. Any other T that waits in a parked
// sender, or is handed to a parked receiver, is kept in a table beside
// the channel, guarded by the channel's lock, and the word is its token:
// a receive that finds a sender parked takes the value under the lock it
// holds; a receiver that was parked, and was handed the value, takes the
// lock once more for it; a send that fails (closed channel, cancellation)
// takes its value back. Either way a value is received at most once and
// none is left behind (TestChanValuesAcrossCancel).
type Chan[T any] struct {
	// Set by NewChan and read-only afterwards.
	c    *channel
	word bool // T is a parked task's value slot itself (wordType)

	// Guarded by c.mu, as the channel's own state is (with the same
	// exception: an unshared worker's Send and Recv leave it out).
	buf  []T     // ring of cap values, from c.head, c.n of them
	vals []T     // a word-less T parked or handed over, by token; a free slot holds the zero T
	free []int64 // tokens not in use
}

// NewChan creates a typed channel with the given capacity (0: rendezvous).
func NewChan[T any](s *Scheduler, name string, capacity int) *Chan[T] {
	return &Chan[T]{c: newChannel(s, name, capacity, 0), word: wordType(reflect.TypeFor[T]()), buf: make([]T, capacity)}
}

// Send sends v, blocking while the channel is full. It is sendOn with a
// typed value (see there); a task parked in it has this one frame for it.
func (c *Chan[T]) Send(t *Task, v T) error {
	ch := c.c
	if err := t.pointChan(); err != nil {
		return err
	}
	if ch.s != t.s {
		return ch.foreignErr()
	}
	for {
		held := ch.shared(t)          // else no lock (channel.shared)
		if held && !ch.mu.TryLock() { // ch.lock(), written out
			ch.lockContended()
		}
		if ch.closed {
			ch.unlock(held)
			return ch.closedErr("send on")
		}
		if r := ch.recvq.pop(); r != nil {
			r.waitVal = c.slot(v)
			if t.w.story() {
				ch.chanSend(t, r)
			}
			ch.handed(r, t.w)
			ch.unlock(held)
			return nil
		}
		if len(ch.sel) > 0 {
			if p := c.sendToSelect(v, t.w, nil); p != nil {
				if t.w.story() {
					ch.chanSend(t, p)
				}
				ch.unlock(held)
				return nil
			}
		}
		if ch.n < ch.cap {
			c.buf[(ch.head+ch.n)%ch.cap] = v
			if t.w.story() {
				ch.chanSend(t, nil)
			}
			ch.n++
			ch.unlock(held)
			return nil
		}
		if why := t.waitOnChannel(ch, true, c.slot(v), held); why != 0 { // unlocks ch
			t.suspend(why)
		}
		if t.wait.state == waitDone {
			return nil // the receiver took the value, and its token
		}
		if !c.word {
			ch.lock()
			c.take(t.waitVal) // the value back: no receiver has it
			ch.mu.Unlock()
		}
		if t.wait.state == waitClosed {
			return ch.closedErr("send on")
		}
		if err := t.channelWaitErr(); err != nil {
			return err
		}
	}
}

// Recv receives a value, blocking while the channel is empty: ok is false
// once the channel is closed and drained. It is recvOn with a typed value.
func (c *Chan[T]) Recv(t *Task) (v T, ok bool, err error) {
	ch := c.c
	if err := t.pointChan(); err != nil {
		return v, false, err
	}
	if ch.s != t.s {
		return v, false, ch.foreignErr()
	}
	for {
		held := ch.shared(t)          // else no lock (channel.shared)
		if held && !ch.mu.TryLock() { // ch.lock(), written out
			ch.lockContended()
		}
		if ch.n > 0 {
			v = c.buf[ch.head]
			if t.w.story() {
				ch.chanRecvBuffered(t)
			}
			var zero T
			c.buf[ch.head] = zero
			ch.head = (ch.head + 1) % ch.cap
			ch.n--
			if s := ch.sendq.pop(); s != nil {
				c.buf[(ch.head+ch.n)%ch.cap] = c.value(s.waitVal)
				if t.w.story() {
					ch.chanSendParked(t, s)
				}
				ch.n++
				ch.complete(s, waitDone, t.w)
			} else if len(ch.sel) > 0 {
				c.refill(t)
			}
			ch.unlock(held)
			return v, true, nil
		}
		if s := ch.sendq.pop(); s != nil {
			v = c.value(s.waitVal)
			if t.w.story() {
				ch.chanRecvDirect(t, s)
			}
			ch.complete(s, waitDone, t.w)
			ch.unlock(held)
			return v, true, nil
		}
		if len(ch.sel) > 0 {
			if sv, p := c.recvFromSelect(t.w, nil); p != nil {
				if t.w.story() {
					ch.chanRecvDirect(t, p)
				}
				ch.unlock(held)
				return sv, true, nil
			}
		}
		if ch.closed {
			ch.unlock(held)
			return v, false, nil
		}
		if why := t.waitOnChannel(ch, false, 0, held); why != 0 { // unlocks ch
			t.suspend(why)
		}
		if v, ok, done := c.woken(t); done {
			return v, ok, nil
		}
		if err := t.channelWaitErr(); err != nil {
			return v, false, err
		}
	}
}

// woken is the end of Recv's wait: the value handed to t, or the channel
// closed (done); done is false when the wait ended otherwise (a
// cancellation, a wake-up to try again), which channelWaitErr tells.
func (c *Chan[T]) woken(t *Task) (v T, ok, done bool) {
	switch t.wait.state {
	case waitDone:
		if c.word {
			return fromWord[T](t.waitVal), true, true
		}
		c.c.lock()
		v = c.take(t.waitVal)
		c.c.mu.Unlock()
		return v, true, true
	case waitClosed:
		return v, false, true
	}
	return v, false, false
}

// Close closes the channel: receivers drain what is left, then get ok == false.
func (c *Chan[T]) Close(t *Task) error {
	if c.c.s != t.s {
		return c.c.foreignErr()
	}
	return t.ops().Close(c.c)
}

// slot is v as a parked task's value slot holds it: the word itself, or
// the token of a place in the table. Called with c.c.mu held.
func (c *Chan[T]) slot(v T) int64 {
	if c.word {
		return toWord(v)
	}
	return c.put(v)
}

// value is the T a value slot holds, taken out of the table when it is
// there. Called with c.c.mu held.
func (c *Chan[T]) value(w int64) T {
	if c.word {
		return fromWord[T](w)
	}
	return c.take(w)
}

// wordType reports whether a value of type typ can be a parked task's
// value slot, an int64 word: at most 8 bytes, aligned at most as an
// int64, and holding no pointer, which the collector would not see in
// the word.
func wordType(typ reflect.Type) bool {
	return typ.Size() <= 8 && typ.Align() <= 8 && !hasPointers(typ)
}

// hasPointers reports whether a value of type typ may hold a pointer
// (anything but booleans, numbers, and arrays and structs of them).
func hasPointers(typ reflect.Type) bool {
	switch typ.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Array:
		return typ.Len() > 0 && hasPointers(typ.Elem())
	case reflect.Struct:
		for i := range typ.NumField() {
			if hasPointers(typ.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true // uintptr too: it may hold an address the word would hide
}

// toWord is v's bytes in an int64 word. Only for a T that wordType
// accepts: the word holds the whole of v.
func toWord[T any](v T) int64 {
	var w int64
	*(*T)(unsafe.Pointer(&w)) = v
	return w
}

// fromWord is the T whose bytes toWord put in w.
func fromWord[T any](w int64) T { return *(*T)(unsafe.Pointer(&w)) }

// put stores v in the table and returns its token. Called with c.c.mu
// held.
func (c *Chan[T]) put(v T) int64 {
	if k := len(c.free); k > 0 {
		tok := c.free[k-1]
		c.free = c.free[:k-1]
		c.vals[tok] = v
		return tok
	}
	c.vals = append(c.vals, v) // no panic: running out of memory is fatal
	return int64(len(c.vals) - 1)
}

// take removes and returns the value of tok from the table. Called with
// c.c.mu held.
func (c *Chan[T]) take(tok int64) T {
	v := c.vals[tok]
	var zero T
	c.vals[tok] = zero
	c.free = append(c.free, tok)
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
