package sim

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// AtomicFile is a file that appears at its path only when Commit succeeds:
// it is written to a temporary file in the same directory and renamed, so a
// failed or interrupted run never leaves half a trace behind.
type AtomicFile struct {
	*os.File
	path string
}

// CreateAtomic starts writing path.
func CreateAtomic(path string) (*AtomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Commit flushes the file to disk and moves it to its path.
func (a *AtomicFile) Commit() error {
	if err := a.Sync(); err != nil {
		a.Abort()
		return err
	}
	if err := a.Close(); err != nil {
		os.Remove(a.Name())
		return err
	}
	return os.Rename(a.Name(), a.path)
}

// Abort discards the file.
func (a *AtomicFile) Abort() {
	a.Close()
	os.Remove(a.Name())
}

// WriteFileAtomic writes path through a buffered AtomicFile: fill writes the
// contents, and the file appears whole or not at all.
func WriteFileAtomic(path string, fill func(io.Writer) error) error {
	af, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(af, 1<<16)
	if err := fill(bw); err != nil {
		af.Abort()
		return err
	}
	if err := bw.Flush(); err != nil {
		af.Abort()
		return err
	}
	return af.Commit()
}
