package trace

// The run event, "STEP TICK ACTOR run task=ID", is the line of every
// seeded step, and encoding it (the two integers above all) was most of
// what a trace added to a step (docs/performance.md#the-trace-writer). So
// the Writer keeps the text of the last run line's step and tick and adds
// one to it in place, as step and tick mostly move, and the rest of the
// line, the same for every step of a task on a worker, is encoded once by
// the caller (RunTail). A run line is then two fixed-size copies into the
// buffer, past the line's end where the next line overwrites them: no
// copy of a variable length, whose call and bookkeeping took back what
// the kept text saved when it was tried with one. The line of a story
// run's task that moved to another place adds the place's at= field,
// encoded once (Place), after those copies (WriteRunTailAt).

// runTailMax is the room of a RunTail: "w255 run task=", 17 digits and a
// story run's at= field of up to 54 bytes (an op path such as
// `at="task.producer.ops[0].body[1]"` takes 34). A longer tail is encoded
// at each write instead.
const runTailMax = 96

// RunTail is the part of a run event's line after the step and the tick,
// "ACTOR run task=ID\n" or with a place, "ACTOR run task=ID at=AT\n",
// encoded once so that each run line of the same actor, task and place
// copies it (Writer.WriteRunTail). A story run's task says its place only
// when it changes: those lines add the place to a tail without one
// (Writer.WriteRunTailAt). The zero RunTail is not valid: writing it
// panics, as a bad actor does.
type RunTail struct {
	b     [runTailMax]byte // the tail, then padding copied past the line's end
	n     uint8            // bytes of b in use; 0 when the tail does not fit in b
	ok    bool             // the actor is a key
	actor string           // the actor, task and at, for a tail that does not fit in b
	task  int64
	at    string // the at= field's value, "" for none
}

// NewRunTail returns the tail of the run lines of actor and task. An actor
// outside [a-z0-9_.-]+ makes a tail whose writing panics.
func NewRunTail(actor string, task int64) RunTail {
	return NewRunTailAt(actor, task, "")
}

// NewRunTailAt returns the tail of the run lines of actor and task with
// the at= field at (none when at is ""): the lines of a replay of a
// version-3 trace that says the place on every run line.
func NewRunTailAt(actor string, task int64, at string) RunTail {
	var t RunTail
	t.ResetAt(actor, task, at)
	return t
}

// ResetAt makes t, in place, the tail NewRunTailAt(actor, task, at)
// returns: a caller keeping tails in a slice remakes one whenever a task
// moves to another worker.
func (t *RunTail) ResetAt(actor string, task int64, at string) {
	if !validKey(actor) {
		*t = RunTail{}
		return
	}
	t.ok, t.actor, t.task, t.at = true, actor, task, at
	t.n = 0
	var buf [2 * runTailMax]byte
	if b := appendRunTail(buf[:0], actor, task, at); len(b) <= runTailMax {
		t.n = uint8(copy(t.b[:], b))
	}
}

// appendRunTail appends "ACTOR run task=ID\n", or with at not "",
// "ACTOR run task=ID at=AT\n".
func appendRunTail(dst []byte, actor string, task int64, at string) []byte {
	dst = appendRunHead(dst, actor, task)
	if at != "" {
		dst = appendAtField(dst, at)
	}
	return append(dst, '\n')
}

// Place is a task's place with its at= field's text, " at=AT", encoded
// once (PlaceOf), for the run lines that say a place (WriteRunTailAt).
// The field and the line's end are kept in an array too, when they fit,
// so that a line copies them as it copies its tail: a whole array.
type Place struct {
	at, field string
	b         [placeMax]byte // the field and '\n' when n > 0, then zeros
	n         uint8
}

// placeMax is the room of a Place's array: an at= field of up to 62
// bytes and the line's end.
const placeMax = 64

// PlaceOf encodes the at= field of place at; for "", at="": a story run's
// task that left its places.
func PlaceOf(at string) Place {
	p := Place{at: at, field: " " + KeyAt + `=""`}
	if at != "" {
		var buf [2 * runTailMax]byte
		p.field = string(appendAtField(buf[:0], at)) // one allocation, the string's
	}
	if len(p.field) < placeMax {
		p.n = uint8(copy(p.b[:], p.field)) + 1
		p.b[p.n-1] = '\n'
	}
	return p
}

// String is the place.
func (p Place) String() string { return p.at }

// appendRunHead appends "ACTOR run task=ID".
func appendRunHead(dst []byte, actor string, task int64) []byte {
	dst = append(dst, actor...)
	dst = append(dst, " run "+KeyTask+"="...)
	return appendInt(dst, task)
}

// appendAtField appends " at=AT".
func appendAtField(dst []byte, at string) []byte {
	dst = append(dst, " "+KeyAt+"="...)
	return appendValue(dst, &Field{Key: KeyAt, Str: at})
}

// prefixRoom is the size of a prefix's array: its text takes 42 bytes at
// most (two 20-digit integers and their spaces), and 64 lets an index
// masked to 6 bits go without a bounds check.
const prefixRoom = 64

// prefix is "STEP TICK " as text, for the step and tick it holds.
type prefix struct {
	b          [prefixRoom]byte // the text, then padding copied past the line's end
	n          uint8            // bytes of b in use
	stepDigits uint8            // b[:stepDigits] is the step
	stepLast   uint8            // the index of the step's last digit, stepDigits-1
	tickLast   uint8            // the index of the tick's last digit, n-2
	step, tick uint64
}

// newPrefix returns the prefix of step 0 and tick 0.
func newPrefix() prefix {
	p := prefix{n: 4, stepDigits: 1, stepLast: 0, tickLast: 2}
	copy(p.b[:], "0 0 ")
	return p
}

// next makes p the text of step and tick, both one more than p's and
// both with a last digit under 9, or reports false. It is set's common
// case, small enough to be inlined: a seeded step counts both up by one,
// and nine times in ten no digit carries. (A tick of 0 may be the largest
// integer plus one; a step cannot be, as steps never go backwards.)
func (p *prefix) next(step, tick uint64) bool {
	s, t := p.stepLast&(prefixRoom-1), p.tickLast&(prefixRoom-1)
	if step != p.step+1 || tick != p.tick+1 || tick == 0 || p.b[s] == '9' || p.b[t] == '9' {
		return false
	}
	p.b[s]++
	p.b[t]++
	p.step, p.tick = step, tick
	return true
}

// to makes p the text of step and tick, or reports false when step goes
// back: next, else set for a carry (one step in ten) or a jump. It is
// WriteRunTail's test written as a function, too big to be inlined there
// (the line of every step), used by the rarer lines.
func (p *prefix) to(step, tick uint64) bool {
	if (step != p.step || tick != p.tick) && !p.next(step, tick) {
		if step < p.step {
			return false
		}
		p.set(step, tick)
	}
	return true
}

// set makes p the text of step and tick: each digit string moved by one is
// counted up in place, anything else formatted again (a 0 too: it may be
// the largest integer plus one).
func (p *prefix) set(step, tick uint64) {
	if step-p.step <= 1 && tick-p.tick <= 1 && step != 0 && tick != 0 &&
		(step == p.step || countUp(p.b[:p.stepDigits])) &&
		(tick == p.tick || countUp(p.b[p.stepDigits+1:p.n-1])) {
		p.step, p.tick = step, tick
		return
	}
	b := appendUint(p.b[:0], step) // 42 bytes at most: never outgrows p.b
	p.stepDigits = uint8(len(b))
	b = append(b, ' ')
	b = appendUint(b, tick)
	b = append(b, ' ')
	p.n = uint8(len(b))
	p.stepLast, p.tickLast = p.stepDigits-1, p.n-2
	p.step, p.tick = step, tick
}

// countUp adds one to the decimal text d in place. It reports false when
// every digit was 9, leaving d all zeros: the number needs a digit more.
func countUp(d []byte) bool {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return true
		}
		d[i] = '0'
	}
	return false
}

// appendPrefix returns the Writer's buffer with "STEP TICK " appended,
// from the kept text (prefix) made that of step and tick.
func (w *Writer) appendPrefix(step, tick uint64) []byte {
	p := &w.pre
	if (step != p.step || tick != p.tick) && !p.next(step, tick) {
		p.set(step, tick)
	}
	return append(w.buf, p.b[:p.n]...)
}

// WriteRunTail writes the run line "STEP TICK ACTOR run task=ID" of t's
// actor and task (with t's at= field, if it has one): what WriteRun
// writes, without encoding the actor and the task again. It is the line
// of every seeded step.
func (w *Writer) WriteRunTail(step, tick uint64, t *RunTail) error {
	// The fast path: a tail that fits, room in the buffer (there is none
	// before the header), and a step that does not go back.
	p := &w.pre
	n := len(w.buf)
	if t.n == 0 || cap(w.buf)-n < prefixRoom+runTailMax {
		return w.writeRunSlow(step, tick, t, "")
	}
	if (step != p.step || tick != p.tick) && !p.next(step, tick) {
		if step < p.step {
			return w.writeRunSlow(step, tick, t, "") // it panics
		}
		p.set(step, tick) // a carry (one step in ten), or a jump
	}
	// Both copies are of whole arrays, written past the line's end into
	// the buffer's spare room (lineSlack): a few vector moves each.
	b := w.buf[n : n+prefixRoom+runTailMax]
	*(*[prefixRoom]byte)(b) = p.b
	*(*[runTailMax]byte)(b[p.n&(prefixRoom-1):]) = t.b
	w.buf = w.buf[:n+int(p.n)+int(t.n)]
	return w.spill()
}

// WriteRunTailAt writes t's run line with the at= field of p: the line of
// a story run's task that moved to another place
// (docs/trace-format.md#the-story-what-each-step-ran-and-who-met-whom).
// t must have no at= field: a line with two panics.
func (w *Writer) WriteRunTailAt(step, tick uint64, t *RunTail, p *Place) error {
	if t.at != "" {
		panic("trace: WriteRunTailAt: the tail has an at= field")
	}
	n := len(w.buf)
	if t.n == 0 || p.n == 0 || cap(w.buf)-n < prefixRoom+runTailMax+placeMax {
		return w.writeRunSlow(step, tick, t, p.field)
	}
	if !w.pre.to(step, tick) {
		return w.writeRunSlow(step, tick, t, "") // it panics
	}
	// WriteRunTail's copies, and the place's over the tail's '\n'.
	pre := &w.pre
	b := w.buf[n : n+prefixRoom+runTailMax+placeMax]
	*(*[prefixRoom]byte)(b) = pre.b
	*(*[runTailMax]byte)(b[pre.n&(prefixRoom-1):]) = t.b
	end := int(pre.n&(prefixRoom-1)) + int(t.n) - 1
	*(*[placeMax]byte)(b[end:]) = p.b
	w.buf = w.buf[:n+end+int(p.n)]
	return w.spill()
}

// writeRunSlow is WriteRunTail with its checks, and field added before
// the line's end, for whatever its fast path does not take: a tail too
// long for its RunTail or a bad one, a buffer without the room past its
// end (before the header too), a step that goes back; and a line with a
// place when the buffer is nearly full.
func (w *Writer) writeRunSlow(step, tick uint64, t *RunTail, field string) error {
	if !w.header {
		panic("trace: WriteRunTail: header not written")
	}
	if step < w.pre.step {
		panic("trace: WriteRunTail: step went backwards")
	}
	if !t.ok {
		panic("trace: WriteRunTail: bad actor")
	}
	dst := appendRunHead(w.appendPrefix(step, tick), t.actor, t.task)
	if t.at != "" {
		dst = appendAtField(dst, t.at)
	}
	w.buf = append(append(dst, field...), '\n')
	return w.spill()
}
