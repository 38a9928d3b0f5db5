package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Check reports, before any work, whether path can be written as an
// output file: what Create would refuse (a directory, a missing
// directory, a symlink loop, a dangling link into a missing directory)
// and a directory that refuses a new file (read-only, full of inodes).
// It writes nothing that stays: a temporary file is made beside the
// target and removed. A path that is not a regular file (a FIFO, a
// device) is not opened, so that a FIFO without a reader does not block.
func Check(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil // written through when the time comes
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// CheckDir reports, before any work, whether path can become a directory
// of outputs (a repro directory, a corpus): it is a directory that takes
// a new file, or it does not exist and its nearest existing ancestor is
// such a directory. It creates nothing, so that a run that writes no
// output leaves no empty directory behind.
func CheckDir(path string) error {
	// Not resolved as a file's link is: os.MkdirAll follows a link to a
	// directory but fails on a dangling one, and so does this walk.
	at := filepath.Clean(path)
	for {
		fi, err := os.Stat(at)
		switch {
		case err == nil && !fi.IsDir():
			return &fs.PathError{Op: "mkdir", Path: path, Err: fmt.Errorf("%s is not a directory", at)}
		case err == nil:
			return probeDir(path, at)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			// ENOTDIR: a file above; the walk up names it.
			return &fs.PathError{Op: "mkdir", Path: path, Err: err}
		}
		if _, lerr := os.Lstat(at); lerr == nil {
			// There, but Stat found nothing: a dangling link, which
			// MkdirAll would not follow.
			return &fs.PathError{Op: "mkdir", Path: path, Err: fmt.Errorf("%s is a dangling symbolic link", at)}
		}
		up := filepath.Dir(at)
		if up == at {
			return &fs.PathError{Op: "mkdir", Path: path, Err: errors.New("no existing directory above it")}
		}
		at = up
	}
}

// probeDir makes and removes a temporary file in dir, the directory path
// is or will be under.
func probeDir(path, dir string) error {
	f, err := os.CreateTemp(dir, ".cbcsim-probe*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &fs.PathError{Op: "create", Path: path, Err: err}
	}
	f.Close()
	return os.Remove(f.Name())
}

// Distinct refuses an output that would replace an input of the same
// command, or another of its outputs: the same file through any path or
// link (os.SameFile), or, for paths that do not exist yet, the same
// resolved path. outputs and inputs are file paths; "" and "-" (stdout)
// are skipped.
func Distinct(outputs, inputs []string) error {
	type file struct {
		path, target string
		fi           fs.FileInfo
	}
	load := func(paths []string) []file {
		var files []file
		for _, p := range paths {
			fi, err := os.Stat(p)
			if p == "" || p == "-" || (err == nil && !fi.Mode().IsRegular()) {
				continue // stdout, a device, a FIFO: written through, never replaced
			}
			f := file{path: p, fi: fi}
			f.target, _ = resolve(p)
			if abs, err := filepath.Abs(f.target); err == nil {
				f.target = abs
			}
			files = append(files, f)
		}
		return files
	}
	same := func(a, b file) bool {
		if a.fi != nil && b.fi != nil {
			return os.SameFile(a.fi, b.fi)
		}
		return a.target != "" && a.target == b.target
	}
	outs, ins := load(outputs), load(inputs)
	for i, o := range outs {
		for _, in := range ins {
			if same(o, in) {
				return fmt.Errorf("the output %s is the input %s: writing it would replace what the command reads", o.path, in.path)
			}
		}
		for _, o2 := range outs[:i] {
			if same(o, o2) {
				return fmt.Errorf("the outputs %s and %s are the same file: one would replace the other", o2.path, o.path)
			}
		}
	}
	return nil
}

// MkdirNew makes dir and the directories above it that are missing, as
// os.MkdirAll does, and returns undo, which removes the topmost directory
// it made with everything written under it since. A writer that fails
// half way (a full disk) calls undo, so that no empty or partial
// directory of outputs is left behind; a directory that was there before
// is left as it is.
func MkdirNew(dir string) (undo func(), err error) {
	top := ""
	for at := filepath.Clean(dir); ; {
		if _, err := os.Lstat(at); err == nil {
			break
		}
		top = at
		up := filepath.Dir(at)
		if up == at {
			break
		}
		at = up
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		if top != "" {
			os.RemoveAll(top)
		}
		return func() {}, err
	}
	return func() {
		if top != "" {
			os.RemoveAll(top)
		}
	}, nil
}
