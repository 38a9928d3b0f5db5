package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is an output file being written. It is an io.Writer; nothing is
// visible at its path until Commit (except when written through).
type File struct {
	f       *os.File
	target  string // where Commit renames the temporary file
	through bool   // f is the destination itself (not a regular file)
	done    bool
}

// newFileMode is what a new file is created with, before the umask.
const newFileMode = 0o644

// Create starts writing path. It fails at once, before any work is done,
// when path cannot be written: a directory, a missing directory, a
// symlink loop.
func Create(path string) (*File, error) {
	fi, err := os.Stat(path) // follows symlinks
	switch {
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "create", Path: path, Err: errors.New("is a directory")}
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, target: path, through: true}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	mode := fs.FileMode(newFileMode) &^ umask
	if err == nil {
		mode = fi.Mode().Perm()
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		// Name the path asked for, not the temporary file.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	track(tmp.Name())
	out := &File{f: tmp, target: target}
	if err := tmp.Chmod(mode); err != nil {
		out.Abort()
		return nil, err
	}
	return out, nil
}

// maxLinks bounds the symlinks resolve follows, as the kernel does.
const maxLinks = 40

// resolve follows symlinks from path to the file they end at, which need
// not exist (a dangling link is written through to its target).
func resolve(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", &fs.PathError{Op: "create", Path: path, Err: errors.New("too many levels of symbolic links")}
}

// Write writes to the file.
func (o *File) Write(p []byte) (int, error) { return o.f.Write(p) }

// Name is the path the output appears at.
func (o *File) Name() string { return o.target }

// Commit flushes the file to disk and moves it to its path. On any error
// the temporary file is removed and the path keeps what it held.
func (o *File) Commit() error {
	if o.done {
		return errors.New("outfile: Commit after Commit or Abort")
	}
	o.done = true
	if o.through {
		return o.f.Close()
	}
	tmp := o.f.Name()
	defer untrack(tmp)
	if err := o.f.Sync(); err != nil {
		o.f.Close()
		os.Remove(tmp)
		return err
	}
	if err := o.f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, o.target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Abort discards the file. It may be called after Commit, to no effect, so
// that a deferred Abort covers every early return.
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	if !o.through {
		os.Remove(o.f.Name())
		untrack(o.f.Name())
	}
}

// WriteFile writes path through a buffered File: fill writes the contents,
// and the file appears whole or not at all.
func WriteFile(path string, fill func(io.Writer) error) error {
	o, err := Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(o, 1<<16)
	if err := fill(bw); err != nil {
		o.Abort()
		return err
	}
	if err := bw.Flush(); err != nil {
		o.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return o.Commit()
}

// temps are the temporary files in flight, for a signal to remove.
var temps struct {
	sync.Mutex
	names map[string]bool
}

func track(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = true
}

func untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// removeTemps removes every temporary file in flight.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
	}
	temps.names = nil
}
