//go:build cgo

// Command cabi is the C ABI of the scheduler: built with
// -buildmode=c-shared (make cabi) it is bin/libjanus_sched.so, whose
// janus_* functions are declared by the hand-written header janus_sched.h.
//
// It is thin: janus.c holds every janus_* function and switches between C
// task stacks; the Go half translates C values and calls package sched.
// Each C task is a sched task whose body is a carrier (carrier.go): it
// resumes the C task with one cgo call, which returns at the task's next
// janus_* call, answers that request with the sched API (Yield, Nursery,
// Nursery.Go, Budget, ...), and resumes it again. No Go code runs on a C
// task's stack and no fiber switch happens inside a cgo call, which is
// what makes the design safe; docs/c-abi.md argues it in full and gives the
// costs.
//
// A C program uses it as:
//
//	void *s = janus_scheduler_create(cfg);
//	janus_scheduler_spawn((void *)main_task, arg); // a top-level task
//	janus_scheduler_shutdown(s);                   // waits for every top-level task
package main

// main is required by -buildmode=c-shared and never runs.
func main() {}
