package sim

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cbcsim/cbcsim/sim/scenario"
	"github.com/cbcsim/cbcsim/trace"
)

// TestTablesFromEvents: the task and nursery tables built from the event
// stream equal the ones read from the kept tasks, for every bundled
// scenario on a few seeds and worker counts. It is what lets the seeded
// driver keep no task (driver.Seeded) and still print its tables.
func TestTablesFromEvents(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../scenarios/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3} {
			for seed := uint64(1); seed <= 3; seed++ {
				name := fmt.Sprintf("%s/w%d/s%d", filepath.Base(f), workers, seed)
				c, err := Resolve(sc, Options{Seed: seed, HasSeed: true, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				kept, err := Execute(sc, c, Options{Trace: &buf})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				tab := newTables()
				if _, err := trace.ParseEach(&buf, func(e *trace.Event, _ int) error { tab.add(e); return nil }); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := &Run{}
				tab.fill(got)
				if !reflect.DeepEqual(got.Tasks, kept.Tasks) {
					t.Errorf("%s: task table from events\n%+v\nwant (kept tasks)\n%+v", name, got.Tasks, kept.Tasks)
				}
				if st := tab.stuck(); !reflect.DeepEqual(st, kept.Stuck) {
					t.Errorf("%s: stuck tasks from events %q, want (kept tasks) %q", name, st, kept.Stuck)
				}
				if !reflect.DeepEqual(got.Nurseries, kept.Nurseries) {
					t.Errorf("%s: nursery table from events\n%+v\nwant (kept tasks)\n%+v", name, got.Nurseries, kept.Nurseries)
				}
			}
		}
	}
}
