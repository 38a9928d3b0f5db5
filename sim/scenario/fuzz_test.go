package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// FuzzLoad: whatever the bytes, Parse returns a *LoadError or a scenario
// whose references all resolve, never panics, and gives the same answer
// twice. Seeded with every bundled scenario and every test file.
//
//	go test -run '^$' -fuzz FuzzLoad -fuzztime 60s ./sim/scenario/
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("..", "..", "scenarios", "*.toml"),
		filepath.Join("testdata", "bad", "*.toml"),
		filepath.Join("testdata", "good", "*.toml"),
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse("fuzz.toml", src)
		_, err2 := Parse("fuzz.toml", src)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "fuzz.toml" || le.Msg == "" || le.Line < 0 || le.Col < 0 {
				t.Fatalf("bad error %T %#v", err, err)
			}
			return
		}
		checkWellFormed(t, s, src)
	})
}

// checkWellFormed asserts what Load promises its callers about a scenario.
func checkWellFormed(t *testing.T, s *Scenario, src []byte) {
	t.Helper()
	sum := sha256.Sum256(src)
	if s.SHA256 != hex.EncodeToString(sum[:]) || string(s.Source) != string(src) {
		t.Fatalf("Source/SHA256 do not match the input")
	}
	if s.Tasks["main"] == nil || len(s.TaskNames) != len(s.Tasks) || !sort.StringsAreSorted(s.TaskNames) {
		t.Fatalf("tasks: %v", s.TaskNames)
	}
	channels := map[string]bool{}
	for i, c := range s.Channels {
		if i > 0 && s.Channels[i-1].Name >= c.Name || c.Capacity < 0 {
			t.Fatalf("channels: %+v", s.Channels)
		}
		channels[c.Name] = true
	}
	sc := s.Scheduler
	if sc.Workers < 0 || sc.Workers > maxWorkers || sc.YieldInterval < 1 || sc.MaxSteps < 1 {
		t.Fatalf("scheduler: %+v", sc)
	}
	var walk func(ops []Op, depth int)
	walk = func(ops []Op, depth int) {
		if depth > maxBodyDepth+1 {
			t.Fatalf("bodies nested %d deep", depth)
		}
		for _, op := range ops {
			switch op.Kind {
			case Call, Spawn:
				if s.Tasks[op.Str] == nil {
					t.Fatalf("%s: unknown task %q", op.Path, op.Str)
				}
			case Send, Recv, Close:
				if !channels[op.Str] {
					t.Fatalf("%s: unknown channel %q", op.Path, op.Str)
				}
			case Compute, Sleep, Alloc, Syscall:
				if op.N < 0 {
					t.Fatalf("%s: negative %d", op.Path, op.N)
				}
			case Loop:
				if op.N < LoopForever {
					t.Fatalf("%s: loop %d", op.Path, op.N)
				}
			case Nursery:
				if op.Mode == "" || op.MaxConcurrent < 0 || op.HasTimeout && op.Timeout < 1 {
					t.Fatalf("%s: nursery %+v", op.Path, op)
				}
			case 0:
				t.Fatalf("%s: no kind", op.Path)
			}
			if op.Path == "" {
				t.Fatalf("op without a path: %+v", op)
			}
			walk(op.Body, depth+1)
		}
	}
	for _, name := range s.TaskNames {
		walk(s.Tasks[name].Ops, 0)
	}
	if x := s.Expect; x != nil {
		if len(x.NurseryLabels) != len(x.Nursery) || !sort.StringsAreSorted(x.NurseryLabels) {
			t.Fatalf("expect labels: %v", x.NurseryLabels)
		}
	}
}
