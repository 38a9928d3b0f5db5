package check

// Building the Report once every job is done: the rows, the totals and
// the resampled runs whose traces differ.

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/cbcsim/cbcsim/sim"
)

// report builds the report once every job is done: the rows, the
// comparison of the resampled runs, then the repro directories.
func (c *checker) report() *Report {
	defer func() {
		for _, sm := range c.samples {
			sm.removeSpools() // the repros below may still read them
		}
	}()
	r := &Report{Options: c.o, Interrupted: c.interrupted, Planned: c.o.Shard.Count(c.total)}
	c.reportScenarios(r)
	c.reportNondeterminism(r)
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		for wi := range s.Rows {
			slices.Sort(s.Rows[wi].FailSeeds) // the runs end in any order
		}
		s.Total = total(s.Rows)
		r.Runs += s.Total.Runs
		r.FailedRuns += s.Total.Failed
	}
	c.reportRecorded(r)
	if c.o.ReproDir != "" {
		c.writeRepros(r)
	}
	return r
}

// reportScenarios fills a scenario's rows and failures (each kind of
// failure once, by its first seed).
func (c *checker) reportScenarios(r *Report) {
	for i, sc := range c.scs {
		s := ScenarioReport{Path: c.paths[i], Name: sc.Name, SHA256: sc.SHA256, Victim: c.victim[i]}
		for _, a := range c.rows[i] {
			s.Rows = append(s.Rows, a.row)
			kinds := make([]*Failure, 0, len(a.kinds))
			for _, k := range a.kinds {
				kinds = append(kinds, k)
			}
			sort.Slice(kinds, func(x, y int) bool { return kinds[x].Seed < kinds[y].Seed })
			for _, k := range kinds {
				s.Failures = append(s.Failures, *k)
			}
		}
		r.Scenarios = append(r.Scenarios, s)
	}
}

// reportNondeterminism counts the resampled runs and lists those whose
// two traces differed.
func (c *checker) reportNondeterminism(r *Report) {
	for _, sm := range c.samples {
		if sm.finished.Load() < 2 {
			continue // interrupted before its second execution
		}
		row := &r.Scenarios[sm.sc].Rows[sm.wi]
		row.Resampled++
		r.Resampled++
		if !sm.differ {
			continue
		}
		row.Differ++
		n := Nondeterminism{
			Path: c.paths[sm.sc], Scenario: c.scs[sm.sc].Name, Seed: sm.seed, Workers: c.o.Workers[sm.wi],
			Victim: c.victim[sm.sc], Line: sm.line, First: sm.la, Second: sm.lb, sample: sm,
			Config: c.config(sm.sc, sm.wi, sm.seed),
		}
		if sm.err != nil {
			n.Line, n.Detail = 0, "the traces differ (by their SHA-256); comparing them line by line failed: "+sm.err.Error()
		}
		r.Nondeterminism = append(r.Nondeterminism, n)
	}
}

// total adds up a scenario's rows.
func total(rows []Row) Row {
	t := Row{Outcomes: map[sim.Outcome]int64{}}
	for _, row := range rows {
		t.Runs += row.Runs
		t.Passed += row.Passed
		if row.Failed > 0 && (t.Failed == 0 || row.FirstFailSeed < t.FirstFailSeed) {
			t.FirstFailSeed = row.FirstFailSeed
		}
		t.Failed += row.Failed
		t.StepsTotal += row.StepsTotal
		t.StepsMax = max(t.StepsMax, row.StepsMax)
		for k, v := range row.Outcomes {
			t.Outcomes[k] += v
		}
		t.Resampled += row.Resampled
		t.Differ += row.Differ
	}
	return t
}

// reportRecorded adds the recorded runs this shard ran.
func (c *checker) reportRecorded(r *Report) {
	for i := range c.recorded {
		if !c.o.Shard.Owns(c.seeded+int64(i)) || c.recResults[i].Trace == "" {
			continue // another shard ran it, or an interrupt came first (runRecorded sets Trace)
		}
		rec := c.recResults[i]
		r.Recorded = append(r.Recorded, rec)
		r.Runs++
		if rec.Failed() {
			r.FailedRuns++
		}
	}
}

// diffLine finds the first line where a and b differ, 1-based. A line
// present in one and missing in the other differs from it ("").
func diffLine(a, b []byte) (line int, la, lb string, differ bool) {
	if bytes.Equal(a, b) {
		return 0, "", "", false
	}
	for line = 1; ; line++ {
		var x, y []byte
		x, a = cutLine(a)
		y, b = cutLine(b)
		if !bytes.Equal(x, y) || (x == nil) != (y == nil) {
			return line, clip(x), clip(y), true
		}
	}
}

// cutLine splits off the first line, with its newline; nil when s is empty.
func cutLine(s []byte) (line, rest []byte) {
	if len(s) == 0 {
		return nil, nil
	}
	if i := bytes.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1], s[i+1:]
	}
	return s, nil
}

func clip(b []byte) string {
	s := strings.TrimSuffix(string(b), "\n")
	if len(s) > diffLineMax {
		s = s[:diffLineMax] + "…"
	}
	return s
}
