package sim

import (
	"io"

	"github.com/cbcsim/cbcsim/internal/outfile"
)

// AtomicFile is an output file that appears at its path only when Commit
// succeeds; see package outfile for how symlinks, FIFOs, devices, modes and
// interrupts are handled.
type AtomicFile = outfile.File

// CreateAtomic starts writing path.
func CreateAtomic(path string) (*AtomicFile, error) { return outfile.Create(path) }

// WriteFileAtomic writes path through a buffered AtomicFile: fill writes the
// contents, and the file appears whole or not at all.
func WriteFileAtomic(path string, fill func(io.Writer) error) error {
	return outfile.WriteFile(path, fill)
}
