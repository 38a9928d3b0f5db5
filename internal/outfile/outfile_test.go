package outfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, text string) error {
	t.Helper()
	return WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
}

// entries lists dir, to catch a temporary file left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestNewFileMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.trace")
	if err := write(t, path, "x\n"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fs.FileMode(0o644) &^ umask; fi.Mode().Perm() != want {
		t.Fatalf("new file mode %v, want %v (it was 0600)", fi.Mode().Perm(), want)
	}
}

func TestExistingFileKeepsMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o644, 0o600, 0o664} {
		path := filepath.Join(dir, "old.trace")
		if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := write(t, path, "new\n"); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		data, _ := os.ReadFile(path)
		if fi.Mode().Perm() != mode || string(data) != "new\n" {
			t.Fatalf("mode %v content %q, want %v and the new content", fi.Mode().Perm(), data, mode)
		}
	}
}

// A symlink stays a symlink, and its target gets the output (the rename
// once replaced the link with a regular file).
func TestSymlinkWrittenThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "real.trace")
	os.Mkdir(filepath.Dir(target), 0o755)
	link := filepath.Join(dir, "link.trace")
	if err := os.Symlink("sub/real.trace", link); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first\n", "second\n"} { // dangling, then not
		if err := write(t, link, text); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symlink: %v %v", link, fi.Mode(), err)
		}
		if data, _ := os.ReadFile(target); string(data) != text {
			t.Fatalf("target holds %q, want %q", data, text)
		}
	}
	if got := entries(t, filepath.Join(dir, "sub")); len(got) != 1 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestSymlinkLoopRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := write(t, a, "x"); err == nil {
		t.Fatal("a symlink loop was accepted")
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Fatalf("left behind: %v", got)
	}
}

// A FIFO is written through, not replaced by a regular file.
func TestFIFOWrittenThrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		data, _ := os.ReadFile(fifo)
		got <- string(data)
	}()
	if err := write(t, fifo, "through\n"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through\n" {
		t.Fatalf("the reader got %q", s)
	}
	fi, _ := os.Lstat(fifo)
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO became %v", fi.Mode())
	}
}

func TestDevNull(t *testing.T) {
	t.Parallel()
	if err := write(t, os.DevNull, "gone\n"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s: %v %v", os.DevNull, fi.Mode(), err)
	}
}

func TestDirectoryRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := write(t, dir, "x"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("got %v, want a refusal", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

// A rename that fails (the path became a directory while the file was
// written) leaves no temporary file; so does a failed fill.
func TestFailedCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	o, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "x")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "keep"), nil, 0o644) // a non-empty directory: the rename fails
	if err := o.Commit(); err == nil {
		t.Fatal("the rename over a directory succeeded")
	}
	o.Abort() // after Commit: a no-op
	if got := entries(t, dir); len(got) != 1 || got[0] != "out" {
		t.Fatalf("left behind: %v", got)
	}
	if err := WriteFile(filepath.Join(dir, "other"), func(io.Writer) error { return io.ErrUnexpectedEOF }); err != io.ErrUnexpectedEOF {
		t.Fatalf("fill error: %v", err)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Fatalf("left behind: %v", got)
	}
}

// removeTemps (what a signal runs) removes every file in flight: those of
// every test, so this one does not run in parallel with the others.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		o, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer o.Abort()
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Fatalf("want two temporary files, got %v", got)
	}
	removeTemps()
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}
