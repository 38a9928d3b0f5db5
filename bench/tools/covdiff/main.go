// Command covdiff compares two coverage profiles in the text format of
// `go tool covdata textfmt`: it prints the statements of package sched
// (its top-level files, less the real driver's own: real.go, yield_*.go,
// blocking.go) that the first profile executed and the second never did,
// by file and then block by block (bench/tools/coverage.sh).
//
// usage: covdiff REAL.txt SEEDED.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// block is one line of a profile: a file's range and its statements.
type block struct {
	file, span string
	stmts      int
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: covdiff REAL.txt SEEDED.txt")
		os.Exit(2)
	}
	real, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "covdiff:", err)
		os.Exit(2)
	}
	seeded, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "covdiff:", err)
		os.Exit(2)
	}
	total, missed := 0, 0
	byFile := map[string]int{}
	var unreached []block
	for b, n := range real {
		if n == 0 || !counted(b.file) {
			continue
		}
		total += b.stmts
		if seeded[b] == 0 {
			missed += b.stmts
			byFile[path.Base(b.file)] += b.stmts
			unreached = append(unreached, b)
		}
	}
	fmt.Printf("real-run sched statements: %d; unreached by seeded runs: %d (%.1f%%)\n", total, missed, 100*float64(missed)/float64(max(total, 1)))
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		return byFile[files[i]] > byFile[files[j]] || byFile[files[i]] == byFile[files[j]] && files[i] < files[j]
	})
	for _, f := range files {
		fmt.Printf("  %-16s %d\n", f, byFile[f])
	}
	sort.Slice(unreached, func(i, j int) bool {
		if unreached[i].file != unreached[j].file {
			return unreached[i].file < unreached[j].file
		}
		return lineOf(unreached[i].span) < lineOf(unreached[j].span)
	})
	for _, b := range unreached {
		fmt.Printf("%s:%s (%d)\n", path.Base(b.file), b.span, b.stmts)
	}
}

// counted reports whether file is one of sched's own, outside the real
// driver's files.
func counted(file string) bool {
	dir, base := path.Split(file)
	if !strings.HasSuffix(dir, "/sched/") || strings.HasSuffix(base, "_test.go") {
		return false
	}
	return base != "real.go" && base != "blocking.go" && !strings.HasPrefix(base, "yield_")
}

// load reads a textfmt profile: the count of each block, summed over
// repeated lines.
func load(name string) (map[block]int, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[block]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", name, line)
		}
		stmts, err1 := strconv.Atoi(fields[1])
		count, err2 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", name, line)
		}
		out[block{file: line[:colon], span: fields[0], stmts: stmts}] += count
	}
	return out, sc.Err()
}

// lineOf is the first line of a span "L.C,L.C".
func lineOf(span string) int {
	n, _ := strconv.Atoi(span[:strings.IndexByte(span, '.')])
	return n
}
