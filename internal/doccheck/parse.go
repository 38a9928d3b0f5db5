package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Block is one fenced block that holds commands.
type Block struct {
	File string
	Line int // the 1-based line of the opening fence
	// Skip is why the whole block is not run ("" runs it).
	Skip string
	// NotRun lists command prefixes that are not run, with Why.
	NotRun []string
	Why    string
	Cmds   []Cmd
}

// Cmd is one command of a block and the output shown for it.
type Cmd struct {
	Line int    // the 1-based line of the command
	Text string // the command, continuation lines joined
	// Want is the output the document shows (a session's lines after
	// the command); nil when it shows none.
	Want []string
}

// Parse finds the blocks of a Markdown document that hold commands.
func Parse(file string, src []byte) ([]Block, error) {
	var blocks []Block
	var directive string
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		trimmed := strings.TrimSpace(text)
		if d, ok := directiveOf(trimmed); ok {
			directive = d
			continue
		}
		fence, info, ok := fenceOf(trimmed)
		if !ok {
			if trimmed != "" {
				directive = "" // a directive applies to the block right after it
			}
			continue
		}
		start := line
		var body []string
		closed := false
		for sc.Scan() {
			line++
			if t := strings.TrimSpace(sc.Text()); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				closed = true
				break
			}
			body = append(body, sc.Text())
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the fenced block is not closed", file, start)
		}
		b, ok, err := block(file, start, info, body, directive)
		if err != nil {
			return nil, err
		}
		if ok {
			blocks = append(blocks, b)
		}
		directive = ""
	}
	return blocks, sc.Err()
}

// directiveOf returns the text of a "<!-- doccheck: ... -->" comment.
func directiveOf(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "<!-- doccheck:")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, "-->")
	return strings.TrimSpace(rest), ok
}

// fenceOf recognises an opening fence: ``` or ~~~ (three or more) and
// its info string.
func fenceOf(line string) (fence, info string, ok bool) {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(line, c+c+c) {
			n := len(line) - len(strings.TrimLeft(line, c))
			return line[:n], strings.TrimSpace(line[n:]), true
		}
	}
	return "", "", false
}

// block makes a Block of a fenced block's body when it holds commands.
func block(file string, start int, info string, body []string, directive string) (Block, bool, error) {
	b := Block{File: file, Line: start}
	if err := b.apply(directive); err != nil {
		return b, false, fmt.Errorf("%s:%d: %w", file, start-1, err)
	}
	lang, _, _ := strings.Cut(info, " ")
	session := false
	for _, l := range body {
		session = session || strings.HasPrefix(strings.TrimSpace(l), "$ ")
	}
	switch {
	case session:
		b.Cmds = sessionCmds(start, body)
	case lang == "sh" || lang == "bash" || lang == "shell":
		b.Cmds = scriptCmds(start, body)
	default:
		return b, false, nil
	}
	return b, len(b.Cmds) > 0, nil
}

// apply reads a directive: "skip: REASON", or "not-run PREFIX; not-run
// PREFIX: REASON".
func (b *Block) apply(d string) error {
	if d == "" {
		return nil
	}
	if reason, ok := strings.CutPrefix(d, "skip"); ok {
		b.Skip = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reason), ":"))
		if b.Skip == "" {
			return fmt.Errorf("doccheck: skip needs a reason (skip: REASON)")
		}
		return nil
	}
	items, why, ok := strings.Cut(d, ":")
	if !ok || strings.TrimSpace(why) == "" {
		return fmt.Errorf("doccheck: %q: want skip: REASON or not-run PREFIX; ...: REASON", d)
	}
	b.Why = strings.TrimSpace(why)
	for _, it := range strings.Split(items, ";") {
		p, ok := strings.CutPrefix(strings.TrimSpace(it), "not-run ")
		if !ok || strings.TrimSpace(p) == "" {
			return fmt.Errorf("doccheck: %q: want not-run PREFIX", it)
		}
		b.NotRun = append(b.NotRun, strings.TrimSpace(p))
	}
	return nil
}

// scriptCmds reads a sh block: a command per line, # comments dropped.
func scriptCmds(start int, body []string) []Cmd {
	var cmds []Cmd
	var cur *Cmd
	for i, l := range body {
		t := strings.TrimSpace(l)
		if cur == nil {
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cmds = append(cmds, Cmd{Line: start + 1 + i})
			cur = &cmds[len(cmds)-1]
		}
		cont := strings.HasSuffix(t, "\\")
		cur.Text = strings.TrimSpace(cur.Text + " " + strings.TrimSuffix(t, "\\"))
		if !cont {
			cur = nil
		}
	}
	return cmds
}

// sessionCmds reads a session: "$ " lines are commands, the lines up to
// the next one their output.
func sessionCmds(start int, body []string) []Cmd {
	var cmds []Cmd
	cont := false
	for i, l := range body {
		t := strings.TrimSpace(l)
		switch {
		case cont:
			c := &cmds[len(cmds)-1]
			c.Text = strings.TrimSpace(c.Text + " " + strings.TrimSuffix(t, "\\"))
			cont = strings.HasSuffix(t, "\\")
		case strings.HasPrefix(t, "$ "):
			cmds = append(cmds, Cmd{Line: start + 1 + i, Text: strings.TrimSpace(strings.TrimSuffix(t[2:], "\\"))})
			cont = strings.HasSuffix(t, "\\")
		case len(cmds) > 0:
			c := &cmds[len(cmds)-1]
			c.Want = append(c.Want, strings.TrimRight(l, " \t"))
		}
	}
	for i := range cmds {
		cmds[i].Want = trimBlank(cmds[i].Want)
	}
	return cmds
}

// trimBlank drops the blank lines at the end of an output.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
