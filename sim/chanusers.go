package sim

import "github.com/cbcsim/cbcsim/sim/scenario"

// chanUsers is, for the waits of a stuck run (package waits), which task
// bodies of sc may send on or receive from each channel: a task blocked on
// a channel nobody has used yet may still be woken by a task whose code
// uses it. Each body is walked once, nested bodies and called bodies
// (`call`) included: O(ops).
type chanUsers map[string]*[2][]string // channel -> [senders, receivers], by task name

func newChanUsers(sc *scenario.Scenario) chanUsers {
	u := chanUsers{}
	for _, name := range sc.TaskNames {
		seen := map[string]bool{name: true}
		var walk func(ops []scenario.Op)
		walk = func(ops []scenario.Op) {
			for i := range ops {
				op := &ops[i]
				switch op.Kind {
				case scenario.Send:
					u.add(op.Str, 0, name)
				case scenario.Recv:
					u.add(op.Str, 1, name)
				case scenario.Call:
					if t := sc.Tasks[op.Str]; t != nil && !seen[op.Str] {
						seen[op.Str] = true
						walk(t.Ops)
					}
				}
				walk(op.Body)
			}
		}
		walk(sc.Tasks[name].Ops)
	}
	return u
}

func (u chanUsers) add(ch string, dir int, task string) {
	e := u[ch]
	if e == nil {
		e = &[2][]string{}
		u[ch] = e
	}
	if l := e[dir]; len(l) == 0 || l[len(l)-1] != task {
		e[dir] = append(l, task)
	}
}

// lazyChanUsers is waits.Builder.Users for sc, walking sc's bodies at the
// first call only: most runs end without a wait to explain.
func lazyChanUsers(sc *scenario.Scenario) func(string, bool) []string {
	var u chanUsers
	return func(ch string, send bool) []string {
		if u == nil {
			u = newChanUsers(sc)
		}
		return u.users(ch, send)
	}
}

// users implements waits.Builder.Users.
func (u chanUsers) users(ch string, send bool) []string {
	e := u[ch]
	if e == nil {
		return nil
	}
	if send {
		return e[0]
	}
	return e[1]
}
