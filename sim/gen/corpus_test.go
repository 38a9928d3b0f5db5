package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/ci"
)

// TestFuzzCorpus: --corpus saves the shrunk failure as NAME.toml and
// NAME.trace, the name made from the program alone; fuzzing again (or
// from another start, finding the same program) adds nothing; the
// saved trace replays byte for byte; and the CI report names the
// failure with its command.
func TestFuzzCorpus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	o := FuzzOptions{Seeds: 500, Out: filepath.Join(dir, "out"), Failing: anyPanic, Corpus: corpus}
	rep, err := Fuzz(o, nil)
	if err != nil || rep.First == nil {
		t.Fatalf("no failure: %+v, %v", rep, err)
	}
	f := rep.First
	name := CorpusName(f)
	if !f.CorpusNew || f.CorpusFile != filepath.Join(corpus, name+".toml") || !strings.HasPrefix(name, "fuzz-") || len(name) != len("fuzz-")+corpusHashLen {
		t.Fatalf("saved as %q (new %v), name %q", f.CorpusFile, f.CorpusNew, name)
	}
	renamed := clone(f.Shrunk)
	renamed.Name, renamed.Description = "another-name", "found another way"
	if got := CorpusName(&Failure{Shrunk: renamed}); got != name {
		t.Fatalf("the name depends on the scenario's name: %s, %s", got, name)
	}
	again, err := Fuzz(o, nil)
	if err != nil || again.First == nil || again.First.CorpusNew || again.First.CorpusFile != f.CorpusFile {
		t.Fatalf("fuzzing again: %+v, %v", again.First, err)
	}
	es, _ := os.ReadDir(corpus)
	if len(es) != 2 {
		t.Fatalf("the corpus holds %d files, want 2", len(es))
	}
	trace, err := os.ReadFile(filepath.Join(corpus, name+".trace"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := sim.Replay("t", trace, true, 0); err != nil || !r.Identical {
		t.Fatalf("the corpus trace does not replay along its schedule: %+v, %v", r, err)
	}
	cr := rep.CI(o)
	if cr.Runs != int64(rep.Runs) || cr.Failed < 1 || len(cr.Failures) != 1 || len(cr.Cases) != 1 ||
		cr.Failures[0].Command != f.Command || cr.Sweep.Tool != "fuzz" || cr.Format != ci.Format {
		t.Fatalf("CI report %+v", cr)
	}
}
