package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cbcsim/cbcsim/sim"
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
