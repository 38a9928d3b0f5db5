package trace

// The first divergence: what differs at that event, the context around it
// and which decision of the step parted the runs.

import (
	"fmt"
	"strconv"
	"strings"
)

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
	actor     string
	victims   []string // the victim of each steal attempt, in order
	victimsAt []int    // the index in the step of each steal attempt
	decides   []decide // the step's policy decisions (decide lines), in order
}

// decide is one decide line: the policy decision name, the task it is
// about and the chooser's answer (decide next-slot=yes task=2).
type decide struct {
	name, task, answer string
	at                 int // its index in the step
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
		switch e.Kind {
		case KindSteal, KindStealFail:
			d.victims = append(d.victims, victimOf(e))
			d.victimsAt = append(d.victimsAt, i)
		case KindDecide:
			d.decides = append(d.decides, decideOf(e, i))
		}
	}
	return d
}

// decideOf reads a decide line: its first field is the decision and the
// answer, then the task it is about.
func decideOf(e *Event, at int) decide {
	c := decide{at: at}
	if len(e.Fields) > 0 {
		c.name, c.answer = e.Fields[0].Key, displayValue(&e.Fields[0])
	}
	c.task, _ = get(e, KeyTask)
	return c
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
		s += ", no steal attempts"
	} else {
		s += ", steal victims " + strings.Join(d.victims, ", ")
	}
	if len(d.decides) > 0 {
		parts := make([]string, len(d.decides))
		for k, c := range d.decides {
			parts[k] = c.String()
		}
		s += ", decisions " + strings.Join(parts, ", ")
	}
	return s
}

func (c decide) String() string { return c.name + "=" + c.answer + " (task " + c.task + ")" }

// decisionDiff returns the first decision of step s that differs between a
// and b, as a sentence: the driver's choice of worker, then, in the
// step's event order, a steal attempt's victim or a policy decision's
// answer (a decide line). Attempts one side made and the other did not
// are not a decision difference: how many attempts a thief makes depends
// on whether the earlier ones succeeded, an effect. Nor is a decide line
// that asks another question (another decision, or about another task):
// what the worker asks follows from the state, an effect; only the same
// question answered otherwise is a decision that differs.
func decisionDiff(s uint64, a, b stepDecisions) (string, bool) {
	if a.actor != "" && b.actor != "" && a.actor != b.actor {
		return fmt.Sprintf("step %d: the driver chose %s in A, %s in B", s, a.actor, b.actor), true
	}
	if a.actor != b.actor {
		return "", false
	}
	victim, vAt := "", -1
	for k := 0; k < len(a.victims) && k < len(b.victims); k++ {
		if a.victims[k] != b.victims[k] {
			victim = fmt.Sprintf("step %d, %s steal attempt %d: victim %s in A, %s in B", s, a.actor, k+1, a.victims[k], b.victims[k])
			vAt = a.victimsAt[k]
			break
		}
	}
	for k := 0; k < len(a.decides) && k < len(b.decides); k++ {
		ca, cb := a.decides[k], b.decides[k]
		if ca.name != cb.name || ca.task != cb.task {
			break
		}
		if ca.answer != cb.answer && (vAt < 0 || ca.at < vAt) {
			return fmt.Sprintf("step %d, %s decision %s (task %s): %s in A, %s in B", s, a.actor, ca.name, ca.task, ca.answer, cb.answer), true
		}
	}
	return victim, vAt >= 0
}
