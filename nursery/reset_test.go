package nursery

import (
	"fmt"
	"reflect"
	"testing"
)

// TestResetIsNew checks that Reset, which writes field by field, leaves a
// used nursery indistinguishable from New's: every field, recursively,
// with slices compared by length (Reset keeps their memory).
func TestResetIsNew(t *testing.T) {
	t.Parallel()
	cfgs := []Config{
		{Mode: CancelRemaining, MaxConcurrent: 1},
		{Mode: CollectAll, Lean: true, ChildSpawns: true},
		{},
	}
	for _, used := range cfgs {
		for _, cfg := range cfgs {
			n := New(used)
			dirty(t, n)
			n.Reset(cfg)
			if got, want := shape(reflect.ValueOf(*n)), shape(reflect.ValueOf(*New(cfg))); got != want {
				t.Errorf("Reset(%+v) after a run under %+v:\n got %s\nwant %s", cfg, used, got, want)
			}
		}
	}
}

// TestResetKeepsConfig: Reset, which copies the configuration field by
// field, copies every field (one added to Config and not to Reset fails
// here: it stays zero).
func TestResetKeepsConfig(t *testing.T) {
	t.Parallel()
	var cfg Config
	v := reflect.ValueOf(&cfg).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(2)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(2)
		default:
			t.Fatalf("Config.%s: a %s, which this test does not set", v.Type().Field(i).Name, f.Kind())
		}
	}
	n := New(Config{})
	n.Reset(cfg)
	want := cfg
	want.Lean = false // MaxConcurrent 2: not lean (Reset's rule)
	if got := n.Config(); got != want {
		t.Fatalf("Reset(%+v) kept %+v, want %+v", cfg, got, want)
	}
}

// dirty moves n through spawns, a failure, a cancellation and its end, so
// that every field holds something other than its zero value.
func dirty(t *testing.T, n *Nursery) {
	var cs []Child
	for range 4 {
		c, admit, err := n.Spawn(nil)
		if err != nil {
			t.Fatal(err)
		}
		if admit == AdmitRun {
			cs = append(cs, c)
		}
	}
	if err := n.Complete(cs[0], Err("boom"), nil); err != nil {
		t.Fatal(err)
	}
	n.Cancel(ExplicitCancel, nil)
	if err := n.Close(nil); err != nil {
		t.Fatal(err)
	}
	if n.State() == Open || n.Len() == 0 {
		t.Fatalf("dirty left the nursery %v with %d children", n.State(), n.Len())
	}
}

// shape prints v's fields recursively, a slice by its length.
func shape(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Struct:
		s := "{"
		for i := range v.NumField() {
			s += v.Type().Field(i).Name + ":" + shape(v.Field(i)) + " "
		}
		return s + "}"
	case reflect.Slice:
		return fmt.Sprintf("len%d", v.Len())
	case reflect.Pointer, reflect.Map:
		return fmt.Sprintf("nil=%v", v.IsNil())
	case reflect.Bool:
		return fmt.Sprint(v.Bool())
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprint(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprint(v.Uint())
	}
	return "?" + v.Kind().String()
}
