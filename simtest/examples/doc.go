// Package examples holds small Go programs written against package sched,
// each with a classic concurrency bug and its fixed version, as bodies for
// simtest.Check. simtest's tests check that Check catches every bug and
// passes every fix; docs/simtest.md walks through them.
//
//	simtest.Check(t, examples.LockOrder(false)) // fails: deadlock
//	simtest.Check(t, examples.LockOrder(true))  // passes
package examples
