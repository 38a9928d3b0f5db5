// Command handoff measures the rejected carrier design of docs/c-abi.md: a
// worker goroutine hands a run permit to a carrier goroutine locked to its
// own OS thread (as a C task in a cgo call would be) and waits for it back.
// One C yield under that design is one such round trip.
//
//	go run ./cabi/testdata/handoff
package main

import (
	"fmt"
	"runtime"
	"time"
)

func main() {
	const n = 20000
	for round := 0; round < 3; round++ {
		permit, back := make(chan struct{}), make(chan struct{})
		go func() {
			runtime.LockOSThread()
			for range permit {
				back <- struct{}{}
			}
		}()
		runtime.LockOSThread()
		for i := 0; i < 1000; i++ {
			permit <- struct{}{}
			<-back
		}
		t0 := time.Now()
		for i := 0; i < n; i++ {
			permit <- struct{}{}
			<-back
		}
		fmt.Printf("round trip worker -> locked carrier -> worker: %v\n", time.Since(t0)/n)
		close(permit)
		runtime.UnlockOSThread()
	}
}
