package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
)

// BuildCbcsim builds cmd/cbcsim, with the build tags given ("" for
// none), into a fresh directory and returns the binary's path; the caller
// removes filepath.Dir(path) when done.
//
// A link of the whole tool costs most of a second of CPU, and several
// test packages run the binary; so the build goes to a directory kept
// between test runs (under os.TempDir, one per checkout and tag set),
// where go build leaves an up-to-date binary as it is and links again
// only when a source changed. The caller gets a hard link to it (a copy
// where a link is not possible), so that a later build, which replaces
// the file with a new one, never changes a binary a test runs; a lock
// file keeps two test processes from building the same binary at once.
func BuildCbcsim(tags string) (string, error) {
	cache := buildCache()
	name := "cbcsim"
	args := []string{"build"}
	if tags != "" {
		name += "-" + tags
		args = append(args, "-tags", tags)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(cache, name+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close() // closing releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("locking %s: %w", lock.Name(), err)
	}
	shared := filepath.Join(cache, name)
	build := exec.Command(goCommand(), append(args, "-o", shared, "github.com/cbcsim/cbcsim/cmd/cbcsim")...)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cbcsim %v: %v\n%s", args[1:], err, out)
	}
	dir, err := os.MkdirTemp("", "cbcsim-test-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "cbcsim")
	if err := os.Link(shared, bin); err != nil {
		if err := copyFile(bin, shared); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return bin, nil
}

// buildCache is the directory that keeps the built binaries of this
// checkout: named by the module's root, which this file's path gives.
func buildCache() string {
	_, file, _, _ := runtime.Caller(0)
	sum := sha256.Sum256([]byte(filepath.Dir(file)))
	return filepath.Join(os.TempDir(), "cbcsim-test-bin-"+hex.EncodeToString(sum[:6]))
}

// goCommand is the go command on PATH, or where this project's machines
// have it.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
