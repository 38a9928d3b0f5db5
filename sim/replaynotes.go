package sim

import "fmt"

// ReplayNotes replays the trace in data along its recorded schedule and
// says, in lines for a report's header, which checks failed ("FAIL
// expect.log: want [...], got [...]") or that all held. A trace that
// cannot be replayed (one without a program: a simtest or C trace; a
// malformed one) gets one line saying why; the caller still draws it.
// cbcsim report puts these lines at the top of the page.
func ReplayNotes(file string, data []byte) []string {
	rep, err := Replay(file, data, true, 0)
	if err != nil {
		return []string{fmt.Sprintf("%s: checks not known: %v", file, err)}
	}
	if rep.Run == nil {
		return nil
	}
	how := "replayed along its recorded schedule"
	if !rep.Identical {
		how = "replayed along its recorded schedule; the replay differs from the trace"
	}
	var failed []string
	for _, c := range rep.Run.Checks {
		if !c.OK {
			failed = append(failed, fmt.Sprintf("  FAIL %s: %s", c.Name, c.Detail))
		}
	}
	if len(failed) == 0 {
		return []string{fmt.Sprintf("%s (%s): all %d checks held", file, how, len(rep.Run.Checks))}
	}
	head := fmt.Sprintf("%s (%s): %d of %d checks FAIL", file, how, len(failed), len(rep.Run.Checks))
	return append([]string{head}, failed...)
}
