package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff compares two traces and explains the first place where their event
// streams part. It is what `cbcsim diff` prints; the design is in
// docs/diff.md.
//
// A run is its decisions and their effects. The decisions are, for each
// step, the worker the seeded driver chose (the step's actor), and the victim
// of each steal attempt (the worker's PRNG choice). Everything else is an
// effect. Two runs with the same decisions and the same program and
// parameters must have the same effects, so where two traces part, Diff looks
// at the decisions of that step and says which it was:
//
//   - a decision differs: a schedule difference, expected for two seeds;
//   - the decisions are the same, the effects differ, and so do the programs
//     or parameters: a configuration difference, which may explain it;
//   - the decisions, programs and parameters are the same and the effects
//     still differ: nondeterminism, a bug in the simulator.
//
// Rejected designs: an LCS line diff (diff(1), madsim's "diverged at time
// T") shows what differs but not why, and after the first divergence every
// later line differs anyway; and re-aligning the two streams after the
// divergence, which on a schedule change aligns unrelated steps and
// suggests a cause that is not there. Diff explains the first divergence
// only, and summarises the rest by what a user compares runs for: task
// results, nursery outcomes and the run's outcome.

// DefaultContext is how many event lines Diff shows before and after the
// first divergence on each side.
const DefaultContext = 3

// Verdict says how two event streams differ.
type Verdict uint8

const (
	// Same: the event streams are identical (the headers may still differ).
	Same Verdict = iota
	// ScheduleDiff: at the first divergent step a decision differs: the
	// driver chose another worker, or a thief another victim.
	ScheduleDiff
	// Nondeterminism: the decisions up to and including the divergent step
	// are identical, as are the program and the run parameters, yet the
	// effects differ. The simulator is not deterministic: a bug.
	Nondeterminism
	// ConfigDiff: the decisions are identical and the effects differ, but
	// the runs had different programs or parameters (profile,
	// yield_interval, ...), which may explain it.
	ConfigDiff
	// Prefix: one event stream is a strict prefix of the other; the shorter
	// trace was cut short, or the longer one went on past the shorter's end.
	Prefix
)

var verdictNames = [...]string{"same", "schedule-diff", "nondeterminism", "config-diff", "prefix"}

// String returns the verdict's name: "same", "schedule-diff",
// "nondeterminism", "config-diff" or "prefix".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// DiffResult is what Diff found. Write prints it for people; the fields are
// for programs and tests. Text that names a side says "A" and "B": A is the
// first argument of Diff.
type DiffResult struct {
	// NameA and NameB name the two traces in Write's report (their file
	// paths, say). Diff leaves them empty, and Write then says "A" and "B".
	NameA, NameB string

	// VersionA and VersionB are the traces' format versions. Diff
	// compares them first: traces of different versions were recorded
	// under different driver modes (docs/trace-format.md#versioning), so
	// the same decisions may give other events, which is no
	// nondeterminism.
	VersionA, VersionB int
	// StoryA and StoryB say whether each trace tells the story of its run
	// (chan events, at= fields: docs/trace-format.md): a version-3 trace
	// recorded before them does not, and differs from one after them in
	// those lines alone, which is no nondeterminism either.
	StoryA, StoryB bool
	// PlacesRewritten names the side ("A" or "B") whose run lines said
	// every place, as version-3 traces did before "run_at: changed", and
	// were compared as written now (a place only where it changed); ""
	// when the two say places alike.
	PlacesRewritten string

	// Header lists the header fields that differ, in A's order and then
	// B's. The embedded scenario source is compared separately, in Source.
	Header []HeaderDiff
	// Source says whether, and where first, the scenario sources differ.
	// Different sources are different programs.
	Source SourceDiff

	Verdict Verdict
	// Reason says, in one sentence, what differs first: the decision
	// ("step 17: the driver chose w2 in A, w0 in B"), or for identical
	// decisions which effect. Empty when the streams are the same.
	Reason string
	// Decisions describes the decisions of the divergent step when they
	// are the same in both runs ("the driver chose w1; steal victims w3,
	// w0"). Empty otherwise.
	Decisions string
	// Explain holds further sentences that qualify the verdict: why a
	// schedule difference is expected (the seeds differ), why it should not
	// have happened (everything else is identical), which parameters may
	// explain a difference in effects, or that the shorter trace looks cut
	// short.
	Explain []string

	// Div is the first divergence; nil when the event streams are the same.
	Div *Divergence

	// A and B summarise each trace as a whole.
	A, B TraceSummary
	// Results lists the tasks in both traces whose final `result` differs
	// (or that have one in one trace only); OnlyA and OnlyB the tasks that
	// appear in one trace only, with their result there. Nurseries lists the
	// nurseries whose outcome event differs. All are in order of first
	// appearance, A's first.
	Results   []ItemDiff
	OnlyA     []ItemDiff
	OnlyB     []ItemDiff
	Nurseries []ItemDiff
}

// HeaderDiff is one header field whose value differs, or that one header
// lacks. Values are shown as in the trace (`1`, `random`, `"fail fast"`),
// except that a string needing no quotes for a reader is shown without them;
// a key that repeats has its values joined by ", ". The Key "(order)", never
// a real key, says that the headers have the same fields in another order,
// and A and B list the keys.
type HeaderDiff struct {
	Key      string
	A, B     string // the values; "" where the field is missing
	InA, InB bool   // whether each header has the field
}

// SourceDiff locates the first difference between two scenario sources.
type SourceDiff struct {
	Differs bool
	// Line is the 1-based source line of the first difference, and A and B
	// are that line on each side (MissingA / MissingB when that source has
	// fewer lines). Line is 0 when the sources differ only in whether they
	// end in a newline.
	Line               int
	A, B               string
	MissingA, MissingB bool
}

// Divergence is the first event at which two traces differ.
type Divergence struct {
	// Index is the 0-based index, in both event sections, of the first
	// event that differs: the first Index events are identical. At the end
	// of the shorter trace of a Prefix it is that trace's length.
	Index int
	// Step is the first step whose events differ. It is the step of event
	// Index on the side where that step number is lower: if A's step 17 has
	// four events and B's five, Step is 17 even though A's event Index is in
	// step 18.
	Step uint64
	// LineA and LineB are the 1-based file lines of event Index, and TextA
	// and TextB the lines themselves, without the newline. A line is 0 and
	// its text empty on the side that has no event Index.
	LineA, LineB int
	TextA, TextB string
	// Differs says what differs between the two events: "actor: w3 in A, w0
	// in B", "result: err:Failed in A, ok:3 in B", or that one side's step
	// or trace has ended.
	Differs []string
	// ContextA and ContextB are the lines around event Index on each side.
	ContextA, ContextB []ContextLine
}

// ContextLine is one event line shown around a divergence.
type ContextLine struct {
	Line int    // 1-based line in the file; 0 for the "end of trace" mark
	Text string // the event line, without its newline
	Mark bool   // the divergent event (or the end of the trace there)
}

// TraceSummary counts what one trace holds.
type TraceSummary struct {
	Events int
	// Steps counts the scheduling steps: the distinct step numbers with at
	// least one worker event (the driver's own end-of-run step is not one).
	Steps int
	// Outcome is the fields of the last `outcome` event
	// ("outcome=failed result=err:Failed"), and OutcomeLine its line; ""
	// and 0 when the trace has none.
	Outcome     string
	OutcomeLine int
}

// ItemDiff is a task or nursery whose final result differs, or that one
// trace lacks. ID is its id as the trace writes it; A and B are its results
// ("" for none); Name is the task's name from its spawn event, or the
// nursery's label, when the trace gives one.
type ItemDiff struct {
	ID   string
	Name string
	A, B string
}

// Equal reports whether the two traces are identical: the same format
// version, header, scenario source and events. Traces with identical
// events but different headers (two seeds of a one-worker run) are not
// Equal, though their Verdict is Same.
func (d *DiffResult) Equal() bool {
	return d.Verdict == Same && len(d.Header) == 0 && !d.Source.Differs && !d.VersionDiffers()
}

// VersionDiffers reports whether the traces have different format
// versions.
func (d *DiffResult) VersionDiffers() bool { return d.VersionA != d.VersionB }

// Diff compares a and b, with DefaultContext lines of context around the
// first divergence. It is pure: the same traces give the same result.
func Diff(a, b *Trace) *DiffResult { return DiffContext(a, b, DefaultContext) }

// DiffContext is Diff with n lines of context (0 or more) before and after
// the first divergence on each side.
func DiffContext(a, b *Trace, n int) *DiffResult {
	n = max(n, 0)
	d := &DiffResult{VersionA: a.Version, VersionB: b.Version, StoryA: tellsStory(a), StoryB: tellsStory(b)}
	d.Header = diffHeader(&a.Header, &b.Header)
	d.Source = diffSource(a.Header.Source, b.Header.Source)
	a, b = d.samePlaces(a, b)
	d.A, d.B = summarise(a), summarise(b)
	d.diffItems(a, b)

	i := commonPrefix(a.Events, b.Events)
	if i == len(a.Events) && i == len(b.Events) {
		d.Verdict = Same
		return d
	}
	d.Div = divergence(a, b, i, n)
	d.classify(a, b)
	return d
}

// configDiffers reports whether the runs had different programs or
// parameters, which may change effects under identical decisions. The seed
// is not one: it only feeds the PRNGs, whose choices are the decisions.
func (d *DiffResult) configDiffers() []string {
	var keys []string
	if d.VersionDiffers() {
		keys = append(keys, fmt.Sprintf("the format version (%d and %d: recorded under different driver modes)", d.VersionA, d.VersionB))
	} else if d.StoryA != d.StoryB {
		keys = append(keys, "the story events (chan, at=: one trace was recorded before them)")
	}
	if d.Source.Differs {
		keys = append(keys, "the scenario source")
	}
	for _, h := range d.Header {
		// The hash (and the name) come from the source; saying the source
		// differs says it. run_at is how run lines are written, and the
		// events are compared alike (samePlaces).
		if h.Key == "seed" || h.Key == KeyRunAt || d.Source.Differs && (h.Key == "scenario-sha256" || h.Key == "name") {
			continue
		}
		keys = append(keys, h.Key)
	}
	return keys
}

// tellsStory reports whether t has a chan event or an at= field.
func tellsStory(t *Trace) bool {
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind == KindChan || e.Kind == KindLock {
			return true
		}
		if (e.Kind == KindRun || e.Kind == KindBlock) && len(e.Fields) > 1 && e.Fields[len(e.Fields)-1].Key == KeyAt {
			return true
		}
	}
	return false
}

func (d *DiffResult) headerDiffers(key string) bool {
	for _, h := range d.Header {
		if h.Key == key {
			return true
		}
	}
	return false
}

// classify sets the verdict, reason and explanations for a divergence.
func (d *DiffResult) classify(a, b *Trace) {
	div := d.Div
	i, s := div.Index, div.Step
	config := d.configDiffers()

	if i == len(a.Events) || i == len(b.Events) {
		d.Verdict = Prefix
		short, long, sn, ln, ss := "A", "B", a, b, d.A
		if i == len(b.Events) {
			short, long, sn, ln, ss = "B", "A", b, a, d.B
		}
		if len(sn.Events) == 0 {
			d.Reason = fmt.Sprintf("%s has no events; %s has %d", short, long, len(ln.Events))
		} else {
			d.Reason = fmt.Sprintf("%s is a prefix of %s: %s ends after event %d (line %d, step %d), and %s goes on for %d more events",
				short, long, short, i-1, lineAt(sn, i-1), sn.Events[i-1].Step, long, len(ln.Events)-i)
		}
		if ss.OutcomeLine == 0 {
			d.Explain = append(d.Explain, short+" has no outcome event: it looks cut short (a run that was killed, or a file not fully written)")
		}
		return
	}

	ga, gb := stepGroup(a.Events, i, s), stepGroup(b.Events, i, s)
	da, db := decisionsOf(ga), decisionsOf(gb)
	if reason, ok := decisionDiff(s, da, db); ok {
		d.Verdict = ScheduleDiff
		d.Reason = reason
		switch {
		case d.VersionDiffers():
			d.Explain = append(d.Explain, "the runs differ in "+strings.Join(config, ", ")+", which can change the decisions")
		case d.headerDiffers("seed"):
			d.Explain = append(d.Explain, "the seeds differ, so different decisions are expected")
		case len(config) > 0:
			d.Explain = append(d.Explain, "the runs differ in "+strings.Join(config, ", ")+", which can change the decisions")
		default:
			d.Explain = append(d.Explain,
				"NONDETERMINISM IN A DECISION: the headers, seeds and programs are identical and so are the first "+
					strconv.Itoa(i)+" events, so the seeded driver and the victim generators should have chosen the same: "+
					"their random streams are not pinned to the seed (or a trace was edited)")
		}
		return
	}

	d.Decisions = da.String()
	if da.actor == "" && db.actor != "" || da.actor != "" && db.actor == "" {
		// One run took a worker step here and the other did not (its run
		// ended, or the driver stepped in): that follows from the state,
		// which the identical decisions before should have made identical.
		d.Decisions = ""
	}
	d.Reason = fmt.Sprintf("step %d: the decisions are the same in both runs, but the effects differ at A line %s, B line %s",
		s, lineOr(div.LineA), lineOr(div.LineB))
	if len(config) > 0 {
		d.Verdict = ConfigDiff
		d.Explain = append(d.Explain, "the runs differ in "+strings.Join(config, ", ")+
			", which can change the effects of the same decisions")
		return
	}
	d.Verdict = Nondeterminism
	same := "the headers and programs are identical"
	if d.headerDiffers("seed") {
		same = "the programs and parameters are identical (only the seeds differ, and they only feed the decisions)"
	}
	d.Explain = append(d.Explain, same+", so the same decisions must give the same effects: this is a bug in the simulator or the scheduler")
}

func lineOr(l int) string {
	if l == 0 {
		return "(end)"
	}
	return strconv.Itoa(l)
}
