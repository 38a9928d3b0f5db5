package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cbcsim/cbcsim/sim"
	"github.com/cbcsim/cbcsim/sim/scenario"
)

// corpusHashLen is the hex digits of SHA-256 in a corpus entry's name:
// 64 bits, so that a corpus of millions of entries has no collision to
// speak of, and the name stays short enough to read in a log.
const corpusHashLen = 16

// CorpusName is the name (without extension) under which a shrunk
// failure is kept in a regression corpus: "fuzz-" and the start of the
// SHA-256 of the program, its name and description left out (they name
// the seed that found it). The same program found again, from the same
// seed or another, gets the same name, so a corpus holds it once.
func CorpusName(f *Failure) string {
	bare := clone(f.Shrunk)
	bare.Name, bare.Description = "", ""
	sum := sha256.Sum256(Format(bare))
	return "fuzz-" + hex.EncodeToString(sum[:])[:corpusHashLen]
}

// saveCorpus copies the shrunk failure of dir into the corpus: NAME.trace
// (its failing run, which `cbcsim check CORPUS` replays along its
// schedule) then NAME.toml (its scenario), each atomically; the scenario
// last, so that a .toml in the corpus always has its trace. An entry
// already there is left as it is. It returns the scenario's path and
// whether it was new.
func saveCorpus(f *Failure, corpus string) (string, bool, error) {
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		return "", false, err
	}
	name := CorpusName(f)
	file := filepath.Join(corpus, name+".toml")
	if _, err := os.Stat(file); err == nil {
		return file, false, nil
	}
	trace, err := os.ReadFile(filepath.Join(f.Dir, "run.trace"))
	if err != nil {
		return "", false, err
	}
	for _, c := range []struct {
		path string
		data []byte
	}{{filepath.Join(corpus, name+".trace"), trace}, {file, f.Shrunk.Source}} {
		if err := sim.WriteFileAtomic(c.path, func(w io.Writer) error {
			_, err := w.Write(c.data)
			return err
		}); err != nil {
			return "", false, fmt.Errorf("saving to the corpus: %w", err)
		}
	}
	return file, true, nil
}

// ExecuteRecorded runs a recorded run of a corpus with the checks the
// fuzzer applied when it saved it: the invariants, the oracles
// (ExecuteOptions) and, for a program in the fragment where every program
// ends (Safe), the outcome: a deadlock, livelock or crash there is the
// scheduler's, a failed check named as FailedChecks names it. c is the
// run's resolved configuration (from its trace); o carries a Schedule or
// a trace writer. It is check's Options.ExecRecorded.
func ExecuteRecorded(sc *scenario.Scenario, c sim.Config, o sim.Options) (*sim.Run, error) {
	o.Seed, o.HasSeed, o.Workers, o.Victim, o.MaxSteps = c.Seed, true, c.Workers, c.Victim.String(), c.MaxSteps
	o.Strategy, o.PCTDepth = c.Strategy, c.PCTDepth
	run, err := ExecuteOptions(sc, o, o.Trace)
	if err != nil || run.Outcome.Ended() || Safe(sc) != nil {
		return run, err
	}
	d := details(run) // its last line is the outcome's
	run.Checks = append(run.Checks, sim.Check{Class: sim.ClassOracle, Name: "outcome:" + string(run.Outcome),
		Detail: "a program that always ends did not: " + strings.TrimPrefix(d[len(d)-1], "outcome: ")})
	return run, nil
}
