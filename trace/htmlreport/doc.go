// Package htmlreport draws a run as one self-contained HTML page: what
// `cbcsim report` writes, and the report.html of every repro directory.
//
//	t, _ := trace.Parse(f)
//	m := htmlreport.Build(t)           // lanes, slices, arrows, tree, waits
//	err := htmlreport.Write(w, htmlreport.Page{Runs: []htmlreport.Run{{Model: m}}})
//
// The page has a lane per worker and per task, where a slice is a
// stretch of run steps that no other worker's step interrupts (a
// preemption ends it), the nurseries as spans under their owner, spawn and
// wake arrows, the task and nursery tree with results, and for a deadlock
// or livelock what each unfinished task waits on, drawn as a wait-for
// graph. Two runs (Page.Runs of length 2, with Page.Diff) are drawn on one
// scale with their first divergence marked; Page.Grid adds check's pass
// and fail grid.
//
// The page references nothing outside itself: inline SVG, inline CSS and
// one inline script, no URL, so that it opens offline and from a repro
// directory copied anywhere. Its size is bounded: past ElementsMax drawn
// elements the timeline stops at a step and the page says so
// (docs/report.md).
package htmlreport
