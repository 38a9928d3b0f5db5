package doccheck

import (
	"flag"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	flagRun   = flag.Bool("doccheck", false, "run the commands of README.md and docs/*.md (make doccheck)")
	flagFiles = flag.String("doccheck.files", "", "with -doccheck: only the documents whose path matches this regexp")
)

// root is the repository, two levels up from this package.
const root = "../.."

// TestDocs runs every command that README.md and docs/*.md show, each
// document in a fresh copy of the repository with bin/cbcsim built and
// on PATH (as after make install), and compares the outputs shown.
func TestDocs(t *testing.T) {
	if !*flagRun {
		t.Skip("the documented commands take minutes: make doccheck runs them (go test ./internal/doccheck -doccheck)")
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	bin := filepath.Join(t.TempDir(), "cbcsim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cbcsim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sel := regexp.MustCompile(*flagFiles)
	for _, doc := range docs {
		rel, _ := filepath.Rel(root, doc)
		if !sel.MatchString(rel) {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := Parse(rel, src)
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) == 0 {
				t.Skip("no commands")
			}
			dir := sandbox(t, bin)
			r := Runner{Dir: dir, Path: []string{filepath.Join(dir, "bin")}, Log: t.Logf}
			for _, p := range r.Run(blocks) {
				t.Error(p)
			}
		})
	}
}

// sandbox copies the repository's sources (not .git, bin or the outputs
// .gitignore lists) to a temporary directory and puts the binary at
// bin/cbcsim.
func sandbox(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case ".git", "bin", "repro", "fuzz-out", "explore-out":
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".test") {
			return nil
		}
		return copyFile(path, filepath.Join(dir, rel), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(bin, filepath.Join(dir, "bin", "cbcsim"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err == nil && fi.Mode()&0o111 != 0 {
		mode = 0o755 // scripts stay executable
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func TestParse(t *testing.T) {
	src := "intro\n```sh\nbin/cbcsim run a.toml \\\n  --seed 3   # a comment\n# only a comment\nmake test\n```\n\n" +
		"<!-- doccheck: not-run make bench; not-run =cbcsim bench: minutes -->\n```sh\nmake bench\ncbcsim validate x.toml\ncbcsim bench   # all\ncbcsim bench --quick\n```\n" +
		"```\ncbcsim check FILE|DIR... --seeds N\n```\n" +
		"<!-- doccheck: skip: a Kubernetes job -->\n```\n$ cbcsim diff a b\nline one\n\n...\nrate [...] runs/s\n\n$ echo hi\nhi\n```\n"
	blocks, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("%d blocks, want 3 (the synopsis is not one)", len(blocks))
	}
	if c := blocks[0].Cmds; len(c) != 2 || c[0].Text != "bin/cbcsim run a.toml --seed 3   # a comment" || c[0].Line != 3 || c[1].Text != "make test" || c[1].Line != 6 {
		t.Errorf("sh block: %+v", c)
	}
	b := blocks[1]
	if why, skip := b.skipped(b.Cmds[0]); !skip || why != "minutes" {
		t.Errorf("make bench: skipped %v (%q)", skip, why)
	}
	for i, want := range []bool{true, false, true, false} {
		if _, skip := b.skipped(b.Cmds[i]); skip != want {
			t.Errorf("%q: skipped %v, want %v", b.Cmds[i].Text, skip, want)
		}
	}
	s := blocks[2]
	if s.Skip != "a Kubernetes job" || len(s.Cmds) != 2 || strings.Join(s.Cmds[0].Want, "|") != "line one||...|rate [...] runs/s" || s.Cmds[1].Want[0] != "hi" {
		t.Errorf("session: %+v", s)
	}
	for _, bad := range []string{"<!-- doccheck: skip -->\n```sh\nx\n```\n", "<!-- doccheck: not-run x -->\n```sh\nx\n```\n", "```sh\nx\n"} {
		if _, err := Parse("bad.md", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMatch(t *testing.T) {
	got := "header\nruns: 12 in 0.3s\nmiddle\nFAIL: 2 of 12\n"
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"header", "...", "FAIL: 2 of 12"}, true},
		{[]string{"runs: 12 in [...]s", "FAIL: 2 of 12"}, true},
		{[]string{"FAIL: 2 of 12", "header"}, false}, // order counts
		{[]string{"FAIL: 3 of 12"}, false},
		{[]string{"runs: 12 in 0.4s"}, false},
		{nil, true},
	} {
		if got := Match(c.want, got) == ""; got != c.ok {
			t.Errorf("Match(%q): %v, want %v", c.want, got, c.ok)
		}
	}
}
