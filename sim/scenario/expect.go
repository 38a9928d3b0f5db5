package scenario

import (
	"sort"
	"strconv"
	"strings"
)

// Outcomes of main, as `outcome` names them.
const (
	OutcomeOK        = "ok"
	OutcomeFailed    = "failed"
	OutcomeCancelled = "cancelled"
	OutcomeDeadlock  = "deadlock"
	OutcomeLivelock  = "livelock"
)

// Nursery results, as [expect.nursery.LABEL] `result` names them.
const (
	ResultSuccess     = "success"
	ResultChildFailed = "child_failed"
	ResultCancelled   = "cancelled"
)

// Cancellation reasons, as `cancelled:REASON` names them.
const (
	ReasonTimeout           = "Timeout"
	ReasonSiblingFailed     = "SiblingFailed"
	ReasonNurseryExited     = "NurseryExited"
	ReasonExplicitCancel    = "ExplicitCancel"
	ReasonResourceExhausted = "ResourceExhausted"
	ReasonDeadlock          = "Deadlock" // real mode's: every worker idle, tasks left
)

var (
	expectKeys        = []string{"outcome", "value", "error", "log", "log_order", "nursery", "task"}
	expectNurseryKeys = []string{"result", "error", "results", "state", "transitions"}
	expectTaskKeys    = []string{"result"}
	nurseryStates     = []string{"Open", "Closing", "Cancelling", "Closed", "Cancelled"}
	outcomes          = []string{OutcomeOK, OutcomeFailed, OutcomeCancelled, OutcomeDeadlock, OutcomeLivelock}
	nurseryResults    = []string{ResultSuccess, ResultChildFailed, ResultCancelled}
	reasons           = []string{ReasonTimeout, ReasonSiblingFailed, ReasonNurseryExited, ReasonExplicitCancel, ReasonResourceExhausted, ReasonDeadlock}
)

// Match reports whether got, a run's observed value in its canonical text,
// matches one of alternatives (as Load split them). An empty list matches
// anything: it stands for a key that was not given.
//
// The canonical texts are: an outcome ("ok", "failed", ...), an error name, a
// nursery result ("success", ...), or a child result: "ok" (returned with no
// value), "ok:VALUE", "err:ERR", "panic:MSG", "cancelled:REASON".
//
// A pattern matches when it equals got, with three widenings: "*" matches
// anything; "KIND:*" matches every got that starts with "KIND:"; and "ok"
// matches every successful return, with or without a value.
func Match(alternatives []string, got string) bool {
	if len(alternatives) == 0 {
		return true
	}
	for _, a := range alternatives {
		switch {
		case a == "*" || a == got:
			return true
		case a == "ok" && strings.HasPrefix(got, "ok:"):
			return true
		case strings.HasSuffix(a, ":*") && strings.HasPrefix(got, a[:len(a)-1]):
			return true
		}
	}
	return false
}

func (d *decoder) expect(v any) *Expect {
	m, ok := d.table(v, "expect")
	if !ok {
		return nil
	}
	d.checkKeys(m, "expect", "[expect]", expectKeys)
	e := &Expect{}
	for _, k := range d.keys(m, "expect") {
		if d.failed() {
			return nil
		}
		p := keyPath("expect", k)
		x := m[k]
		switch k {
		case "outcome":
			e.Outcome = d.alternatives(x, p, func(a string) string {
				if a == "*" || contains(outcomes, a) {
					return ""
				}
				return "want " + strings.Join(outcomes, ", ") + " or *"
			})
		case "value":
			if n, ok := d.integer(x, p); ok {
				e.Value = &n
			}
		case "error":
			e.Error = d.alternatives(x, p, anyText)
		case "log":
			e.Log, e.HasLog = d.stringList(x, p)
			if e.Log == nil && e.HasLog {
				e.Log = []string{}
			}
		case "log_order":
			e.LogOrder, _ = d.stringList(x, p)
		case "nursery":
			e.Nursery, e.NurseryLabels = d.expectNurseries(x, p)
		case "task":
			if d.since(2, p, "[expect.task.NAME]") {
				e.Task, e.TaskNames = d.expectTasks(x, p)
			}
		}
	}
	if d.failed() {
		return nil
	}
	return e
}

func (d *decoder) expectNurseries(v any, path string) (map[string]*ExpectNursery, []string) {
	m, ok := d.table(v, path)
	if !ok {
		return nil, nil
	}
	out := map[string]*ExpectNursery{}
	var labels []string
	for _, label := range d.keys(m, path) {
		p := keyPath(path, label)
		if !d.labels[label] {
			d.errorf(p, "no nursery in this scenario is labelled %q", label)
			return nil, nil
		}
		t, ok := d.table(m[label], p)
		if !ok {
			return nil, nil
		}
		d.checkKeys(t, p, "a nursery expectation", expectNurseryKeys)
		en := &ExpectNursery{}
		for _, k := range d.keys(t, p) {
			kp := keyPath(p, k)
			switch k {
			case "result":
				en.Result = d.alternatives(t[k], kp, func(a string) string {
					if a == "*" || contains(nurseryResults, a) {
						return ""
					}
					return "want " + strings.Join(nurseryResults, ", ") + " or *"
				})
			case "error":
				en.Error = d.alternatives(t[k], kp, anyText)
			case "results":
				arr, ok := t[k].([]any)
				if !ok {
					d.wrongType(kp, "an array of result patterns", t[k])
					break
				}
				en.HasResults = true
				en.Results = make([][]string, 0, len(arr))
				for i, x := range arr {
					alts := d.alternatives(x, indexPath(kp, i), checkResultPattern)
					if d.failed() {
						break
					}
					en.Results = append(en.Results, alts)
				}
			case "state", "transitions":
				d.expectNurseryV2(en, k, t[k], kp)
			}
			if d.failed() {
				return nil, nil
			}
		}
		out[label] = en
		labels = append(labels, label)
	}
	sort.Strings(labels)
	return out, labels
}

// expectNurseryV2 decodes a nursery expectation's version-2 keys: state,
// a pattern over the five states, and transitions, the exact list of
// "FROM->TO" moves, each one the state machine allows.
func (d *decoder) expectNurseryV2(en *ExpectNursery, k string, v any, path string) {
	if !d.since(2, path, "the nursery expectation "+k) {
		return
	}
	if k == "state" {
		en.State = d.alternatives(v, path, func(a string) string {
			if a == "*" || contains(nurseryStates, a) {
				return ""
			}
			return "want " + strings.Join(nurseryStates, ", ") + " or *"
		})
		return
	}
	list, ok := d.stringList(v, path)
	if !ok {
		return
	}
	for i, tr := range list {
		from, to, found := strings.Cut(tr, "->")
		if !found || !contains(nurseryStates, from) || !contains(nurseryStates, to) || !allowedMove(from, to) {
			d.errorf(indexPath(path, i), "invalid transition %q: want FROM->TO, a move the state machine allows (Open->Closing, Open->Cancelling, Closing->Closed, Closing->Cancelling, Cancelling->Cancelled)", tr)
			return
		}
	}
	en.Transitions, en.HasTransitions = list, true
}

// allowedMove reports whether from->to is one of the five transitions
// (docs/nursery.md).
func allowedMove(from, to string) bool {
	switch from + "->" + to {
	case "Open->Closing", "Open->Cancelling", "Closing->Closed", "Closing->Cancelling", "Cancelling->Cancelled":
		return true
	}
	return false
}

// expectTasks decodes [expect.task.NAME] tables.
func (d *decoder) expectTasks(v any, path string) (map[string]*ExpectTask, []string) {
	m, ok := d.table(v, path)
	if !ok {
		return nil, nil
	}
	out := map[string]*ExpectTask{}
	var names []string
	for _, name := range d.keys(m, path) {
		p := keyPath(path, name)
		if !d.tasks[name] {
			d.errorf(p, "no task in this scenario is named %q", name)
			return nil, nil
		}
		t, ok := d.table(m[name], p)
		if !ok {
			return nil, nil
		}
		d.checkKeys(t, p, "a task expectation", expectTaskKeys)
		et := &ExpectTask{}
		if r, ok := t["result"]; ok {
			et.Result = d.alternatives(r, keyPath(p, "result"), checkResultPattern)
		}
		if d.failed() {
			return nil, nil
		}
		out[name] = et
		names = append(names, name)
	}
	sort.Strings(names)
	return out, names
}

// alternatives splits a pattern string on "|" (spaces around each
// alternative are dropped) and checks each with check, which returns "" or
// what is wrong.
func (d *decoder) alternatives(v any, path string, check func(string) string) []string {
	s, ok := d.str(v, path)
	if !ok {
		return nil
	}
	parts := strings.Split(s, "|")
	out := make([]string, 0, len(parts))
	for _, a := range parts {
		a = strings.TrimSpace(a)
		if a == "" {
			d.errorf(path, "invalid pattern %q: empty alternative", s)
			return nil
		}
		if why := check(a); why != "" {
			if a == strings.TrimSpace(s) {
				d.errorf(path, "invalid pattern %q: %s", a, why)
			} else {
				d.errorf(path, "invalid pattern %q: %q: %s", s, a, why)
			}
			return nil
		}
		out = append(out, a)
	}
	return out
}

func anyText(string) string { return "" }

// checkResultPattern checks one alternative of a child result pattern.
func checkResultPattern(a string) string {
	if a == "*" || a == "ok" {
		return ""
	}
	kind, arg, found := strings.Cut(a, ":")
	if !found {
		switch kind {
		case "err", "panic", "cancelled":
			return "write " + kind + ":* for any " + kind
		}
		return "want ok, ok:INT, err:ERR, panic:MSG, cancelled:REASON or *"
	}
	switch kind {
	case "ok":
		if arg == "*" {
			return ""
		}
		if _, err := strconv.ParseInt(arg, 10, 64); err != nil {
			return "ok:VALUE needs an integer value"
		}
	case "err", "panic":
		if arg == "" {
			return kind + ": needs a text (or * for any)"
		}
	case "cancelled":
		if arg != "*" && !contains(reasons, arg) {
			return "unknown reason (want " + strings.Join(reasons, ", ") + " or *)"
		}
	default:
		return "want ok, ok:INT, err:ERR, panic:MSG, cancelled:REASON or *"
	}
	return ""
}
