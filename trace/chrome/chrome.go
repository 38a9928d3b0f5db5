package chrome

// Export to the Chrome trace-event JSON format, which ui.perfetto.dev and
// chrome://tracing open. docs/export.md describes the mapping for users; the
// short version:
//
//   - one process, "cbcsim: <scenario name>", with one lane (thread) per
//     worker, "worker N", and a lane "driver" for the actor "sim";
//   - a complete event (ph "X") per task run: a worker's consecutive run
//     steps of the same task merge into one slice, which ends when the worker
//     does anything else (pop, global, steal, steal-fail, park, run another
//     task), another worker steps (a preemption), or the task yields,
//     blocks or finishes;
//   - an instant (ph "i") for every other event, on its actor's lane, with
//     the event's fields as args; the outcome is a global instant;
//   - ts is the trace's tick read as microseconds: one tick is 1 µs.
//
// Rejected designs: writing B/E pairs instead of X events (twice the events,
// and a slice that a truncated file leaves open renders as running forever);
// dropping the high-volume steal-fail and park instants (they are what shows
// a worker hunting for work; a viewer can hide them, but an export that
// dropped them cannot bring them back);
// streaming the output without buffering (a slice's duration is known only
// when it closes, and writing it at its start keeps the file in trace order,
// which makes the golden files readable). The buffer holds 16 bytes per event.

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cbcsim/cbcsim/trace"
)

const (
	// pid is the process of every event. Perfetto treats pid 0 as the
	// idle process, so it is not used.
	pid = 1
	// workersMax bounds the lanes made from the header's "workers"
	// field (workers that logged no event still get a lane). It is the
	// CLI's worker limit; a larger value is ignored rather than trusted to
	// size an allocation.
	workersMax = 256
)

// Lane ranks, the order lanes are listed in.
const (
	rankWorker = iota // "w0".."wN", by number
	rankDriver        // "sim"
	rankOther         // any other actor, by name
)

// lane is one thread of the output: an actor of the trace.
type lane struct {
	actor  string
	name   string // "worker 3", "driver", or "actor X"
	rank   int
	worker uint64 // N of "wN" when rank is rankWorker
	tid    int
	open   int    // the index of the slice in progress in converter.slices, or -1
	free   uint64 // the first tick the lane's next run step may start at
}

// span is one X event: consecutive run steps of a task on a lane.
type span struct {
	task       trace.Field // the task field of the run events; Key is "" when they had none
	lane       int
	ts, end    uint64 // [ts, end) in ticks
	steps      int
	stepsFirst uint64
	stepsLast  uint64
}

// item is one output event in file order: a slice, or an instant made
// from the trace event t.Events[ev].
type item struct {
	ev    int // the trace event; for a slice, its first run event
	slice int // index into converter.slices, or -1 for an instant
}

// value is a field value as a comparable map key.
type value struct {
	str   string
	n     int64
	isInt bool
}

func valueOf(f trace.Field) value {
	if f.IsInt {
		return value{n: f.Int, isInt: true}
	}
	return value{str: f.Str}
}

// converter holds the state of one Write call.
type converter struct {
	t         *trace.Trace
	lanes     []lane
	laneOf    map[string]int   // actor -> index into lanes; never iterated
	taskNames map[value]string // task -> its scenario name; never iterated
	slices    []span
	items     []item
	// lastWorker is the lane of the worker whose event came last, or -1:
	// a run step after another worker's step starts a new slice.
	lastWorker int

	w   *bufio.Writer
	buf []byte // the event being written
	err error  // the first write error
}

// Write writes t as Chrome trace-event JSON (the JSON Object Format:
// {"traceEvents": [...], "otherData": {...}}), which ui.perfetto.dev and
// chrome://tracing open. Each worker is a thread lane, consecutive run steps
// of a task on a worker are one complete ("X") slice, every other event is
// an instant ("i") with the event's fields as args, and ts is the tick in
// microseconds. The output depends only on t: the same trace gives the same
// bytes. Strings that are not valid UTF-8 are written with U+FFFD in place
// of the bad bytes. Write buffers its writes and returns the first
// write error.
func Write(w io.Writer, t *trace.Trace) error {
	if t == nil {
		return errors.New("trace: Write: nil trace")
	}
	c := &converter{
		t:         t,
		laneOf:    make(map[string]int),
		taskNames: make(map[value]string),
		w:         bufio.NewWriterSize(w, 64<<10),
	}
	c.collect()
	c.convert()
	c.write()
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}

// collect makes the lanes and learns the task names. The root task is
// "main", as in the scenario: the task of a spawn without a parent, or, in
// a simulator trace, where the driver starts the root before the first
// event, the first task named in the trace that no spawn event creates.
func (c *converter) collect() {
	if f, ok := c.t.Header.Get("workers"); ok && f.IsInt && f.Int > 0 && f.Int <= workersMax {
		for i := int64(0); i < f.Int; i++ {
			c.addLane("w" + strconv.FormatInt(i, 10))
		}
	}
	c.addLane("sim")
	hasRoot := false
	for i := range c.t.Events {
		e := &c.t.Events[i]
		c.addLane(e.Actor)
		if e.Kind != trace.KindSpawn {
			continue
		}
		task, ok := field(e, "task")
		if !ok {
			continue
		}
		v := valueOf(task)
		if _, ok := c.taskNames[v]; ok {
			continue // the first spawn of a task names it
		}
		c.taskNames[v] = "" // spawned, no name yet
		if name, ok := field(e, "name"); ok {
			c.taskNames[v] = text(name)
		} else if _, ok := field(e, "parent"); !ok {
			c.taskNames[v], hasRoot = "main", true
		}
	}
	for i := 0; i < len(c.t.Events) && !hasRoot; i++ {
		if task, ok := field(&c.t.Events[i], "task"); ok {
			if _, spawned := c.taskNames[valueOf(task)]; !spawned {
				c.taskNames[valueOf(task)], hasRoot = "main", true
			}
		}
	}
	slices.SortFunc(c.lanes, func(a, b lane) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.worker, b.worker), strings.Compare(a.actor, b.actor))
	})
	for i := range c.lanes {
		// tid 1 is the process's main thread (pid 1); the lanes follow it.
		c.lanes[i].tid = i + 2
		c.laneOf[c.lanes[i].actor] = i
	}
}

func (c *converter) addLane(actor string) {
	if _, ok := c.laneOf[actor]; ok {
		return
	}
	c.laneOf[actor] = -1 // indices are set after sorting
	// Another actor's lane is named "actor X", so that no actor's name can
	// take the driver's ("driver" is a valid actor) or a worker's.
	l := lane{actor: actor, name: "actor " + actor, rank: rankOther, open: -1}
	switch n, ok := workerNumber(actor); {
	case ok:
		l.name, l.rank, l.worker = "worker "+strconv.FormatUint(n, 10), rankWorker, n
	case actor == "sim":
		l.name, l.rank = "driver", rankDriver
	}
	c.lanes = append(c.lanes, l)
}

// workerNumber returns N for an actor "wN" written the way the
// simulator writes it (no leading zeros).
func workerNumber(actor string) (uint64, bool) {
	digits, ok := strings.CutPrefix(actor, "w")
	if !ok || digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	return n, err == nil
}

// convert turns the events into items and slices.
func (c *converter) convert() {
	c.lastWorker = -1
	for i := range c.t.Events {
		e := &c.t.Events[i]
		li := c.laneOf[e.Actor]
		l := &c.lanes[li]
		task, hasTask := field(e, "task")
		switch e.Kind {
		case trace.KindRun:
			c.run(i, li, e, task, hasTask)
			c.lastWorker = li
			continue
		case trace.KindPop, trace.KindGlobal, trace.KindSteal, trace.KindStealFail, trace.KindPark:
			l.open = -1 // the worker does something else
		case trace.KindYield, trace.KindBlock, trace.KindResult:
			if l.open >= 0 && hasTask && sameTask(c.slices[l.open].task, task) {
				l.open = -1 // the task leaves the worker
			}
		}
		c.items = append(c.items, item{ev: i, slice: -1})
		if l.rank == rankWorker {
			c.lastWorker = li
		}
	}
}

// run adds the run event e on lane li to the lane's slice, or starts one.
func (c *converter) run(ev int, li int, e *trace.Event, task trace.Field, hasTask bool) {
	l := &c.lanes[li]
	if !hasTask {
		task = trace.Field{}
	}
	// A run step takes one tick. Ticks of a lane's runs increase in every
	// trace the simulator writes, so at is the tick; the max keeps slices
	// from overlapping in a trace whose ticks repeat or go back.
	at := max(e.Tick, l.free)
	end := at + 1
	if at == math.MaxUint64 {
		end = at // saturate rather than wrap to 0
	}
	l.free = end
	// A step of another worker since this lane's last step preempted the
	// task: the slice ends there, so that the timeline shows the
	// interleaving (docs/export.md, "Run slices").
	if l.open >= 0 && sameTask(c.slices[l.open].task, task) && c.lastWorker == li {
		s := &c.slices[l.open]
		s.end, s.steps, s.stepsLast = end, s.steps+1, e.Step
		return
	}
	l.open = len(c.slices)
	c.slices = append(c.slices, span{task: task, lane: li, ts: at, end: end, steps: 1, stepsFirst: e.Step, stepsLast: e.Step})
	c.items = append(c.items, item{ev: ev, slice: l.open})
}

// sameTask compares two task fields by value; a missing task (Key "")
// equals only another missing task.
func sameTask(a, b trace.Field) bool {
	return (a.Key == "") == (b.Key == "") && valueOf(a) == valueOf(b)
}

// field returns the first field of e with the given key.
func field(e *trace.Event, key string) (trace.Field, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return trace.Field{}, false
}

// text is a field's value as text.
func text(f trace.Field) string {
	if f.IsInt {
		return strconv.FormatInt(f.Int, 10)
	}
	return f.Str
}

// id names a task, worker or nursery the way the tables do: the
// simulator writes ids as integers (task=3), shown with a prefix (t3); a
// string id (task=t3) is shown as it is.
func id(prefix string, f trace.Field) string {
	if f.IsInt {
		return prefix + strconv.FormatInt(f.Int, 10)
	}
	return f.Str
}

// kinds gives each kind's category and instant scope.
var kinds = [trace.KindEnd]struct {
	cat   string
	scope byte
}{
	trace.KindPop:       {"sched", 't'},
	trace.KindGlobal:    {"sched", 't'},
	trace.KindSteal:     {"sched", 't'},
	trace.KindStealFail: {"sched", 't'},
	trace.KindPark:      {"sched", 't'},
	trace.KindRun:       {"run", 0}, // a slice, not an instant
	trace.KindYield:     {"sched", 't'},
	trace.KindBlock:     {"sched", 't'},
	trace.KindWake:      {"sched", 't'},
	trace.KindExhausted: {"budget", 't'},
	trace.KindRecharge:  {"budget", 't'},
	trace.KindSpawn:     {"task", 't'},
	trace.KindNursery:   {"nursery", 't'},
	trace.KindCancel:    {"task", 't'},
	trace.KindObserve:   {"task", 't'},
	trace.KindCleanup:   {"task", 't'},
	trace.KindLog:       {"task", 't'},
	trace.KindResult:    {"task", 't'},
	trace.KindClock:     {"sim", 't'},
	trace.KindOutcome:   {"sim", 'g'}, // the run's end concerns every lane
	trace.KindDeadlock:  {"sim", 'p'}, // so do the driver's findings
	trace.KindLivelock:  {"sim", 'p'},
	trace.KindNote:      {"sim", 't'},
	trace.KindDecide:    {"sched", 't'},
	trace.KindChan:      {"task", 't'},
	trace.KindLock:      {"task", 't'},
}

// taskLabel is a task's id and, when known, its scenario name: "t3 slow_success".
func (c *converter) taskLabel(task trace.Field) string {
	id := id("t", task)
	if name := c.taskNames[valueOf(task)]; name != "" {
		return id + " " + name
	}
	return id
}

// instantName is the text Perfetto shows for an instant: the kind and the
// fields that say what happened ("steal t2 from w3").
func (c *converter) instantName(e *trace.Event) string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Kind == trace.KindNursery {
		c.nurseryInstant(&b, e)
		return b.String()
	}
	if f, ok := field(e, "task"); ok {
		if e.Kind == trace.KindSpawn {
			b.WriteString(" " + c.taskLabel(f))
		} else {
			b.WriteString(" " + id("t", f))
		}
	} else if f, ok := field(e, "nursery"); ok {
		b.WriteString(" " + id("n", f)) // "cancel n1": a mark on a whole nursery
	}
	instantSuffix(&b, e)
	return b.String()
}

// nurseryInstant names a nursery event: its label and id, then the
// transition or the outcome.
func (c *converter) nurseryInstant(b *strings.Builder, e *trace.Event) {
	if f, ok := field(e, "nursery"); ok {
		b.WriteString(" ")
		if label, ok := fieldText(e, "label"); ok {
			b.WriteString(label + " (" + id("n", f) + ")")
		} else {
			b.WriteString(id("n", f))
		}
	}
	to, hasTo := fieldText(e, "to")
	from, hasFrom := fieldText(e, "from")
	outcome, hasOutcome := fieldText(e, "outcome")
	switch {
	case hasTo && hasFrom:
		b.WriteString(": " + from + " -> " + to)
	case hasTo:
		b.WriteString(": -> " + to)
	case hasOutcome:
		b.WriteString(": outcome " + outcome)
	}
}

// nameSuffix is one part of an instant's name: format with % replaced
// by the first of keys the event has.
type nameSuffix struct {
	format string
	keys   []string
}

// nameSuffixes is what each kind of instant adds to its name; steal,
// result and clock, which need more than a field, are in instantSuffix.
var nameSuffixes = map[trace.Kind][]nameSuffix{
	trace.KindYield:     {{" (%)", []string{"why", "reason"}}},
	trace.KindBlock:     {{" on %", []string{"on"}}},
	trace.KindWake:      {{" by %", []string{"by"}}, {" to %", []string{"slot"}}},
	trace.KindExhausted: {{" (%)", []string{"comp"}}},
	trace.KindRecharge:  {{" from %", []string{"from"}}},
	trace.KindCancel:    {{" (%)", []string{"reason"}}},
	trace.KindObserve:   {{" at %", []string{"at"}}},
	trace.KindCleanup:   {{" %", []string{"do"}}, {": %", []string{"label"}}},
	trace.KindLog:       {{": %", []string{"text", "msg"}}},
	trace.KindOutcome:   {{" %", []string{"outcome", "status"}}, {" %", []string{"result", "err"}}},
	trace.KindNote:      {{": %", []string{"text", "crash"}}},
	trace.KindChan:      {{" %", []string{"op"}}, {" %", []string{"ch"}}},
	trace.KindLock:      {{" %", []string{"op"}}, {" %", []string{"on"}}},
}

func instantSuffix(b *strings.Builder, e *trace.Event) {
	suffix := func(sf nameSuffix) bool {
		for _, k := range sf.keys {
			if v, ok := fieldText(e, k); ok {
				b.WriteString(strings.Replace(sf.format, "%", v, 1))
				return true
			}
		}
		return false
	}
	switch e.Kind {
	case trace.KindSteal, trace.KindStealFail:
		if f, ok := field(e, "victim"); ok {
			b.WriteString(" from " + id("w", f))
		}
		suffix(nameSuffix{"'s % slot", []string{"slot"}})
	case trace.KindDecide:
		if len(e.Fields) > 0 && !e.Fields[0].IsInt {
			b.WriteString(" " + e.Fields[0].Key + "=" + e.Fields[0].Str)
		}
	case trace.KindResult:
		if !suffix(nameSuffix{" %", []string{"result"}}) && !suffix(nameSuffix{" err:%", []string{"err"}}) {
			suffix(nameSuffix{" ok:%", []string{"value"}})
		}
	case trace.KindClock:
		from, hasFrom := fieldText(e, "from")
		to, hasTo := fieldText(e, "to")
		if hasFrom && hasTo {
			b.WriteString(" " + from + " -> " + to)
		}
	}
	for _, sf := range nameSuffixes[e.Kind] {
		suffix(sf)
	}
}

// fieldText is the text of the event's field key, if it has one.
func fieldText(e *trace.Event, key string) (string, bool) {
	f, ok := field(e, key)
	return text(f), ok
}

// write writes the converted trace. Every event is one line, so that a
// golden file diffs line by line.
func (c *converter) write() {
	c.put(`{"traceEvents":[` + "\n")
	name := "trace"
	if f, ok := c.t.Header.Get("name"); ok {
		name = text(f)
	}
	first := true
	sep := func() {
		if !first {
			c.put(",\n")
		}
		first = false
	}
	sep()
	c.meta("process_name", pid, trace.S("name", "cbcsim: "+name))
	for i := range c.lanes {
		l := &c.lanes[i]
		sep()
		c.meta("thread_name", l.tid, trace.S("name", l.name))
		sep()
		c.meta("thread_sort_index", l.tid, trace.I("sort_index", int64(i)))
	}
	for _, it := range c.items {
		sep()
		if it.slice >= 0 {
			c.slice(&c.slices[it.slice])
		} else {
			c.instant(&c.t.Events[it.ev])
		}
	}
	c.put("\n],\n")

	// otherData: how to read ts, then the run's parameters.
	c.buf = append(c.buf[:0], `"otherData":`...)
	pre := []trace.Field{trace.S("exporter", "cbcsim export --format chrome"), trace.S("time_unit", "ts is the trace tick; 1 tick = 1 us")}
	c.buf = appendArgs(c.buf, pre, c.t.Header.Fields)
	c.buf = append(c.buf, "}\n"...)
	c.flushBuf()
}

// meta writes a metadata event whose one arg is arg.
func (c *converter) meta(name string, tid int, arg trace.Field) {
	b := append(c.buf[:0], `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"ph":"M","pid":`...)
	b = strconv.AppendInt(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"args":`...)
	b = appendArgs(b, nil, []trace.Field{arg})
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

func (c *converter) slice(s *span) {
	name := "run"
	if s.task.Key != "" {
		name = c.taskLabel(s.task)
	}
	b := append(c.buf[:0], `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"cat":"run","ph":"X","ts":`...)
	b = strconv.AppendUint(b, s.ts, 10)
	b = append(b, `,"dur":`...)
	b = strconv.AppendUint(b, s.end-s.ts, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(c.lanes[s.lane].tid), 10)
	b = append(b, `,"args":`...)
	var task []trace.Field
	if s.task.Key != "" {
		task = []trace.Field{s.task}
	}
	b = appendArgs(b, task, []trace.Field{
		trace.I("steps", int64(s.steps)),
		uintField("first_step", s.stepsFirst),
		uintField("last_step", s.stepsLast),
	})
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

func (c *converter) instant(e *trace.Event) {
	cat, scope := "other", byte('t')
	if e.Kind >= trace.KindPop && e.Kind < trace.KindEnd {
		cat, scope = kinds[e.Kind].cat, kinds[e.Kind].scope
	}
	b := append(c.buf[:0], `{"name":`...)
	b = appendString(b, c.instantName(e))
	b = append(b, `,"cat":`...)
	b = appendString(b, cat)
	b = append(b, `,"ph":"i","ts":`...)
	b = strconv.AppendUint(b, e.Tick, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(c.lanes[c.laneOf[e.Actor]].tid), 10)
	b = append(b, `,"s":"`...)
	b = append(b, scope, '"')
	b = append(b, `,"args":`...)
	b = appendArgs(b, []trace.Field{uintField("step", e.Step)}, e.Fields)
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

// uintField is an integer field for a uint64, which a trace's steps are;
// a step past the int64 range is written as text rather than wrapped.
func uintField(key string, v uint64) trace.Field {
	if v > math.MaxInt64 {
		return trace.S(key, strconv.FormatUint(v, 10))
	}
	return trace.I(key, int64(v))
}

func (c *converter) put(s string) {
	c.buf = append(c.buf[:0], s...)
	c.flushBuf()
}

func (c *converter) flushBuf() {
	if c.err != nil {
		return
	}
	_, c.err = c.w.Write(c.buf)
}

// appendArgs appends a JSON object of the fields of pre and then of
// fs, in order. A trace event may repeat a key, which a JSON object should
// not: the k-th use of a key (k >= 2) is written "key#k" ('#' cannot occur
// in a trace key).
func appendArgs(b []byte, pre, fs []trace.Field) []byte {
	b = append(b, '{')
	n := len(pre) + len(fs)
	var seen map[string]int // only for long field lists
	if n > 16 {
		seen = make(map[string]int, n)
	}
	at := func(j int) trace.Field {
		if j < len(pre) {
			return pre[j]
		}
		return fs[j-len(pre)]
	}
	for j := 0; j < n; j++ {
		f := at(j)
		uses := 1
		if seen != nil {
			seen[f.Key]++
			uses = seen[f.Key]
		} else {
			for k := 0; k < j; k++ {
				if at(k).Key == f.Key {
					uses++
				}
			}
		}
		if j > 0 {
			b = append(b, ',')
		}
		key := f.Key
		if uses > 1 {
			key += "#" + strconv.Itoa(uses)
		}
		b = appendString(b, key)
		b = append(b, ':')
		if f.IsInt {
			b = strconv.AppendInt(b, f.Int, 10)
		} else {
			b = appendString(b, f.Str)
		}
	}
	return append(b, '}')
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json writes it; U+2028 and U+2029 are escaped so the
// file is also valid JavaScript.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
