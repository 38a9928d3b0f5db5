package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
func CorpusName(f *Failure) string { return corpusName(f.Shrunk) }

func corpusName(sc *scenario.Scenario) string {
	bare := clone(sc)
	bare.Name, bare.Description = "", ""
	sum := sha256.Sum256(Format(bare))
	return "fuzz-" + hex.EncodeToString(sum[:])[:corpusHashLen]
}

// saveCorpus copies the shrunk failure of dir into the corpus: NAME.trace
// (its failing run, which `cbcsim check CORPUS` replays along its
// schedule) then NAME.toml (its scenario), each atomically; the scenario
// last, so that a .toml in the corpus always has its trace. An entry
// already there is left as it is; a file at its name that is not the
// entry (junk, a truncated write of another tool) is replaced, and a
// FIFO, device or directory there is an error, never opened (a FIFO
// would block). It returns the scenario's path and what it found.
func saveCorpus(f *Failure, corpus string) (string, corpusState, error) {
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		return "", 0, err
	}
	name := CorpusName(f)
	file := filepath.Join(corpus, name+".toml")
	traceFile := filepath.Join(corpus, name+".trace")
	state, err := corpusEntry(file, traceFile, name)
	if err != nil || state == corpusHeld {
		return file, state, err
	}
	trace, err := os.ReadFile(filepath.Join(f.Dir, "run.trace"))
	if err != nil {
		return "", 0, err
	}
	for _, c := range []struct {
		path string
		data []byte
	}{{traceFile, trace}, {file, f.Shrunk.Source}} {
		if err := sim.WriteFileAtomic(c.path, func(w io.Writer) error {
			_, err := w.Write(c.data)
			return err
		}); err != nil {
			return "", 0, fmt.Errorf("saving to the corpus: %w", err)
		}
	}
	return file, state, nil
}

// corpusState is what saveCorpus found at an entry's name.
type corpusState int

const (
	corpusNew      corpusState = iota // nothing: the entry is written
	corpusHeld                        // the entry, whole: left as it is
	corpusRepaired                    // something else, replaced by the entry
)

// corpusEntry looks at the entry NAME (its scenario file and trace
// file) without opening what is not a regular file.
func corpusEntry(file, traceFile, name string) (corpusState, error) {
	state := corpusNew
	for _, p := range []string{file, traceFile} {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return 0, fmt.Errorf("the corpus entry %s: %w", p, err)
		case !fi.Mode().IsRegular():
			return 0, fmt.Errorf("the corpus entry %s is a %s, not a regular file: remove it", p, fileKind(fi.Mode()))
		}
		state = corpusRepaired // something is there; held if it checks out
	}
	if state == corpusNew {
		return state, nil
	}
	sc, err := scenario.Load(file)
	if err != nil {
		return corpusRepaired, nil
	}
	head := make([]byte, len(traceMagic))
	if t, err := os.Open(traceFile); err == nil {
		_, err = io.ReadFull(t, head)
		t.Close()
		if err == nil && string(head) == traceMagic && corpusName(sc) == name {
			return corpusHeld, nil
		}
	}
	return corpusRepaired, nil
}

// traceMagic begins every trace file.
const traceMagic = "# cbcsim-trace "

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
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
