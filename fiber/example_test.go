package fiber_test

import (
	"fmt"

	"github.com/cbcsim/cbcsim/fiber"
)

// waitingForChild stands in for a Reason the scheduler would define.
const waitingForChild fiber.Reason = 1

func ExampleFiber() {
	f := fiber.New(fiber.BodyFunc(func(f *fiber.Fiber) {
		fmt.Println("body: start")
		f.Yield(waitingForChild)
		fmt.Println("body: resumed")
	}))
	defer f.Close()
	for {
		reason, status := f.Resume()
		fmt.Println("owner:", reason, status)
		if status != fiber.Suspended {
			break
		}
	}
	// Output:
	// body: start
	// owner: 1 Suspended
	// body: resumed
	// owner: 0 Done
}

func ExamplePool() {
	pool := fiber.NewPool(0)
	defer pool.Close()
	task := fiber.BodyFunc(func(*fiber.Fiber) { panic("task failed") })
	f := pool.Get(task)
	_, status := f.Resume()
	fmt.Println(status, f.Panic())
	pool.Put(f) // a panicked fiber is finished and can be reused
	g := pool.Get(fiber.BodyFunc(func(*fiber.Fiber) {}))
	_, status = g.Resume()
	fmt.Println(status, g == f)
	pool.Put(g)
	// Output:
	// Panicked panic: task failed
	// Done true
}
