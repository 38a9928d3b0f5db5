package waits

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/trace"
)

// Kind is what an unfinished task waits on.
type Kind string

// The kinds of wait.
const (
	KindRecv      Kind = "recv"      // a receive on Wait.Object, a channel
	KindSend      Kind = "send"      // a send on Wait.Object, a channel
	KindLock      Kind = "lock"      // a Lock of Wait.Object, a sched.Mutex or RWMutex ("mutex#3")
	KindRLock     Kind = "rlock"     // an RLock of Wait.Object, a sched.RWMutex
	KindNursery   Kind = "nursery"   // the end of nursery Wait.Object (Wait.Nursery)
	KindSleep     Kind = "sleep"     // a sleep until tick Wait.Until (-1: not recorded)
	KindRecharge  Kind = "recharge"  // its budget ran out; a recharge wakes it
	KindBlocking  Kind = "blocking"  // a Blocking call, outside the scheduler
	KindWaitGroup Kind = "waitgroup" // a sched.WaitGroup's Wait; its Done callers are not named (NobodyWaitGroup)
	KindCond      Kind = "cond"      // a sched.Cond's Wait; its Signal callers are not named (NobodyCond)
	KindRunnable  Kind = "runnable"  // nothing: it is ready to run (a livelock, or a run stopped early)
	KindOtherWait Kind = "other"     // a block whose `on` this package does not know (Wait.On)
)

// Waker is a task that could end a wait, and why.
type Waker struct {
	Task int64  `json:"task"`
	Name string `json:"name"`
	Why  string `json:"why"` // "holds lock_b", "sent on c before", "child of n", ...
}

// Wait is one unfinished task and what it waits on.
type Wait struct {
	Task    int64   `json:"task"`
	Name    string  `json:"name"`
	Kind    Kind    `json:"kind"`
	On      string  `json:"on,omitempty"`      // the block event's `on` as written ("recv c", "nursery n (n1)")
	Object  string  `json:"object,omitempty"`  // the channel's name, or the nursery's label
	Nursery int64   `json:"nursery,omitempty"` // KindNursery: the nursery's id
	Until   int64   `json:"until"`             // KindSleep: the tick it wakes at, -1 when the trace does not say
	At      string  `json:"at,omitempty"`      // the scenario op or Go file:line of the call it waits in, "" when not recorded
	Since   uint64  `json:"since"`             // the step its wait began
	Wakers  []Waker `json:"wakers,omitempty"`
	// Nobody is why a wait has no task to wake it, "" when Wakers
	// is not empty: "the clock", "no unfinished task has used c".
	Nobody string `json:"nobody,omitempty"`
}

// Analysis is the explanation of a run's end.
type Analysis struct {
	Outcome string // the run's outcome event's, "" if it has none (a trace cut short)
	Waits   []Wait // every unfinished task, in id order
	Cycle   []int64
	names   map[int64]string
}

// Stuck reports whether any task was left unfinished; false for a nil
// Analysis.
func (a *Analysis) Stuck() bool { return a != nil && len(a.Waits) > 0 }

// CycleNames is the wait-for cycle by task name, nil when there is none.
func (a *Analysis) CycleNames() []string {
	if a == nil || len(a.Cycle) == 0 {
		return nil
	}
	names := make([]string, len(a.Cycle))
	for i, id := range a.Cycle {
		names[i] = a.Name(id)
	}
	return names
}

// Name is task id's name in the run ("t<id>" for a task without one).
func (a *Analysis) Name(id int64) string {
	if n := a.names[id]; n != "" {
		return n
	}
	return "t" + strconv.FormatInt(id, 10)
}

// What says what the wait is on, in words: "recv lock_b", "nursery n",
// "sleep until tick 30", "a recharge", "a Blocking call", "a WaitGroup's
// Wait", "nothing (runnable)".
func (w *Wait) What() string {
	switch w.Kind {
	case KindRecv:
		return "to receive on channel " + w.Object
	case KindSend:
		return "to send on channel " + w.Object
	case KindLock:
		return "to lock " + w.Object
	case KindRLock:
		return "to read-lock " + w.Object
	case KindNursery:
		return "for the end of nursery " + w.Object
	case KindSleep:
		if w.Until >= 0 {
			return "in a sleep until tick " + strconv.FormatInt(w.Until, 10)
		}
		return "in a sleep"
	case KindRecharge:
		return "for a recharge (its budget ran out)"
	case KindBlocking:
		return "in a Blocking call"
	case KindWaitGroup:
		return "in a WaitGroup's Wait"
	case KindCond:
		return "in a Cond's Wait"
	case KindRunnable:
		return "for nothing: it is runnable"
	}
	return w.On
}

// Write prints the analysis: a paragraph per unfinished task, then the
// wait-for cycle. It prints nothing when every task finished.
func (a *Analysis) Write(out io.Writer) {
	if !a.Stuck() {
		return
	}
	fmt.Fprintln(out, "Waits (who waits on what, who could wake it)")
	for i := range a.Waits {
		w := &a.Waits[i]
		at := ""
		if w.At != "" {
			at = " at " + w.At
		}
		if w.Kind == KindRunnable {
			// A livelock's spinner, or a task a stopped run left ready.
			fmt.Fprintf(out, "  %s (t%d) is runnable%s: it waits for nothing, and ran until the run stopped\n", w.Name, w.Task, at)
			continue
		}
		fmt.Fprintf(out, "  %s (t%d) waits %s%s, since step %d\n", w.Name, w.Task, w.What(), at, w.Since)
		if w.Nobody != "" {
			fmt.Fprintf(out, "      could wake it: %s\n", w.Nobody)
			continue
		}
		fmt.Fprintf(out, "      could wake it: %s\n", a.wakerList(w))
	}
	if len(a.Cycle) > 0 {
		fmt.Fprintf(out, "  wait-for cycle: %s\n", a.cycleText())
	}
}

func (a *Analysis) wakerList(w *Wait) string {
	parts := make([]string, len(w.Wakers))
	for i, k := range w.Wakers {
		parts[i] = fmt.Sprintf("%s (t%d, %s)", k.Name, k.Task, k.Why)
	}
	return strings.Join(parts, ", ")
}

func (a *Analysis) cycleText() string {
	names := make([]string, 0, len(a.Cycle)+1)
	for _, id := range a.Cycle {
		names = append(names, a.Name(id))
	}
	return strings.Join(append(names, a.Name(a.Cycle[0])), " -> ")
}

// Summary is the analysis in one line, for a failure summary: each
// unfinished task by name with what it waits on, then the cycle.
// "a_to_b: recv lock_b (held by b_to_a); ...; cycle a_to_b -> b_to_a -> a_to_b".
func (a *Analysis) Summary() string {
	parts := make([]string, 0, len(a.Waits)+1)
	for i := range a.Waits {
		w := &a.Waits[i]
		s := w.Name + ": " + w.short()
		if len(w.Wakers) > 0 && (w.Kind == KindRecv || w.Kind == KindSend) {
			s += " (" + w.Wakers[0].Name + " " + w.Wakers[0].Why
			if len(w.Wakers) > 1 {
				s += " +" + strconv.Itoa(len(w.Wakers)-1)
			}
			s += ")"
		}
		parts = append(parts, s)
	}
	if len(a.Cycle) > 0 {
		parts = append(parts, "cycle "+a.cycleText())
	}
	return strings.Join(parts, "; ")
}

// short is What in a few words.
func (w *Wait) short() string {
	switch w.Kind {
	case KindRecv, KindSend, KindLock, KindRLock:
		return string(w.Kind) + " " + w.Object
	case KindNursery:
		return "nursery " + w.Object
	case KindSleep:
		if w.Until >= 0 {
			return "sleep until " + strconv.FormatInt(w.Until, 10)
		}
		return "sleep"
	case KindRecharge:
		return "recharge"
	case KindBlocking:
		return "blocking call"
	case KindRunnable:
		return "runnable"
	}
	return w.On
}

// Lines is the analysis as lines without indentation, for a report that
// lays them out itself (a simtest failure message, the JSON report).
func (a *Analysis) Lines() []string {
	var b strings.Builder
	a.Write(&b)
	s := strings.TrimSuffix(b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Builder reads a run's events one by one.
type Builder struct {
	// Story says the events record every completed channel operation
	// (a version-3 run's, docs/trace-format.md). Without it, and
	// without any chan or at= in the events, a channel wait's wakers
	// are reported unknown rather than none.
	Story bool
	// Users, when set, names the tasks whose code may send on (send) or
	// receive from a channel: the scenario's bodies, which the events do
	// not hold. A channel wait that no task's past operations explain is
	// then put down to the unfinished tasks of those names.
	Users func(channel string, send bool) []string

	tasks     map[int64]*task
	nurseries map[int64]*nurseryRec
	chans     map[string]map[int64]*use // channel name -> task -> its operations there
	outcome   string

	// The last task and channel looked up: a run's events come in streaks
	// of one task's, and of one channel's operations, so most lookups are
	// these, without a map's.
	last     *task
	lastCh   string
	lastUses map[int64]*use
}

type task struct {
	id       int64
	name     string
	nursery  int64 // the nursery it is a child of, 0 for the root
	done     bool
	waiting  bool // blocked or exhausted
	block    trace.Event
	blockSet bool
	at       string // the last `at` seen for the task (run or block events)
}

type nurseryRec struct {
	label    string
	owner    int64
	children []int64
}

// use counts a task's completed operations on one channel.
type use struct{ sends, recvs int64 }

// New returns an empty Builder.
func New() *Builder {
	return &Builder{tasks: map[int64]*task{}, nurseries: map[int64]*nurseryRec{}, chans: map[string]map[int64]*use{}}
}

// FromEvents is New with every event of events added.
func FromEvents(events []trace.Event) *Analysis {
	b := New()
	for i := range events {
		b.Add(&events[i])
	}
	return b.Analysis()
}

func (b *Builder) task(id int64) *task {
	if t := b.last; t != nil && t.id == id {
		return t
	}
	t := b.tasks[id]
	if t == nil {
		t = &task{id: id}
		if id == 1 {
			t.name = "main" // the root has no spawn event
		}
		b.tasks[id] = t
	}
	b.last = t
	return t
}

// Add takes in the next event of the run. The event is not kept (only a
// block event is copied, with its fields).
//
// It is called for every event of a run as it goes (the simulator's
// sink), so that the kinds it ignores (steals, parks, decisions, logs)
// cost a switch and nothing else.
func (b *Builder) Add(e *trace.Event) {
	if !Wants(e.Kind) {
		return
	}
	id, hasTask := intField(e, trace.KeyTask)
	if !b.Story && (e.Kind == trace.KindChan || e.Kind == trace.KindLock || e.Kind == trace.KindBlock && hasField(e, trace.KeyAt)) {
		b.Story = true
	}
	switch e.Kind {
	case trace.KindSpawn:
		t := b.task(id)
		t.name, _ = strField(e, trace.KeyName)
		t.nursery, _ = intField(e, trace.KeyNursery)
		if n := b.nurseries[t.nursery]; n != nil {
			n.children = append(n.children, id)
		}
	case trace.KindNursery:
		b.nursery(e, id, hasTask)
	case trace.KindResult:
		t := b.task(id)
		t.done, t.waiting = true, false
	case trace.KindBlock:
		t := b.task(id)
		if !t.waiting || !t.blockSet || t.block.Kind != trace.KindExhausted {
			keepEvent(&t.block, e)
		}
		t.waiting, t.blockSet = true, true
		if at, ok := strField(e, trace.KeyAt); ok {
			t.at = at
		}
	case trace.KindExhausted:
		if hasTask {
			t := b.task(id)
			keepEvent(&t.block, e)
			t.waiting, t.blockSet = true, true
		}
	case trace.KindRun, trace.KindWake, trace.KindRecharge:
		if hasTask {
			t := b.task(id)
			t.waiting = false
			if at, ok := strField(e, trace.KeyAt); ok && e.Kind == trace.KindRun {
				t.at = at
			}
		}
	case trace.KindChan:
		b.chanOp(e, id)
	case trace.KindLock:
		b.lockOp(e, id)
	case trace.KindOutcome:
		b.outcome, _ = strField(e, trace.KeyOutcome)
	}
}

// wanted is the kinds of event Add takes in, a bit each.
const wanted = 1<<trace.KindSpawn | 1<<trace.KindNursery | 1<<trace.KindResult | 1<<trace.KindBlock |
	1<<trace.KindExhausted | 1<<trace.KindRun | 1<<trace.KindWake | 1<<trace.KindRecharge |
	1<<trace.KindChan | 1<<trace.KindLock | 1<<trace.KindOutcome

// Wants reports that Add takes in events of kind k: a caller with many
// events of other kinds (the simulator's sink) skips the call for them.
func Wants(k trace.Kind) bool { return k < 64 && wanted&(1<<k) != 0 }

func (b *Builder) nursery(e *trace.Event, owner int64, hasOwner bool) {
	id, _ := intField(e, trace.KeyNursery)
	if _, open := strField(e, trace.KeyMode); open {
		label, _ := strField(e, trace.KeyLabel)
		n := &nurseryRec{label: label}
		if hasOwner {
			n.owner = owner
		}
		b.nurseries[id] = n
	}
}

// chanOp counts a completed channel operation: the task's own, and its
// peer's opposite one when the value went straight between them.
func (b *Builder) chanOp(e *trace.Event, id int64) {
	ch, _ := strField(e, trace.KeyCh)
	op, _ := strField(e, trace.KeyOp)
	uses := b.uses(ch)
	if op != "send" && op != "recv" {
		return
	}
	countUse(uses, id, op == "send")
	if peer, ok := intField(e, trace.KeyPeer); ok {
		if via, _ := strField(e, trace.KeyVia); via == "" {
			countUse(uses, peer, op != "send")
		}
	}
}

// uses returns the operations on the channel (or lock) named ch, made
// when it has none yet.
func (b *Builder) uses(ch string) map[int64]*use {
	if b.lastUses != nil && b.lastCh == ch {
		return b.lastUses
	}
	uses := b.chans[ch]
	if uses == nil {
		uses = map[int64]*use{}
		b.chans[ch] = uses
	}
	b.lastCh, b.lastUses = ch, uses
	return uses
}

// countUse counts a send or a receive of task's in uses.
func countUse(uses map[int64]*use, task int64, send bool) {
	u := uses[task]
	if u == nil {
		u = &use{}
		uses[task] = u
	}
	if send {
		u.sends++
	} else {
		u.recvs++
	}
}

// lockOp counts a lock taken (lock, rlock) as a send and a lock released
// (unlock, runlock) as a receive on the lock's name: a task that took it
// more often than it released it holds it, as a task holds a channel
// used as a lock (chanWakers).
func (b *Builder) lockOp(e *trace.Event, id int64) {
	obj, _ := strField(e, trace.KeyOn)
	op, _ := strField(e, trace.KeyOp)
	uses := b.uses(obj)
	u := uses[id]
	if u == nil {
		u = &use{}
		uses[id] = u
	}
	switch op {
	case "lock", "rlock":
		u.sends++
	case "unlock", "runlock":
		u.recvs++
	}
}

// Seen tells the Builder of task id and where it last was (its last run
// event's at, "" if unknown), which the caller saw in events it did not
// Add: a caller that leaves run events out (they are the most numerous
// and say nothing of a wait) names the tasks only they showed, such as a
// root that only ever ran, so that a livelock still lists it and where
// it spins.
func (b *Builder) Seen(id int64, at string) {
	if t := b.task(id); at != "" {
		t.at = at
	}
}

// Analysis computes the explanation from the events added so far.
func (b *Builder) Analysis() *Analysis {
	a := &Analysis{Outcome: b.outcome, names: map[int64]string{}}
	ids := make([]int64, 0, len(b.tasks))
	for id, t := range b.tasks {
		ids = append(ids, id)
		a.names[id] = t.name
	}
	slices.Sort(ids)
	for _, id := range ids {
		t := b.tasks[id]
		if t.done {
			continue
		}
		a.Waits = append(a.Waits, b.wait(a, t))
	}
	a.Cycle = cycle(a)
	return a
}

// wait describes the wait of t, an unfinished task.
func (b *Builder) wait(a *Analysis, t *task) Wait {
	w := Wait{Task: t.id, Name: a.Name(t.id), Kind: KindRunnable, Until: -1, At: t.at}
	if !t.waiting || !t.blockSet {
		w.Nobody = "any worker (it is ready to run)"
		return w
	}
	w.Since = t.block.Step
	if t.block.Kind == trace.KindExhausted {
		w.Kind, w.On = KindRecharge, "recharge"
		b.rechargeWakers(a, t, &w)
		return w
	}
	w.On, _ = strField(&t.block, trace.KeyOn)
	if at, ok := strField(&t.block, trace.KeyAt); ok {
		w.At = at
	}
	switch {
	case strings.HasPrefix(w.On, "recv "), strings.HasPrefix(w.On, "send "):
		w.Kind, w.Object = Kind(w.On[:4]), w.On[5:]
		b.chanWakers(a, &w)
	case strings.HasPrefix(w.On, "lock "), strings.HasPrefix(w.On, "rlock "):
		kind, obj, _ := strings.Cut(w.On, " ")
		w.Kind, w.Object = Kind(kind), obj
		b.lockWakers(a, &w)
	case strings.HasPrefix(w.On, "nursery "):
		w.Kind = KindNursery
		b.nurseryWakers(a, &w)
	case w.On == "sleep":
		w.Kind, w.Nobody = KindSleep, "the clock"
		if u, ok := intField(&t.block, trace.KeyUntil); ok {
			w.Until = u
		}
	case w.On == "recharge":
		w.Kind = KindRecharge
		b.rechargeWakers(a, t, &w)
	case w.On == "waitgroup":
		w.Kind, w.Nobody = KindWaitGroup, NobodyWaitGroup
	case w.On == "cond":
		w.Kind, w.Nobody = KindCond, NobodyCond
	case w.On == "blocking call":
		w.Kind, w.Nobody = KindBlocking, "the call's return, outside the scheduler"
	default:
		w.Kind, w.Nobody = KindOtherWait, "unknown"
	}
	return w
}

// Who could end a WaitGroup's or a Cond's wait is not named, and these
// say why. The trace has no event for WaitGroup.Add, which takes no task
// (it is usually the spawner's, counting tasks that will call Done), nor
// for Done, Signal or Broadcast, and a WaitGroup or Cond has no name: no
// count per task exists to read, and the task that Added is seldom the
// one that calls Done. docs/trace-format.md#what-the-waits-name.
const (
	NobodyWaitGroup = "a task that calls Done (not named: the trace does not record WaitGroup.Add and Done)"
	NobodyCond      = "a task that calls Signal or Broadcast (not named: the trace does not record them)"
)

// lockWakers fills the wakers of a Lock or RLock of w.Object: the tasks
// that hold it (took it more often than they released it). A waiting
// RLock is kept out by a writer holding the lock or waiting for it; only
// the holders are named.
func (b *Builder) lockWakers(a *Analysis, w *Wait) {
	uses := b.chans[w.Object]
	for _, id := range sortedKeys(uses) {
		u := uses[id]
		if id == w.Task || b.tasks[id] == nil || b.tasks[id].done || u.sends <= u.recvs {
			continue
		}
		w.Wakers = append(w.Wakers, Waker{Task: id, Name: a.Name(id), Why: "holds " + w.Object})
	}
	if len(w.Wakers) == 0 {
		w.Nobody = "no unfinished task holds " + w.Object
		if !b.Story {
			w.Nobody = "unknown: the trace does not record lock operations"
		}
	}
}

// chanWakers fills the wakers of a send or receive on w.Object.
func (b *Builder) chanWakers(a *Analysis, w *Wait) {
	uses := b.chans[w.Object]
	var holders, users []Waker
	for _, id := range sortedKeys(uses) {
		u := uses[id]
		if id == w.Task || b.tasks[id] == nil || b.tasks[id].done {
			continue
		}
		k := Waker{Task: id, Name: a.Name(id)}
		switch {
		case w.Kind == KindRecv && u.recvs > u.sends, w.Kind == KindSend && u.sends > u.recvs:
			// A value it took (a token received) or put (sent) and has
			// not given back: a lock's holder, whichever way the lock
			// is taken.
			k.Why = "holds " + w.Object
			holders = append(holders, k)
		case w.Kind == KindRecv && u.sends > 0:
			k.Why = "sent on " + w.Object + " before"
			users = append(users, k)
		case w.Kind == KindSend && u.recvs > 0:
			k.Why = "received from " + w.Object + " before"
			users = append(users, k)
		}
	}
	w.Wakers = holders
	if len(holders) == 0 {
		w.Wakers = users
	}
	if len(w.Wakers) == 0 && b.Users != nil {
		w.Wakers = b.codeUsers(a, w)
	}
	if len(w.Wakers) == 0 {
		peer := "sent on"
		if w.Kind == KindSend {
			peer = "received from"
		}
		w.Nobody = "no unfinished task has " + peer + " " + w.Object
		if b.Users != nil {
			w.Nobody += ", and none's code does"
		}
		if !b.Story {
			w.Nobody = "unknown: the trace does not record channel operations (recorded before chan events)"
		}
	}
}

// codeUsers are the unfinished tasks other than w's whose code may do the
// operation that ends w's wait (Builder.Users), in id order.
func (b *Builder) codeUsers(a *Analysis, w *Wait) []Waker {
	names := b.Users(w.Object, w.Kind == KindRecv)
	if len(names) == 0 {
		return nil
	}
	why := "whose code receives from " + w.Object
	if w.Kind == KindRecv {
		why = "whose code sends on " + w.Object
	}
	var out []Waker
	for _, id := range sortedTasks(b.tasks) {
		t := b.tasks[id]
		if id != w.Task && !t.done && slices.Contains(names, t.name) {
			out = append(out, Waker{Task: id, Name: a.Name(id), Why: why})
		}
	}
	return out
}

func sortedTasks(m map[int64]*task) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// nurseryWakers fills the unfinished children of the nursery w waits on.
func (b *Builder) nurseryWakers(a *Analysis, w *Wait) {
	// "nursery LABEL (nID)"
	rest := strings.TrimPrefix(w.On, "nursery ")
	if i := strings.LastIndex(rest, " (n"); i >= 0 && strings.HasSuffix(rest, ")") {
		w.Object = rest[:i]
		w.Nursery, _ = strconv.ParseInt(rest[i+3:len(rest)-1], 10, 64)
	} else {
		w.Object = rest
	}
	if w.Object == "" && w.Nursery != 0 {
		w.Object = "n" + strconv.FormatInt(w.Nursery, 10) // a nursery opened without a label
	}
	n := b.nurseries[w.Nursery]
	if n == nil {
		w.Nobody = "unknown: the nursery's open is not in the trace"
		return
	}
	for _, c := range n.children {
		if t := b.tasks[c]; t != nil && !t.done {
			w.Wakers = append(w.Wakers, Waker{Task: c, Name: a.Name(c), Why: "child of " + w.Object})
		}
	}
	if len(w.Wakers) == 0 {
		w.Nobody = "no unfinished child: the nursery should end"
	}
}

// rechargeWakers names the owner of t's nursery, which may recharge it.
func (b *Builder) rechargeWakers(a *Analysis, t *task, w *Wait) {
	if n := b.nurseries[t.nursery]; n != nil && n.owner != 0 {
		if o := b.tasks[n.owner]; o != nil && !o.done {
			w.Wakers = []Waker{{Task: n.owner, Name: a.Name(n.owner), Why: "owns nursery " + n.label + ", may recharge it"}}
			return
		}
	}
	w.Nobody = "a recharge from a pool or a supervisor; no unfinished owner"
}

// cycle is the first cycle of the wait-for graph among blocked tasks:
// an edge from a blocked task to each blocked task that could wake it.
// A depth-first search from each task in id order, successors in the
// order of Wakers: O(tasks + wakers), iterative, so that a chain of a
// million waits needs no million frames.
func cycle(a *Analysis) []int64 {
	byID := make(map[int64]*Wait, len(a.Waits))
	for i := range a.Waits {
		if a.Waits[i].Kind != KindRunnable {
			byID[a.Waits[i].Task] = &a.Waits[i]
		}
	}
	const (
		white = iota
		grey
		black
	)
	colour := map[int64]int{}
	type frame struct {
		id   int64
		next int // the index in Wakers of the next successor to visit
	}
	for i := range a.Waits {
		root := a.Waits[i].Task
		if byID[root] == nil || colour[root] != white {
			continue
		}
		stack := []frame{{id: root}}
		colour[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			wakers := byID[top.id].Wakers
			if top.next == len(wakers) {
				colour[top.id] = black
				stack = stack[:len(stack)-1]
				continue
			}
			k := wakers[top.next].Task
			top.next++
			if byID[k] == nil {
				continue
			}
			switch colour[k] {
			case grey:
				var found []int64
				for j := len(stack) - 1; j >= 0; j-- {
					found = append(found, stack[j].id)
					if stack[j].id == k {
						break
					}
				}
				slices.Reverse(found)
				return found
			case white:
				colour[k] = grey
				stack = append(stack, frame{id: k})
			}
		}
	}
	return nil
}

func sortedKeys(m map[int64]*use) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func hasField(e *trace.Event, key string) bool {
	for i := range e.Fields {
		if e.Fields[i].Key == key {
			return true
		}
	}
	return false
}

// keepEvent copies e into dst, its fields into the room of dst's: a task
// blocks again and again, and a copy each time was most of a run's
// allocations here.
func keepEvent(dst, e *trace.Event) {
	fields := append(dst.Fields[:0], e.Fields...)
	*dst = *e
	dst.Fields = fields
}

func intField(e *trace.Event, key string) (int64, bool) {
	for i := range e.Fields {
		if f := &e.Fields[i]; f.Key == key && f.IsInt {
			return f.Int, true
		}
	}
	return 0, false
}

func strField(e *trace.Event, key string) (string, bool) {
	for i := range e.Fields {
		if f := &e.Fields[i]; f.Key == key && !f.IsInt {
			return f.Str, true
		}
	}
	return "", false
}
