package doccheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Runner runs the commands of a document's blocks, in order, in one
// directory, so that a command may use what an earlier one wrote.
type Runner struct {
	Dir  string   // where the commands run: a copy of the repository
	Path []string // directories put first on PATH (where cbcsim is)
	// Timeout bounds each command; a command past it is a problem.
	Timeout time.Duration
	// Log, when set, gets a line per command run or not run.
	Log func(format string, args ...any)
}

// Problem is a command that did not run as written, or whose output
// differs from the one shown.
type Problem struct {
	File string
	Line int
	Cmd  string
	What string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s\n  %s", p.File, p.Line, p.Cmd, p.What)
}

// DefaultTimeout bounds one documented command.
const DefaultTimeout = 10 * time.Minute

// Run runs every block's commands and returns the problems.
func (r Runner) Run(blocks []Block) []Problem {
	var out []Problem
	status := 0
	for _, b := range blocks {
		for _, c := range b.Cmds {
			if why, skip := b.skipped(c); skip {
				r.logf("%s:%d: not run (%s): %s", b.File, c.Line, why, c.Text)
				continue
			}
			if c.Text == "echo $?" {
				// Each command runs in a shell of its own, so the status
				// shown is the one the previous command exited with.
				if what := Match(c.Want, fmt.Sprint(status)); what != "" {
					out = append(out, Problem{File: b.File, Line: c.Line, Cmd: c.Text, What: what})
				}
				continue
			}
			p, ok := r.one(b.File, c, &status)
			if !ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func (b *Block) skipped(c Cmd) (string, bool) {
	if b.Skip != "" {
		return b.Skip, true
	}
	text, _, _ := strings.Cut(c.Text, " #") // the command without its comment
	text = strings.TrimSpace(text)
	for _, p := range b.NotRun {
		if exact, ok := strings.CutPrefix(p, "="); ok && text == exact || !ok && strings.HasPrefix(text, p) {
			return b.Why, true
		}
	}
	return "", false
}

func (r Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(format, args...)
	}
}

// one runs c with bash in r.Dir and checks its status and output.
func (r Runner) one(file string, c Cmd, status *int) (Problem, bool) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c.Text)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "PATH="+strings.Join(append(r.Path, os.Getenv("PATH")), string(filepath.ListSeparator)))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	*status = cmd.ProcessState.ExitCode()
	r.logf("%s:%d: %s (%.1fs)", file, c.Line, c.Text, time.Since(start).Seconds())
	p := Problem{File: file, Line: c.Line, Cmd: c.Text}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		p.What = fmt.Sprintf("did not end within %s", timeout)
		return p, false
	case errors.As(err, &ee) && ee.ExitCode() == 1 && strings.Contains(c.Text, "cbcsim"):
		// cbcsim's 1 is a finding (a failed check, traces that differ),
		// which a document shows on purpose; any other program's 1 is an
		// error.
	case err != nil:
		p.What = fmt.Sprintf("failed (%v); it printed:\n%s", err, indent(tail(out.String(), 20)))
		return p, false
	}
	if what := Match(c.Want, out.String()); what != "" {
		p.What = what
		return p, false
	}
	return p, true
}

// Match compares the output shown (want) with the output printed (got):
// every shown line, "..." and blank lines aside, must match a printed
// line, in order; "[...]" inside a shown line matches any text. It
// returns "" when they match, or what differs.
func Match(want []string, got string) string {
	gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for i := range gotLines {
		gotLines[i] = strings.TrimRight(gotLines[i], " \t")
	}
	g := 0
	for _, w := range want {
		w = strings.TrimRight(w, " \t")
		if strings.TrimSpace(w) == "" || strings.TrimSpace(w) == "..." {
			continue
		}
		re := lineRegexp(w)
		from := g
		for g < len(gotLines) && !re.MatchString(gotLines[g]) {
			g++
		}
		if g == len(gotLines) {
			return fmt.Sprintf("the output shown has the line\n    %s\nwhich the command did not print (after its line %d); it printed:\n%s", w, from, indent(strings.Join(gotLines, "\n")))
		}
		g++
	}
	return ""
}

// lineRegexp matches a shown line: literal text, with "[...]" for any.
func lineRegexp(w string) *regexp.Regexp {
	parts := strings.Split(w, "[...]")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
