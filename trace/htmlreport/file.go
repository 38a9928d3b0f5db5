package htmlreport

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cbcsim/cbcsim/internal/outfile"
	"github.com/cbcsim/cbcsim/trace"
)

// WriteFile writes the page to path atomically: the file appears whole or
// not at all.
func WriteFile(path string, p Page) error {
	return outfile.WriteFile(path, func(w io.Writer) error { return Write(w, p) })
}

// ForTraces is the page of one trace, or of two compared (A, B), each
// shown under its label.
func ForTraces(labels []string, ts []*trace.Trace) Page {
	p := Page{}
	for i, t := range ts {
		p.Runs = append(p.Runs, Run{Label: labels[i], Model: Build(t)})
	}
	if len(ts) == 2 {
		p.Diff = trace.Diff(ts[0], ts[1])
		p.Diff.NameA, p.Diff.NameB = labels[0], labels[1]
		p.Title = "cbcsim: " + labels[0] + " against " + labels[1]
	}
	return p
}

// MaxReproTrace bounds the trace a repro directory's report.html draws:
// 8 MiB, the schedule shrinker's bound too (about 130,000 steps).
const MaxReproTrace = 8 << 20

// WriteRepro writes dir/report.html from the traces named in dir (one
// trace, two compared, or none for a real-mode failure), with notes (the
// directory's README: the failed checks, the commands) at the top.
//
// A trace over MaxReproTrace is not drawn: the page holds the notes and
// says how to draw it (cbcsim report, which caps its timeline), so that a
// long failing run (a livelock of a million steps) writes its repro as
// fast as its trace, not a minute of rendering later.
func WriteRepro(dir string, traces []string, notes []string) error {
	for _, name := range traces {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Size() > MaxReproTrace {
			p := Page{Title: "cbcsim repro: " + filepath.Base(dir) + " (trace not drawn)"}
			p.Notes = append(notes, fmt.Sprintf("%s is %.1f MB, over the %d MB a repro's page draws: run `cbcsim report %s -o report.html` to draw it (its timeline capped)",
				name, float64(st.Size())/1e6, MaxReproTrace>>20, filepath.Join(dir, name)))
			return WriteFile(filepath.Join(dir, "report.html"), p)
		}
	}
	var ts []*trace.Trace
	for _, name := range traces {
		t, err := trace.ParseFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	p := ForTraces(traces, ts)
	if len(ts) == 0 {
		p.Title = "cbcsim repro: " + filepath.Base(dir) + " (no trace)"
	}
	p.Notes = notes
	return WriteFile(filepath.Join(dir, "report.html"), p)
}

// Lines splits a README's text into notes.
func Lines(text string) []string { return strings.Split(strings.TrimRight(text, "\n"), "\n") }
