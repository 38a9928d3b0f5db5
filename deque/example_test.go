package deque_test

import (
	"fmt"

	"github.com/cbcsim/cbcsim/deque"
)

type task struct{ name string }

// The owner pushes and pops at the bottom (LIFO); a thief steals from the
// top (FIFO).
func Example() {
	q := deque.New[task](8)
	for _, name := range []string{"a", "b", "c"} {
		q.Push(&task{name})
	}
	fmt.Println("pop:", q.Pop().name)     // owner: newest first
	fmt.Println("steal:", q.Steal().name) // thief: oldest first
	fmt.Println("len:", q.Len())
	// Output:
	// pop: c
	// steal: a
	// len: 1
}
