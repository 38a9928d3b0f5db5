package trace

import "strconv"

// FormatVersion is the version written on the first line of every trace
// ("# cbcsim-trace 2") unless its Header says otherwise. Parse reads the
// versions MinFormatVersion..FormatVersion and rejects any other. Version 1
// is a trace recorded with every task and nursery kept; version 2 one
// recorded on a Go program's code path; version 3 one whose policy
// decisions are the driver's and recorded (docs/trace-format.md,
// "Versions").
const FormatVersion = 3

// MinFormatVersion is the oldest version Parse reads.
const MinFormatVersion = 1

// Kind says what an event records. The zero Kind is not a valid kind: an
// Event whose Kind was never set is caught by the writer instead of being
// logged as a pop.
type Kind uint8

// The event kinds, in the order of docs/trace-format.md. Their text names are
// given by Kind.String.
const (
	KindPop       Kind = iota + 1 // the worker took a task from the bottom of its own deque
	KindGlobal                    // the worker took a task from the global queue
	KindSteal                     // the worker stole a task from the top of a victim's deque
	KindStealFail                 // a steal attempt found nothing or lost a race
	KindPark                      // the worker found no work and parked
	KindRun                       // the worker ran its current task to the next checkpoint
	KindYield                     // a task gave up its worker (the fields say why)
	KindBlock                     // a task blocked (channel, join, timer)
	KindWake                      // a parked worker or a blocked task was woken
	KindExhausted                 // a task's budget ran out
	KindRecharge                  // a task's budget was refilled
	KindSpawn                     // a task was created
	KindNursery                   // a nursery changed state
	KindCancel                    // a cancel mark was set
	KindObserve                   // a task observed a cancel mark at a checkpoint
	KindCleanup                   // cleanup code ran
	KindLog                       // the scenario logged a line
	KindResult                    // a task finished with a result
	KindClock                     // the virtual clock jumped
	KindOutcome                   // the run ended; the fields summarise it
	KindDeadlock                  // the driver found no runnable work and no timer
	KindLivelock                  // the run passed its step bound
	KindNote                      // free-form annotation
	KindDecide                    // a policy decision of a worker (docs/explore.md, "Policy decisions")
	KindChan                      // a channel operation completed, with its peer task (version 3)
	KindLock                      // a task took or released a sched.Mutex or RWMutex (version 3)
	KindEnd                       // one past the last kind; not a kind: the length of a table indexed by Kind
)

// kindNames holds the text name of each kind, indexed by Kind.
var kindNames = [KindEnd]string{
	KindPop:       "pop",
	KindGlobal:    "global",
	KindSteal:     "steal",
	KindStealFail: "steal-fail",
	KindPark:      "park",
	KindRun:       "run",
	KindYield:     "yield",
	KindBlock:     "block",
	KindWake:      "wake",
	KindExhausted: "exhausted",
	KindRecharge:  "recharge",
	KindSpawn:     "spawn",
	KindNursery:   "nursery",
	KindCancel:    "cancel",
	KindObserve:   "observe",
	KindCleanup:   "cleanup",
	KindLog:       "log",
	KindResult:    "result",
	KindClock:     "clock",
	KindOutcome:   "outcome",
	KindDeadlock:  "deadlock",
	KindLivelock:  "livelock",
	KindNote:      "note",
	KindDecide:    "decide",
	KindChan:      "chan",
	KindLock:      "lock",
}

// kindOf returns the kind named b, or 0. A linear scan: most names differ
// in length, so nearly every comparison stops there, and it is faster than
// a map for 26 names.
func kindOf[T ~string | ~[]byte](b T) Kind {
	for k := KindPop; k < KindEnd; k++ {
		if string(b) == kindNames[k] {
			return k
		}
	}
	return 0
}

// valid reports whether k is one of the defined kinds.
func (k Kind) valid() bool { return k >= KindPop && k < KindEnd }

// String returns the name of k as written in a trace ("steal-fail"), or
// "kind(N)" for a value that is not a kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind whose text name is s.
func ParseKind(s string) (Kind, bool) {
	k := kindOf(s)
	return k, k != 0
}

// Field is one key=value pair of an event or a header. Exactly one of Str and
// Int is the value, chosen by IsInt; the other is ignored by the encoder and
// is zero in a parsed trace.
type Field struct {
	Key   string
	Str   string // the value when IsInt is false
	Int   int64  // the value when IsInt is true
	IsInt bool
}

// S returns a string field.
func S(key, val string) Field { return Field{Key: key, Str: val} }

// FormatValue is f's value as a trace line writes it: an integer, a bare
// word or a quoted string.
func FormatValue(f Field) string { return valueText(&f) }

// I returns an integer field.
func I(key string, v int64) Field { return Field{Key: key, Int: v, IsInt: true} }

// Event is one line of a trace: at scheduling step Step and virtual time
// Tick, Actor did Kind. Several events may share a step (a steal and the run
// it leads to); steps never go backwards.
type Event struct {
	Step   uint64 // the scheduling step, 0-based
	Tick   uint64 // the virtual clock
	Actor  string // "w0".."w255" for workers, "sim" for the driver and the clock
	Kind   Kind
	Fields []Field // in the order they are written; keys may repeat
}

// Header is what a trace says about its run before the first event: ordered
// key/value pairs (name, scenario-sha256, seed, workers, ...) and the
// scenario source, verbatim, so that a trace alone is enough to replay it.
type Header struct {
	// Version is the format version a writer writes, FormatVersion when
	// 0 (Parse reports the version it read in Trace.Version).
	Version int
	Fields  []Field // in the caller's order; the key "source" is reserved
	Source  string  // the scenario source, byte for byte
}

// Get returns the first header field with the given key.
func (h *Header) Get(key string) (Field, bool) {
	for _, f := range h.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}
