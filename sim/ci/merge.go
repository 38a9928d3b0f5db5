package ci

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
)

// Input is one report to merge and the file it was read from, which
// names it in errors.
type Input struct {
	File   string
	Report *Report
}

// ReadFiles reads every report; the first error ends it. Together they
// may hold at most mergeInputMax bytes, checked before any is read.
func ReadFiles(paths []string) ([]Input, error) {
	var total int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if total += fi.Size(); total > mergeInputMax {
				return nil, fmt.Errorf("%s: the reports up to this one hold %d bytes, past the %d MiB one merge reads", p, total, mergeInputMax>>20)
			}
		}
	}
	var in []Input
	for _, p := range paths {
		r, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		in = append(in, Input{File: p, Report: r})
	}
	return in, nil
}

// Merge combines the reports of shards of one sweep into one report with
// the same fields: the counts summed, the cases of the same scenario and
// worker count summed, the failures of the same kind folded to the
// smallest failing seed with their counts summed. Merging every shard of
// a check gives the report of the unsharded check.
//
// It refuses, naming the files, reports of different sweeps (another
// subcommand, other scenarios or hashes, seeds, worker counts,
// strategy), reports with different shard counts, an unsharded report
// beside any other, and a shard that two reports cover.
func Merge(in []Input) (*Report, error) {
	if len(in) == 0 {
		return nil, errors.New("no reports to merge")
	}
	first := in[0]
	out := &Report{Format: Format, Sweep: first.Report.Sweep, ShardCount: first.Report.ShardCount}
	owner := map[int]string{} // shard → the file that covers it
	cases := map[[2]string]*Case{}
	kinds := map[[3]string]*Failure{}
	for _, p := range in {
		r := p.Report
		if err := sameSweep(first, p); err != nil {
			return nil, err
		}
		if err := claimShards(first, p, owner); err != nil {
			return nil, err
		}
		if out.Runs+r.Runs > RunsMax {
			return nil, fmt.Errorf("%s: the runs summed pass %d", p.File, int64(RunsMax))
		}
		out.Runs += r.Runs // each at most RunsMax (validate): no overflow
		out.Failed += r.Failed
		out.Nondeterminism += r.Nondeterminism
		out.Interrupted = out.Interrupted || r.Interrupted
		for _, c := range r.Cases {
			key := [2]string{c.Suite, c.Name}
			if have := cases[key]; have != nil {
				have.Runs += c.Runs
				have.Failed += c.Failed
				continue
			}
			c := c
			cases[key] = &c
		}
		for _, f := range r.Failures {
			key := [3]string{f.Suite, f.Case, f.Kind}
			have := kinds[key]
			switch {
			case have == nil:
				f := f
				kinds[key] = &f
			case f.Seed < have.Seed:
				f.Count += have.Count
				*have = f
			default:
				have.Count += f.Count
			}
		}
	}
	for k := range owner {
		if k == 0 {
			continue // the unsharded report
		}
		out.Shards = append(out.Shards, k)
	}
	sort.Ints(out.Shards)
	for _, c := range cases {
		out.Cases = append(out.Cases, *c)
	}
	for _, f := range kinds {
		out.Failures = append(out.Failures, *f)
	}
	out.Sort()
	return out, nil
}

// sameSweep compares p's sweep with first's, field by field, and names
// the first field that differs.
func sameSweep(first, p Input) error {
	a, b := reflect.ValueOf(first.Report.Sweep), reflect.ValueOf(p.Report.Sweep)
	t := a.Type()
	for i := range t.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			return fmt.Errorf("%s: not a shard of the sweep of %s: sweep.%s is %v there, %v here",
				p.File, first.File, name, a.Field(i).Interface(), b.Field(i).Interface())
		}
	}
	return nil
}

// claimShards records the shards p covers and refuses one already covered.
func claimShards(first, p Input, owner map[int]string) error {
	r := p.Report
	switch {
	case r.ShardCount == 0 && len(owner) > 0, r.ShardCount == 0 && p.File != first.File:
		return fmt.Errorf("%s: an unsharded report covers every run, so it overlaps %s", p.File, first.File)
	case r.ShardCount == 0:
		owner[0] = p.File
		return nil
	case owner[0] != "":
		return fmt.Errorf("%s: overlaps %s, an unsharded report of every run", p.File, owner[0])
	case r.ShardCount != first.Report.ShardCount:
		return fmt.Errorf("%s: shards of %d, but %s has shards of %d", p.File, r.ShardCount, first.File, first.Report.ShardCount)
	}
	for _, k := range r.Shards {
		if f, ok := owner[k]; ok {
			return fmt.Errorf("%s: shard %d/%d is also in %s: merging would count its runs twice", p.File, k, r.ShardCount, f)
		}
		owner[k] = p.File
	}
	return nil
}
