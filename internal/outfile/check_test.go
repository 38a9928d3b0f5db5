package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// Check refuses what Create would, before any work, and leaves the
// directory as it was; a FIFO without a reader is not opened.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return dir + "/" + name } // keeps a trailing slash
	os.Mkdir(p("d"), 0o755)
	os.Symlink("missing/x", p("dangling"))
	os.Symlink("loop2", p("loop1"))
	os.Symlink("loop1", p("loop2"))
	os.Symlink("new.json", p("ok-link"))
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkEach(t, dir, "Check", Check, map[string]bool{"new.json": true, "ok-link": true, "fifo": true,
		"d": false, "missing/x": false, "dangling": false, "loop1": false, "x/": false})
}

// checkEach calls check on each path under dir, wants it to succeed or
// not as ok says, and the directory left as it was.
func checkEach(t *testing.T, dir, name string, check func(string) error, ok map[string]bool) {
	t.Helper()
	before := entries(t, dir)
	for path, wantOK := range ok {
		if err := check(dir + "/" + path); (err == nil) != wantOK {
			t.Errorf("%s(%s) = %v, want ok %v", name, path, err, wantOK)
		}
	}
	if after := entries(t, dir); !slices.Equal(before, after) {
		t.Errorf("%s left %v, was %v", name, after, before)
	}
}

// CheckDir accepts a directory or a path under one and creates nothing;
// a regular file on the way is refused.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(p("file"), []byte("x"), 0o644)
	os.Mkdir(p("d"), 0o755)
	os.Symlink("file", p("link-to-file"))
	os.Symlink("missing/x", p("dangling"))
	os.Symlink("loop2", p("loop1"))
	os.Symlink("loop1", p("loop2"))
	checkEach(t, dir, "CheckDir", CheckDir, map[string]bool{"d": true, "new/deeper": true, "d/x": true,
		"file": false, "file/x": false, "link-to-file": false, "loop1": false, "dangling": false, "dangling/x": false})
}

// Distinct finds an output that is an input, through a link or another
// spelling, and two outputs that are one file, existing or not.
func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(p("s.toml"), []byte("x"), 0o644)
	os.Symlink("s.toml", p("link"))
	for _, c := range []struct {
		outs, ins []string
		want      string
	}{
		{[]string{p("s.toml")}, []string{p("s.toml")}, "is the input"},
		{[]string{p("link")}, []string{p("s.toml")}, "is the input"},
		{[]string{dir + "/./s.toml"}, []string{p("s.toml")}, "is the input"},
		{[]string{p("r.json"), p("r.json")}, nil, "are the same file"},
		{[]string{p("r.json"), p("r.xml")}, []string{p("s.toml")}, ""},
		{[]string{"/dev/null", "/dev/null", "-", "-"}, nil, ""},
	} {
		err := Distinct(c.outs, c.ins)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Distinct(%v, %v) = %v, want %q", c.outs, c.ins, err, c.want)
		}
	}
}

// MkdirNew's undo removes what it made, and only that.
func TestMkdirNew(t *testing.T) {
	dir := t.TempDir()
	undo, err := MkdirNew(filepath.Join(dir, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a", "b", "c", "partial"), []byte("x"), 0o644)
	undo()
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("undo left %v", got)
	}
	os.Mkdir(filepath.Join(dir, "kept"), 0o755)
	os.WriteFile(filepath.Join(dir, "kept", "old"), []byte("x"), 0o644)
	undo, err = MkdirNew(filepath.Join(dir, "kept", "new"))
	if err != nil {
		t.Fatal(err)
	}
	undo()
	if got := entries(t, filepath.Join(dir, "kept")); !slices.Equal(got, []string{"old"}) {
		t.Errorf("undo under an existing directory left %v, want [old]", got)
	}
	if _, err := MkdirNew(filepath.Join(dir, "kept", "old", "x")); err == nil {
		t.Error("MkdirNew under a regular file succeeded")
	}
	if got := entries(t, filepath.Join(dir, "kept")); !slices.Equal(got, []string{"old"}) {
		t.Errorf("a failed MkdirNew left %v", got)
	}
}
