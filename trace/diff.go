package trace

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
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

// Equal reports whether the two traces are identical: the same header, the
// same scenario source and the same events. Traces with identical events but
// different headers (two seeds of a one-worker run) are not Equal, though
// their Verdict is Same.
func (d *DiffResult) Equal() bool {
	return d.Verdict == Same && len(d.Header) == 0 && !d.Source.Differs
}

// Diff compares a and b, with DefaultContext lines of context around the
// first divergence. It is pure: the same traces give the same result.
func Diff(a, b *Trace) *DiffResult { return DiffContext(a, b, DefaultContext) }

// DiffContext is Diff with n lines of context (0 or more) before and after
// the first divergence on each side.
func DiffContext(a, b *Trace, n int) *DiffResult {
	n = max(n, 0)
	d := &DiffResult{}
	d.Header = diffHeader(&a.Header, &b.Header)
	d.Source = diffSource(a.Header.Source, b.Header.Source)
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
	if d.Source.Differs {
		keys = append(keys, "the scenario source")
	}
	for _, h := range d.Header {
		// The hash (and the name) come from the source; saying the source
		// differs says it.
		if h.Key == "seed" || d.Source.Differs && (h.Key == "scenario-sha256" || h.Key == "name") {
			continue
		}
		keys = append(keys, h.Key)
	}
	return keys
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

// commonPrefix returns the number of leading events a and b share.
func commonPrefix(a, b []Event) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if !eventEqual(&a[i], &b[i]) {
			return i
		}
	}
	return n
}

// eventEqual reports whether a and b are written as the same line.
func eventEqual(a, b *Event) bool {
	if a.Step != b.Step || a.Tick != b.Tick || a.Actor != b.Actor || a.Kind != b.Kind || len(a.Fields) != len(b.Fields) {
		return false
	}
	for j := range a.Fields {
		if !fieldEqual(&a.Fields[j], &b.Fields[j]) {
			return false
		}
	}
	return true
}

func fieldEqual(a, b *Field) bool {
	if a.Key != b.Key || a.IsInt != b.IsInt {
		return false
	}
	if a.IsInt {
		return a.Int == b.Int
	}
	return a.Str == b.Str
}

// valueText returns f's value as the trace writes it.
func valueText(f *Field) string { return string(appendValue(nil, f)) }

// displayValue returns f's value for a sentence: a string that has no
// spaces and needs no escapes is shown without the quotes the trace may put
// around it (a hash that starts with a digit), so that a bare and a quoted
// string do not look like different types. Anything else is quoted, and so
// is a string that reads as an integer: the type is part of the value, and
// 1 and "1" differ.
func displayValue(f *Field) string {
	if f.IsInt {
		return strconv.FormatInt(f.Int, 10)
	}
	if _, plain := classify(f.Str); plain && f.Str != "" && !strings.ContainsRune(f.Str, ' ') {
		if _, err := strconv.ParseInt(f.Str, 10, 64); err != nil {
			return f.Str
		}
	}
	return strconv.Quote(f.Str)
}

// lineText returns e's line without its newline.
func lineText(e *Event) string {
	l := AppendEvent(nil, e)
	return string(l[:len(l)-1])
}

// fieldsText returns e's fields as "k=v k=v", leaving out the given keys.
func fieldsText(e *Event, skip ...string) string {
	var b []byte
outer:
	for j := range e.Fields {
		f := &e.Fields[j]
		for _, k := range skip {
			if f.Key == k {
				continue outer
			}
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, f.Key...)
		b = append(b, '=')
		b = appendValue(b, f)
	}
	return string(b)
}

// get returns the value text of e's first field named key, as the trace
// writes it. It is called for every event when summarising a trace, so the
// common values (a bare string, a small integer) cost no allocation.
func get(e *Event, key string) (string, bool) {
	for j := range e.Fields {
		f := &e.Fields[j]
		if f.Key != key {
			continue
		}
		switch {
		case f.IsInt:
			return strconv.FormatInt(f.Int, 10), true
		case isBare(f.Str):
			return f.Str, true
		}
		return valueText(f), true
	}
	return "", false
}

// diffHeader compares two headers key by key. A key may repeat; its values
// are compared as a list. Headers with the same values under each key but
// in another order get one HeaderDiff with the key "(order)", so that Equal
// still means identical files.
func diffHeader(a, b *Header) []HeaderDiff {
	var out []HeaderDiff
	seen := map[string]bool{}
	for _, h := range [2]*Header{a, b} {
		for _, f := range h.Fields {
			if seen[f.Key] {
				continue
			}
			seen[f.Key] = true
			va, vb := headerValues(a, f.Key), headerValues(b, f.Key)
			if slices.Equal(va, vb) {
				continue
			}
			out = append(out, HeaderDiff{Key: f.Key, A: strings.Join(va, ", "), B: strings.Join(vb, ", "),
				InA: len(va) > 0, InB: len(vb) > 0})
		}
	}
	if len(out) == 0 && !slices.EqualFunc(a.Fields, b.Fields, func(x, y Field) bool { return fieldEqual(&x, &y) }) {
		keys := func(h *Header) string {
			var ks []string
			for _, f := range h.Fields {
				ks = append(ks, f.Key)
			}
			return strings.Join(ks, ", ")
		}
		out = append(out, HeaderDiff{Key: "(order)", A: keys(a), B: keys(b), InA: true, InB: true})
	}
	return out
}

// headerValues returns the values of every field named key, for display.
func headerValues(h *Header, key string) []string {
	var vs []string
	for i := range h.Fields {
		if h.Fields[i].Key == key {
			vs = append(vs, displayValue(&h.Fields[i]))
		}
	}
	return vs
}

func diffSource(a, b string) SourceDiff {
	if a == b {
		return SourceDiff{}
	}
	la, lb := sourceLines(a), sourceLines(b)
	for j := 0; j < len(la) || j < len(lb); j++ {
		sd := SourceDiff{Differs: true, Line: j + 1}
		if j < len(la) {
			sd.A = la[j]
		} else {
			sd.MissingA = true
		}
		if j < len(lb) {
			sd.B = lb[j]
		} else {
			sd.MissingB = true
		}
		if sd.MissingA || sd.MissingB || sd.A != sd.B {
			return sd
		}
	}
	return SourceDiff{Differs: true} // only the final newline differs
}

// sourceLines splits a source into its lines as the header shows them: a
// final newline ends the last line rather than starting an empty one.
func sourceLines(src string) []string {
	if src == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(src, "\n"), "\n")
}

func summarise(t *Trace) TraceSummary {
	s := TraceSummary{Events: len(t.Events)}
	counted, have := uint64(0), false
	for i := range t.Events {
		e := &t.Events[i]
		if e.Actor != "sim" && (!have || e.Step != counted) {
			s.Steps++
			counted, have = e.Step, true
		}
		if e.Kind == KindOutcome {
			s.Outcome, s.OutcomeLine = fieldsText(e), lineAt(t, i)
		}
	}
	return s
}

// lineAt returns the file line of event i, or 0 for a trace built without
// line numbers.
func lineAt(t *Trace, i int) int {
	if i < len(t.Lines) {
		return t.Lines[i]
	}
	return 0
}

// finals is what one trace says about its tasks and nurseries.
type finals struct {
	tasks    []string          // task ids, in order of first appearance
	names    map[string]string // task id -> name, from its spawn event
	results  map[string]string // task id -> its last result
	nurs     []string          // nursery ids with an outcome, in order
	labels   map[string]string // nursery id -> label
	outcomes map[string]string // nursery id -> its last outcome
}

func finalsOf(t *Trace) *finals {
	f := &finals{names: map[string]string{}, results: map[string]string{},
		labels: map[string]string{}, outcomes: map[string]string{}}
	seen := map[string]bool{}
	for i := range t.Events {
		e := &t.Events[i]
		if id, ok := get(e, "task"); ok {
			if !seen[id] {
				seen[id] = true
				f.tasks = append(f.tasks, id)
			}
			if e.Kind == KindSpawn {
				if name, ok := get(e, "name"); ok {
					f.names[id] = name
				}
			}
			if e.Kind == KindResult {
				if r, ok := get(e, "result"); ok {
					f.results[id] = r
				} else {
					f.results[id] = fieldsText(e, "task")
				}
			}
		}
		if e.Kind == KindNursery {
			id, ok := get(e, "nursery")
			if _, isOutcome := get(e, "outcome"); ok && isOutcome {
				if _, had := f.outcomes[id]; !had {
					f.nurs = append(f.nurs, id)
				}
				f.outcomes[id] = fieldsText(e, "nursery", "label", "task")
				if l, ok := get(e, "label"); ok {
					f.labels[id] = l
				}
			}
		}
	}
	return f
}

// diffItems fills Results, OnlyA, OnlyB and Nurseries.
func (d *DiffResult) diffItems(a, b *Trace) {
	fa, fb := finalsOf(a), finalsOf(b)
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, id := range fa.tasks {
		inA[id] = true
	}
	for _, id := range fb.tasks {
		inB[id] = true
	}
	task := func(id string) ItemDiff {
		name := fa.names[id]
		if name == "" {
			name = fb.names[id]
		}
		return ItemDiff{ID: id, Name: name, A: fa.results[id], B: fb.results[id]}
	}
	for _, id := range fa.tasks {
		if !inB[id] {
			d.OnlyA = append(d.OnlyA, task(id))
			continue
		}
		ra, okA := fa.results[id]
		rb, okB := fb.results[id]
		if ra != rb || okA != okB {
			d.Results = append(d.Results, task(id))
		}
	}
	for _, id := range fb.tasks {
		if !inA[id] {
			d.OnlyB = append(d.OnlyB, task(id))
		}
	}
	seen := map[string]bool{}
	for _, ids := range [2][]string{fa.nurs, fb.nurs} {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			oa, okA := fa.outcomes[id]
			ob, okB := fb.outcomes[id]
			if oa == ob && okA == okB {
				continue
			}
			label := fa.labels[id]
			if label == "" {
				label = fb.labels[id]
			}
			d.Nurseries = append(d.Nurseries, ItemDiff{ID: id, Name: label, A: oa, B: ob})
		}
	}
}

// divergence describes the first differing event, i, with n lines of
// context.
func divergence(a, b *Trace, i, n int) *Divergence {
	div := &Divergence{Index: i}
	var ea, eb *Event
	if i < len(a.Events) {
		ea = &a.Events[i]
		div.LineA, div.TextA = lineAt(a, i), lineText(ea)
	}
	if i < len(b.Events) {
		eb = &b.Events[i]
		div.LineB, div.TextB = lineAt(b, i), lineText(eb)
	}
	switch {
	case ea != nil && eb != nil:
		div.Step = min(ea.Step, eb.Step)
	case ea != nil:
		div.Step = ea.Step
	case eb != nil:
		div.Step = eb.Step
	}
	div.Differs = eventDiffs(ea, eb)
	div.ContextA, div.ContextB = context(a, i, n), context(b, i, n)
	return div
}

// eventDiffs says what differs between two events, either of which may be
// nil (that trace has ended).
func eventDiffs(a, b *Event) []string {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return []string{"A has ended; B goes on"}
	case b == nil:
		return []string{"B has ended; A goes on"}
	case a.Step != b.Step:
		// One side's step has more events: the other moved on.
		if a.Step < b.Step {
			return []string{fmt.Sprintf("step %d goes on in A, but has ended in B (B's next event is in step %d)", a.Step, b.Step)}
		}
		return []string{fmt.Sprintf("step %d goes on in B, but has ended in A (A's next event is in step %d)", b.Step, a.Step)}
	}
	var out []string
	pair := func(what, x, y string) { out = append(out, fmt.Sprintf("%s: %s in A, %s in B", what, x, y)) }
	if a.Tick != b.Tick {
		pair("tick", strconv.FormatUint(a.Tick, 10), strconv.FormatUint(b.Tick, 10))
	}
	if a.Actor != b.Actor {
		pair("actor", a.Actor, b.Actor)
	}
	if a.Kind != b.Kind {
		pair("kind", a.Kind.String(), b.Kind.String())
		return out
	}
	sameKeys := len(a.Fields) == len(b.Fields)
	for j := 0; sameKeys && j < len(a.Fields); j++ {
		sameKeys = a.Fields[j].Key == b.Fields[j].Key
	}
	if !sameKeys {
		pair("fields", quoteEmpty(fieldsText(a)), quoteEmpty(fieldsText(b)))
		return out
	}
	for j := range a.Fields {
		if !fieldEqual(&a.Fields[j], &b.Fields[j]) {
			pair(a.Fields[j].Key, displayValue(&a.Fields[j]), displayValue(&b.Fields[j]))
		}
	}
	return out
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return "`" + s + "`"
}

func context(t *Trace, i, n int) []ContextLine {
	var out []ContextLine
	for j := max(0, i-n); j < len(t.Events) && j <= i+n; j++ {
		out = append(out, ContextLine{Line: lineAt(t, j), Text: lineText(&t.Events[j]), Mark: j == i})
	}
	if i+n >= len(t.Events) {
		out = append(out, ContextLine{Mark: i >= len(t.Events)})
	}
	return out
}

// stepGroup returns the events of step s next to index i: those just
// before i, and from i on, whose step is s. It is empty when the trace has
// no events of step s there.
func stepGroup(evs []Event, i int, s uint64) []Event {
	lo := min(i, len(evs))
	for lo > 0 && evs[lo-1].Step == s {
		lo--
	}
	hi := lo
	for hi < len(evs) && evs[hi].Step == s {
		hi++
	}
	return evs[lo:hi]
}

// stepDecisions are the decisions of one step.
type stepDecisions struct {
	// actor is the worker the driver chose: the actor of the step's worker
	// events. Empty when the step has only the driver's own ("sim")
	// events, such as the final outcome.
	actor   string
	victims []string // the victim of each steal attempt, in order
}

func decisionsOf(group []Event) stepDecisions {
	var d stepDecisions
	for i := range group {
		e := &group[i]
		if e.Actor == "sim" {
			continue
		}
		if d.actor == "" {
			d.actor = e.Actor
		}
		if e.Kind == KindSteal || e.Kind == KindStealFail {
			d.victims = append(d.victims, victimOf(e))
		}
	}
	return d
}

// victimOf returns the victim of a steal attempt as a worker name: the
// scheduler writes the worker's index (victim=3 is w3).
func victimOf(e *Event) string {
	for j := range e.Fields {
		f := &e.Fields[j]
		if f.Key != "victim" {
			continue
		}
		if f.IsInt {
			return "w" + strconv.FormatInt(f.Int, 10)
		}
		return f.Str
	}
	return "(none)"
}

func (d stepDecisions) String() string {
	if d.actor == "" {
		return "no worker step (the driver's own events only)"
	}
	s := "the driver chose " + d.actor
	if len(d.victims) == 0 {
		return s + ", no steal attempts"
	}
	return s + ", steal victims " + strings.Join(d.victims, ", ")
}

// decisionDiff returns the first decision of step s that differs between a
// and b, as a sentence. Attempts one side made and the other did not are
// not a decision difference: how many attempts a thief makes depends on
// whether the earlier ones succeeded, an effect.
func decisionDiff(s uint64, a, b stepDecisions) (string, bool) {
	if a.actor != "" && b.actor != "" && a.actor != b.actor {
		return fmt.Sprintf("step %d: the driver chose %s in A, %s in B", s, a.actor, b.actor), true
	}
	if a.actor != b.actor {
		return "", false
	}
	for k := 0; k < len(a.victims) && k < len(b.victims); k++ {
		if a.victims[k] != b.victims[k] {
			return fmt.Sprintf("step %d, %s steal attempt %d: victim %s in A, %s in B", s, a.actor, k+1, a.victims[k], b.victims[k]), true
		}
	}
	return "", false
}

// Headline returns the result in one line, for a log or an error message.
func (d *DiffResult) Headline() string {
	switch {
	case d.Equal():
		return "identical"
	case d.Verdict == Same:
		return "same events; the headers differ"
	case d.Verdict == Nondeterminism:
		return "NONDETERMINISM: same decisions, different effects (" + d.Reason + ")"
	}
	return d.Verdict.String() + ": " + d.Reason
}

// Write prints the report: the traces, what differs in their headers (a
// different program first), the verdict and its reason, the first
// divergence with context from each side, and a summary of both runs.
func (d *DiffResult) Write(w io.Writer) error {
	var b strings.Builder
	nameA, nameB := d.NameA, d.NameB
	if nameA == "" {
		nameA = "A"
	}
	if nameB == "" {
		nameB = "B"
	}
	fmt.Fprintf(&b, "A  %s\nB  %s\n\n", nameA, nameB)

	if d.Equal() {
		fmt.Fprintf(&b, "identical: same header, same scenario source, same %d events in %d steps\n", d.A.Events, d.A.Steps)
		_, err := io.WriteString(w, b.String())
		return err
	}

	d.writeHeader(&b)
	d.writeVerdict(&b)
	if d.Div != nil {
		d.writeDivergence(&b)
	}
	d.writeSummary(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (d *DiffResult) writeHeader(b *strings.Builder) {
	if src := d.Source; src.Differs {
		b.WriteString("DIFFERENT PROGRAMS: the embedded scenario sources differ")
		if src.Line == 0 {
			b.WriteString(" (only in the newline at the end)\n")
		} else {
			fmt.Fprintf(b, ", first at source line %d\n", src.Line)
			for _, side := range [2]struct {
				name, text string
				missing    bool
			}{{"A", src.A, src.MissingA}, {"B", src.B, src.MissingB}} {
				if side.missing {
					fmt.Fprintf(b, "  %s: (no such line)\n", side.name)
				} else {
					fmt.Fprintf(b, "  %s: %s\n", side.name, side.text)
				}
			}
		}
		b.WriteString("\n")
	}
	switch {
	case len(d.Header) == 0:
		b.WriteString("header: identical\n\n")
		return
	case len(d.Header) == 1:
		b.WriteString("header: 1 field differs\n")
	default:
		fmt.Fprintf(b, "header: %d fields differ\n", len(d.Header))
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, h := range d.Header {
		va, vb := h.A, h.B
		if !h.InA {
			va = "(missing)"
		}
		if !h.InB {
			vb = "(missing)"
		}
		fmt.Fprintf(tw, "  %s\t%s in A, %s in B\n", h.Key, va, vb)
	}
	tw.Flush()
	b.WriteString("\n")
}

func (d *DiffResult) writeVerdict(b *strings.Builder) {
	switch d.Verdict {
	case Same:
		b.WriteString("verdict: SAME EVENTS: the event streams are identical; only the headers differ\n")
	case ScheduleDiff:
		b.WriteString("verdict: SCHEDULE DIFF: the runs made different decisions\n")
	case Nondeterminism:
		b.WriteString("verdict: NONDETERMINISM: same decisions, different effects\n")
	case ConfigDiff:
		b.WriteString("verdict: CONFIG DIFF: same decisions, different effects, under different programs or parameters\n")
	case Prefix:
		b.WriteString("verdict: PREFIX: one trace stops where the other goes on\n")
	}
	if d.Reason != "" {
		fmt.Fprintf(b, "  %s\n", d.Reason)
	}
	if d.Decisions != "" {
		fmt.Fprintf(b, "  decisions at step %d, in both: %s\n", d.Div.Step, d.Decisions)
	}
	for _, e := range d.Explain {
		fmt.Fprintf(b, "  %s\n", e)
	}
	b.WriteString("\n")
}

func (d *DiffResult) writeDivergence(b *strings.Builder) {
	div := d.Div
	fmt.Fprintf(b, "first divergence: event %d (0-based), step %d; ", div.Index, div.Step)
	switch div.Index {
	case 0:
		b.WriteString("it is the first event\n")
	case 1:
		b.WriteString("the one event before it is identical\n")
	default:
		fmt.Fprintf(b, "the %d events before it are identical\n", div.Index)
	}
	for _, side := range [2]struct {
		name string
		line int
		text string
	}{{"A", div.LineA, div.TextA}, {"B", div.LineB, div.TextB}} {
		if side.line == 0 && side.text == "" {
			fmt.Fprintf(b, "  %s: (no more events)\n", side.name)
		} else {
			fmt.Fprintf(b, "  %s line %d: %s\n", side.name, side.line, side.text)
		}
	}
	for _, s := range div.Differs {
		fmt.Fprintf(b, "  differs: %s\n", s)
	}
	for _, side := range [2]struct {
		name string
		ctx  []ContextLine
	}{{"A", div.ContextA}, {"B", div.ContextB}} {
		fmt.Fprintf(b, "\n  %s\n", side.name)
		for _, c := range side.ctx {
			mark := " "
			if c.Mark {
				mark = ">"
			}
			if c.Line == 0 && c.Text == "" {
				fmt.Fprintf(b, "  %s %6s  (end of %s)\n", mark, "", side.name)
				continue
			}
			fmt.Fprintf(b, "  %s %6d  %s\n", mark, c.Line, c.Text)
		}
	}
	b.WriteString("\n")
}

func (d *DiffResult) writeSummary(b *strings.Builder) {
	b.WriteString("summary\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  \tA\tB\n")
	fmt.Fprintf(tw, "  events\t%d\t%d\n", d.A.Events, d.B.Events)
	fmt.Fprintf(tw, "  steps\t%d\t%d\n", d.A.Steps, d.B.Steps)
	outcome := func(s TraceSummary) string {
		if s.OutcomeLine == 0 && s.Outcome == "" {
			return "(none)"
		}
		return s.Outcome
	}
	fmt.Fprintf(tw, "  outcome\t%s\t%s\n", outcome(d.A), outcome(d.B))
	tw.Flush()

	d.writeItemSummary(b)
	b.WriteString(d.endsLine())
}

// writeItemSummary writes the task results, the tasks of one side only
// and the nursery outcomes that differ.
func (d *DiffResult) writeItemSummary(b *strings.Builder) {
	var tw *tabwriter.Writer
	item := func(it ItemDiff) string {
		if it.Name != "" {
			return it.ID + " (" + it.Name + ")"
		}
		return it.ID
	}
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	if len(d.Results) == 0 {
		b.WriteString("  task results: the same\n")
	} else {
		fmt.Fprintf(b, "  task results that differ: %d\n", len(d.Results))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    task\tA\tB\n")
		for _, r := range d.Results {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", item(r), orNone(r.A), orNone(r.B))
		}
		tw.Flush()
	}
	for _, only := range [2]struct {
		side  string
		tasks []ItemDiff
		a     bool
	}{{"A", d.OnlyA, true}, {"B", d.OnlyB, false}} {
		if len(only.tasks) == 0 {
			continue
		}
		fmt.Fprintf(b, "  tasks only in %s: %d\n", only.side, len(only.tasks))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    task\tresult in %s\n", only.side)
		for _, r := range only.tasks {
			res := r.B
			if only.a {
				res = r.A
			}
			fmt.Fprintf(tw, "    %s\t%s\n", item(r), orNone(res))
		}
		tw.Flush()
	}
	if len(d.Nurseries) == 0 {
		b.WriteString("  nursery outcomes: the same\n")
	} else {
		fmt.Fprintf(b, "  nursery outcomes that differ: %d\n", len(d.Nurseries))
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    nursery\tA\tB\n")
		for _, r := range d.Nurseries {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", item(r), orNone(r.A), orNone(r.B))
		}
		tw.Flush()
	}
}

// endsLine says, in one line, whether the two runs end alike: what a user
// comparing a schedule change most wants to know.
func (d *DiffResult) endsLine() string {
	var what []string
	if d.A.Outcome != d.B.Outcome || (d.A.OutcomeLine == 0) != (d.B.OutcomeLine == 0) {
		what = append(what, "the outcome")
	}
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			what = append(what, "1 "+one)
		case n > 1:
			what = append(what, strconv.Itoa(n)+" "+many)
		}
	}
	count(len(d.Results), "task result", "task results")
	count(len(d.OnlyA)+len(d.OnlyB), "task present in one run only", "tasks present in one run only")
	count(len(d.Nurseries), "nursery outcome", "nursery outcomes")
	if len(what) == 0 {
		return "the runs end alike: same outcome, same task results, same nursery outcomes\n"
	}
	return "the runs end differently: " + strings.Join(what, ", ") + "\n"
}
