package check

import (
	"bytes"
	"slices"

	"github.com/cbcsim/cbcsim/trace"
	"github.com/cbcsim/cbcsim/trace/htmlreport"
)

// failSeedsShown bounds the failing seeds a grid cell lists.
const failSeedsShown = 8

// Grid is the report as a pass and fail grid, a row per scenario and a
// column per worker count, with a strip of the first GridSeedsMax seeds
// per scenario and worker count, for check --report (docs/report.md).
func (r *Report) Grid() *htmlreport.Grid {
	g := &htmlreport.Grid{Workers: r.Options.Workers, SeedFirst: r.Options.SeedStart, SeedCount: min(uint64(max(r.Options.Seeds, 0)), GridSeedsMax)}
	for _, s := range r.Scenarios {
		row := htmlreport.GridRow{Scenario: s.Path}
		for _, w := range r.Options.Workers {
			row.Cells = append(row.Cells, s.cell(w))
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// cell sums the runs of s at w workers, with its failing seeds, smallest
// first, and the repro directory of its first failure.
func (s *ScenarioReport) cell(w int) htmlreport.GridCell {
	var c htmlreport.GridCell
	for _, row := range s.Rows {
		if row.Workers == w {
			c.Runs, c.Failed, c.Seeds = row.Runs, row.Failed, row.FailSeeds
		}
	}
	var seeds []uint64
	for _, f := range s.Failures {
		if f.Config.Workers != w {
			continue
		}
		seeds = append(seeds, f.Seed)
		seeds = append(seeds, f.Seeds...)
		if c.Repro == "" {
			c.Repro = f.ReproDir
		}
	}
	slices.Sort(seeds)
	c.FailSeeds = slices.Compact(seeds)
	if len(c.FailSeeds) > failSeedsShown {
		c.FailSeeds = c.FailSeeds[:failSeedsShown]
	}
	return c
}

// Page is the check as an HTML page (check --report): the quiet report
// as its notes, the grid, and the first failure's run drawn when it has
// a trace.
func (r *Report) Page() (htmlreport.Page, error) {
	var b bytes.Buffer
	if err := r.WriteQuiet(&b); err != nil {
		return htmlreport.Page{}, err
	}
	p := htmlreport.Page{Title: "cbcsim check", Notes: htmlreport.Lines(b.String()), Grid: r.Grid()}
	for _, s := range r.Scenarios {
		for _, f := range s.Failures {
			if f.Trace == "" || len(p.Runs) > 0 {
				continue
			}
			t, err := trace.ParseFile(f.Trace)
			if err != nil {
				return htmlreport.Page{}, err
			}
			p.Runs = append(p.Runs, htmlreport.Run{Label: f.Trace, Model: htmlreport.Build(t)})
		}
	}
	return p, nil
}
