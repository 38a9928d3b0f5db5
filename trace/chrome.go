package trace

// Export to the Chrome trace-event JSON format, which ui.perfetto.dev and
// chrome://tracing open. docs/export.md describes the mapping for users; the
// short version:
//
//   - one process, "cbcsim: <scenario name>", with one lane (thread) per
//     worker, "worker N", and a lane "driver" for the actor "sim";
//   - a complete event (ph "X") per task run: a worker's consecutive run
//     steps of the same task merge into one slice, which ends when the worker
//     does anything else (pop, global, steal, steal-fail, park, run another
//     task) or the task yields, blocks or finishes;
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
)

const (
	// chromePid is the process of every event. Perfetto treats pid 0 as the
	// idle process, so it is not used.
	chromePid = 1
	// chromeWorkersMax bounds the lanes made from the header's "workers"
	// field (workers that logged no event still get a lane). It is the
	// CLI's worker limit; a larger value is ignored rather than trusted to
	// size an allocation.
	chromeWorkersMax = 256
)

// Lane ranks, the order lanes are listed in.
const (
	chromeRankWorker = iota // "w0".."wN", by number
	chromeRankDriver        // "sim"
	chromeRankOther         // any other actor, by name
)

// chromeLane is one thread of the output: an actor of the trace.
type chromeLane struct {
	actor  string
	name   string // "worker 3", "driver", or "actor X"
	rank   int
	worker uint64 // N of "wN" when rank is chromeRankWorker
	tid    int
	open   int    // the index of the slice in progress in chromeConv.slices, or -1
	free   uint64 // the first tick the lane's next run step may start at
}

// chromeSlice is one X event: consecutive run steps of a task on a lane.
type chromeSlice struct {
	task       Field // the task field of the run events; Key is "" when they had none
	lane       int
	ts, end    uint64 // [ts, end) in ticks
	steps      int
	stepsFirst uint64
	stepsLast  uint64
}

// chromeItem is one output event in file order: a slice, or an instant made
// from the trace event t.Events[ev].
type chromeItem struct {
	ev    int // the trace event; for a slice, its first run event
	slice int // index into chromeConv.slices, or -1 for an instant
}

// chromeValue is a field value as a comparable map key.
type chromeValue struct {
	str   string
	n     int64
	isInt bool
}

func chromeValueOf(f Field) chromeValue {
	if f.IsInt {
		return chromeValue{n: f.Int, isInt: true}
	}
	return chromeValue{str: f.Str}
}

// chromeConv holds the state of one WriteChrome call.
type chromeConv struct {
	t         *Trace
	lanes     []chromeLane
	laneOf    map[string]int         // actor -> index into lanes; never iterated
	taskNames map[chromeValue]string // task -> its scenario name; never iterated
	slices    []chromeSlice
	items     []chromeItem

	w   *bufio.Writer
	buf []byte // the event being written
	err error  // the first write error
}

// WriteChrome writes t as Chrome trace-event JSON (the JSON Object Format:
// {"traceEvents": [...], "otherData": {...}}), which ui.perfetto.dev and
// chrome://tracing open. Each worker is a thread lane, consecutive run steps
// of a task on a worker are one complete ("X") slice, every other event is
// an instant ("i") with the event's fields as args, and ts is the tick in
// microseconds. The output depends only on t: the same trace gives the same
// bytes. Strings that are not valid UTF-8 are written with U+FFFD in place
// of the bad bytes. WriteChrome buffers its writes and returns the first
// write error.
func WriteChrome(w io.Writer, t *Trace) error {
	if t == nil {
		return errors.New("trace: WriteChrome: nil trace")
	}
	c := &chromeConv{
		t:         t,
		laneOf:    make(map[string]int),
		taskNames: make(map[chromeValue]string),
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
func (c *chromeConv) collect() {
	if f, ok := c.t.Header.Get("workers"); ok && f.IsInt && f.Int > 0 && f.Int <= chromeWorkersMax {
		for i := int64(0); i < f.Int; i++ {
			c.addLane("w" + strconv.FormatInt(i, 10))
		}
	}
	c.addLane("sim")
	hasRoot := false
	for i := range c.t.Events {
		e := &c.t.Events[i]
		c.addLane(e.Actor)
		if e.Kind != KindSpawn {
			continue
		}
		task, ok := chromeField(e, "task")
		if !ok {
			continue
		}
		v := chromeValueOf(task)
		if _, ok := c.taskNames[v]; ok {
			continue // the first spawn of a task names it
		}
		c.taskNames[v] = "" // spawned, no name yet
		if name, ok := chromeField(e, "name"); ok {
			c.taskNames[v] = chromeText(name)
		} else if _, ok := chromeField(e, "parent"); !ok {
			c.taskNames[v], hasRoot = "main", true
		}
	}
	for i := 0; i < len(c.t.Events) && !hasRoot; i++ {
		if task, ok := chromeField(&c.t.Events[i], "task"); ok {
			if _, spawned := c.taskNames[chromeValueOf(task)]; !spawned {
				c.taskNames[chromeValueOf(task)], hasRoot = "main", true
			}
		}
	}
	slices.SortFunc(c.lanes, func(a, b chromeLane) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.worker, b.worker), strings.Compare(a.actor, b.actor))
	})
	for i := range c.lanes {
		// tid 1 is the process's main thread (pid 1); the lanes follow it.
		c.lanes[i].tid = i + 2
		c.laneOf[c.lanes[i].actor] = i
	}
}

func (c *chromeConv) addLane(actor string) {
	if _, ok := c.laneOf[actor]; ok {
		return
	}
	c.laneOf[actor] = -1 // indices are set after sorting
	// Another actor's lane is named "actor X", so that no actor's name can
	// take the driver's ("driver" is a valid actor) or a worker's.
	l := chromeLane{actor: actor, name: "actor " + actor, rank: chromeRankOther, open: -1}
	switch n, ok := chromeWorkerNumber(actor); {
	case ok:
		l.name, l.rank, l.worker = "worker "+strconv.FormatUint(n, 10), chromeRankWorker, n
	case actor == "sim":
		l.name, l.rank = "driver", chromeRankDriver
	}
	c.lanes = append(c.lanes, l)
}

// chromeWorkerNumber returns N for an actor "wN" written the way the
// simulator writes it (no leading zeros).
func chromeWorkerNumber(actor string) (uint64, bool) {
	digits, ok := strings.CutPrefix(actor, "w")
	if !ok || digits == "" || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	return n, err == nil
}

// convert turns the events into items and slices.
func (c *chromeConv) convert() {
	for i := range c.t.Events {
		e := &c.t.Events[i]
		li := c.laneOf[e.Actor]
		l := &c.lanes[li]
		task, hasTask := chromeField(e, "task")
		switch e.Kind {
		case KindRun:
			c.run(i, li, e, task, hasTask)
			continue
		case KindPop, KindGlobal, KindSteal, KindStealFail, KindPark:
			l.open = -1 // the worker does something else
		case KindYield, KindBlock, KindResult:
			if l.open >= 0 && hasTask && chromeSameTask(c.slices[l.open].task, task) {
				l.open = -1 // the task leaves the worker
			}
		}
		c.items = append(c.items, chromeItem{ev: i, slice: -1})
	}
}

// run adds the run event e on lane li to the lane's slice, or starts one.
func (c *chromeConv) run(ev int, li int, e *Event, task Field, hasTask bool) {
	l := &c.lanes[li]
	if !hasTask {
		task = Field{}
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
	if l.open >= 0 && chromeSameTask(c.slices[l.open].task, task) {
		s := &c.slices[l.open]
		s.end, s.steps, s.stepsLast = end, s.steps+1, e.Step
		return
	}
	l.open = len(c.slices)
	c.slices = append(c.slices, chromeSlice{task: task, lane: li, ts: at, end: end, steps: 1, stepsFirst: e.Step, stepsLast: e.Step})
	c.items = append(c.items, chromeItem{ev: ev, slice: l.open})
}

// chromeSameTask compares two task fields by value; a missing task (Key "")
// equals only another missing task.
func chromeSameTask(a, b Field) bool {
	return (a.Key == "") == (b.Key == "") && chromeValueOf(a) == chromeValueOf(b)
}

// chromeField returns the first field of e with the given key.
func chromeField(e *Event, key string) (Field, bool) {
	for _, f := range e.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// chromeText is a field's value as text.
func chromeText(f Field) string {
	if f.IsInt {
		return strconv.FormatInt(f.Int, 10)
	}
	return f.Str
}

// chromeID names a task, worker or nursery the way the tables do: the
// simulator writes ids as integers (task=3), shown with a prefix (t3); a
// string id (task=t3) is shown as it is.
func chromeID(prefix string, f Field) string {
	if f.IsInt {
		return prefix + strconv.FormatInt(f.Int, 10)
	}
	return f.Str
}

// chromeKinds gives each kind's category and instant scope.
var chromeKinds = [kindEnd]struct {
	cat   string
	scope byte
}{
	KindPop:       {"sched", 't'},
	KindGlobal:    {"sched", 't'},
	KindSteal:     {"sched", 't'},
	KindStealFail: {"sched", 't'},
	KindPark:      {"sched", 't'},
	KindRun:       {"run", 0}, // a slice, not an instant
	KindYield:     {"sched", 't'},
	KindBlock:     {"sched", 't'},
	KindWake:      {"sched", 't'},
	KindExhausted: {"budget", 't'},
	KindRecharge:  {"budget", 't'},
	KindSpawn:     {"task", 't'},
	KindNursery:   {"nursery", 't'},
	KindCancel:    {"task", 't'},
	KindObserve:   {"task", 't'},
	KindCleanup:   {"task", 't'},
	KindLog:       {"task", 't'},
	KindResult:    {"task", 't'},
	KindClock:     {"sim", 't'},
	KindOutcome:   {"sim", 'g'}, // the run's end concerns every lane
	KindDeadlock:  {"sim", 'p'}, // so do the driver's findings
	KindLivelock:  {"sim", 'p'},
	KindNote:      {"sim", 't'},
}

// taskLabel is a task's id and, when known, its scenario name: "t3 slow_success".
func (c *chromeConv) taskLabel(task Field) string {
	id := chromeID("t", task)
	if name := c.taskNames[chromeValueOf(task)]; name != "" {
		return id + " " + name
	}
	return id
}

// instantName is the text Perfetto shows for an instant: the kind and the
// fields that say what happened ("steal t2 from w3").
func (c *chromeConv) instantName(e *Event) string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Kind == KindNursery {
		c.nurseryInstant(&b, e)
		return b.String()
	}
	if f, ok := chromeField(e, "task"); ok {
		if e.Kind == KindSpawn {
			b.WriteString(" " + c.taskLabel(f))
		} else {
			b.WriteString(" " + chromeID("t", f))
		}
	} else if f, ok := chromeField(e, "nursery"); ok {
		b.WriteString(" " + chromeID("n", f)) // "cancel n1": a mark on a whole nursery
	}
	instantSuffix(&b, e)
	return b.String()
}

// nurseryInstant names a nursery event: its label and id, then the
// transition or the outcome.
func (c *chromeConv) nurseryInstant(b *strings.Builder, e *Event) {
	if f, ok := chromeField(e, "nursery"); ok {
		b.WriteString(" ")
		if label, ok := chromeFieldText(e, "label"); ok {
			b.WriteString(label + " (" + chromeID("n", f) + ")")
		} else {
			b.WriteString(chromeID("n", f))
		}
	}
	to, hasTo := chromeFieldText(e, "to")
	from, hasFrom := chromeFieldText(e, "from")
	outcome, hasOutcome := chromeFieldText(e, "outcome")
	switch {
	case hasTo && hasFrom:
		b.WriteString(": " + from + " -> " + to)
	case hasTo:
		b.WriteString(": -> " + to)
	case hasOutcome:
		b.WriteString(": outcome " + outcome)
	}
}

// chromeSuffix is one part of an instant's name: format with % replaced
// by the first of keys the event has.
type chromeSuffix struct {
	format string
	keys   []string
}

// chromeSuffixes is what each kind of instant adds to its name; steal,
// result and clock, which need more than a field, are in instantSuffix.
var chromeSuffixes = map[Kind][]chromeSuffix{
	KindYield:     {{" (%)", []string{"why", "reason"}}},
	KindBlock:     {{" on %", []string{"on"}}},
	KindWake:      {{" by %", []string{"by"}}},
	KindExhausted: {{" (%)", []string{"comp"}}},
	KindRecharge:  {{" from %", []string{"from"}}},
	KindCancel:    {{" (%)", []string{"reason"}}},
	KindObserve:   {{" at %", []string{"at"}}},
	KindCleanup:   {{" %", []string{"do"}}, {": %", []string{"label"}}},
	KindLog:       {{": %", []string{"text", "msg"}}},
	KindOutcome:   {{" %", []string{"outcome", "status"}}, {" %", []string{"result", "err"}}},
	KindNote:      {{": %", []string{"text", "crash"}}},
}

func instantSuffix(b *strings.Builder, e *Event) {
	suffix := func(sf chromeSuffix) bool {
		for _, k := range sf.keys {
			if v, ok := chromeFieldText(e, k); ok {
				b.WriteString(strings.Replace(sf.format, "%", v, 1))
				return true
			}
		}
		return false
	}
	switch e.Kind {
	case KindSteal, KindStealFail:
		if f, ok := chromeField(e, "victim"); ok {
			b.WriteString(" from " + chromeID("w", f))
		}
	case KindResult:
		if !suffix(chromeSuffix{" %", []string{"result"}}) && !suffix(chromeSuffix{" err:%", []string{"err"}}) {
			suffix(chromeSuffix{" ok:%", []string{"value"}})
		}
	case KindClock:
		from, hasFrom := chromeFieldText(e, "from")
		to, hasTo := chromeFieldText(e, "to")
		if hasFrom && hasTo {
			b.WriteString(" " + from + " -> " + to)
		}
	}
	for _, sf := range chromeSuffixes[e.Kind] {
		suffix(sf)
	}
}

// chromeFieldText is the text of the event's field key, if it has one.
func chromeFieldText(e *Event, key string) (string, bool) {
	f, ok := chromeField(e, key)
	return chromeText(f), ok
}

// write writes the converted trace. Every event is one line, so that a
// golden file diffs line by line.
func (c *chromeConv) write() {
	c.put(`{"traceEvents":[` + "\n")
	name := "trace"
	if f, ok := c.t.Header.Get("name"); ok {
		name = chromeText(f)
	}
	first := true
	sep := func() {
		if !first {
			c.put(",\n")
		}
		first = false
	}
	sep()
	c.meta("process_name", chromePid, S("name", "cbcsim: "+name))
	for i := range c.lanes {
		l := &c.lanes[i]
		sep()
		c.meta("thread_name", l.tid, S("name", l.name))
		sep()
		c.meta("thread_sort_index", l.tid, I("sort_index", int64(i)))
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
	pre := []Field{S("exporter", "cbcsim export --format chrome"), S("time_unit", "ts is the trace tick; 1 tick = 1 us")}
	c.buf = chromeAppendArgs(c.buf, pre, c.t.Header.Fields)
	c.buf = append(c.buf, "}\n"...)
	c.flushBuf()
}

// meta writes a metadata event whose one arg is arg.
func (c *chromeConv) meta(name string, tid int, arg Field) {
	b := append(c.buf[:0], `{"name":`...)
	b = chromeAppendString(b, name)
	b = append(b, `,"ph":"M","pid":`...)
	b = strconv.AppendInt(b, chromePid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"args":`...)
	b = chromeAppendArgs(b, nil, []Field{arg})
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

func (c *chromeConv) slice(s *chromeSlice) {
	name := "run"
	if s.task.Key != "" {
		name = c.taskLabel(s.task)
	}
	b := append(c.buf[:0], `{"name":`...)
	b = chromeAppendString(b, name)
	b = append(b, `,"cat":"run","ph":"X","ts":`...)
	b = strconv.AppendUint(b, s.ts, 10)
	b = append(b, `,"dur":`...)
	b = strconv.AppendUint(b, s.end-s.ts, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, chromePid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(c.lanes[s.lane].tid), 10)
	b = append(b, `,"args":`...)
	var task []Field
	if s.task.Key != "" {
		task = []Field{s.task}
	}
	b = chromeAppendArgs(b, task, []Field{
		I("steps", int64(s.steps)),
		chromeUint("first_step", s.stepsFirst),
		chromeUint("last_step", s.stepsLast),
	})
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

func (c *chromeConv) instant(e *Event) {
	cat, scope := "other", byte('t')
	if e.Kind.valid() {
		cat, scope = chromeKinds[e.Kind].cat, chromeKinds[e.Kind].scope
	}
	b := append(c.buf[:0], `{"name":`...)
	b = chromeAppendString(b, c.instantName(e))
	b = append(b, `,"cat":`...)
	b = chromeAppendString(b, cat)
	b = append(b, `,"ph":"i","ts":`...)
	b = strconv.AppendUint(b, e.Tick, 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, chromePid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(c.lanes[c.laneOf[e.Actor]].tid), 10)
	b = append(b, `,"s":"`...)
	b = append(b, scope, '"')
	b = append(b, `,"args":`...)
	b = chromeAppendArgs(b, []Field{chromeUint("step", e.Step)}, e.Fields)
	b = append(b, '}')
	c.buf = b
	c.flushBuf()
}

// chromeUint is an integer field for a uint64, which a trace's steps are;
// a step past the int64 range is written as text rather than wrapped.
func chromeUint(key string, v uint64) Field {
	if v > math.MaxInt64 {
		return S(key, strconv.FormatUint(v, 10))
	}
	return I(key, int64(v))
}

func (c *chromeConv) put(s string) {
	c.buf = append(c.buf[:0], s...)
	c.flushBuf()
}

func (c *chromeConv) flushBuf() {
	if c.err != nil {
		return
	}
	_, c.err = c.w.Write(c.buf)
}

// chromeAppendArgs appends a JSON object of the fields of pre and then of
// fs, in order. A trace event may repeat a key, which a JSON object should
// not: the k-th use of a key (k >= 2) is written "key#k" ('#' cannot occur
// in a trace key).
func chromeAppendArgs(b []byte, pre, fs []Field) []byte {
	b = append(b, '{')
	n := len(pre) + len(fs)
	var seen map[string]int // only for long field lists
	if n > 16 {
		seen = make(map[string]int, n)
	}
	at := func(j int) Field {
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
		b = chromeAppendString(b, key)
		b = append(b, ':')
		if f.IsInt {
			b = strconv.AppendInt(b, f.Int, 10)
		} else {
			b = chromeAppendString(b, f.Str)
		}
	}
	return append(b, '}')
}

// chromeAppendString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json writes it; U+2028 and U+2029 are escaped so the
// file is also valid JavaScript.
func chromeAppendString(b []byte, s string) []byte {
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
