package chunk

import (
	"testing"

	"pgregory.net/rapid"
)

// TestListMatchesSlice: a List behaves like a slice under appends, writes
// through At, Reset and AppendTo, across chunk boundaries.
func TestListMatchesSlice(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var l List[int]
		var model []int
		t.Repeat(map[string]func(*rapid.T){
			"append": func(t *rapid.T) {
				n := rapid.IntRange(1, 600).Draw(t, "n")
				for k := 0; k < n; k++ {
					v := rapid.Int().Draw(t, "v")
					if i := l.Append(v); i != len(model) {
						t.Fatalf("Append returned %d, want %d", i, len(model))
					}
					model = append(model, v)
				}
			},
			"set": func(t *rapid.T) {
				if len(model) == 0 {
					t.Skip("empty")
				}
				i := rapid.IntRange(0, len(model)-1).Draw(t, "i")
				v := rapid.Int().Draw(t, "v")
				*l.At(i) = v
				model[i] = v
			},
			"reset": func(t *rapid.T) {
				l.Reset()
				model = model[:0]
			},
			"": func(t *rapid.T) {
				if l.Len() != len(model) {
					t.Fatalf("Len = %d, want %d", l.Len(), len(model))
				}
				got := l.AppendTo(nil)
				for i, v := range model {
					if got[i] != v || *l.At(i) != v {
						t.Fatalf("element %d = %d / %d, want %d", i, got[i], *l.At(i), v)
					}
				}
			},
		})
	})
}

func TestAtOutOfRangePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("At past the end did not panic")
		}
	}()
	var l List[int]
	l.Append(1)
	l.At(1)
}
