//go:build cgo

package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// TestCodeOf pins the mapping of docs/c-abi.md's error table, wrapped
// errors included (errors.Is and errors.As see through them).
func TestCodeOf(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("while spawning: %w", err) }
	for _, c := range []struct {
		err  error
		want int32
	}{
		{nil, codeOK},
		{&sched.CancelError{Reason: nursery.SiblingFailed}, codeCancelled},
		{wrap(&sched.CancelError{Reason: nursery.Timeout}), codeCancelled},
		{&sched.SchedError{Code: sched.CodeSpawnBudgetExhausted, Detail: "nursery n"}, codeSpawnBudgetExhausted},
		{&sched.SchedError{Code: sched.CodeCapabilityDenied}, codeCapabilityDenied},
		{wrap(&sched.SchedError{Code: sched.CodeResourceExhausted, Detail: "ops exhausted"}), codeResourceExhausted},
		{errNoStack, codeResourceExhausted},
		{&codeError{code: 42}, 42},
		{&codeError{code: 1 << 40}, 1<<31 - 1},
		{errors.New("something else"), codeInvalid},
	} {
		if got := codeOf(c.err); got != c.want {
			t.Errorf("codeOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestResultOf pins what an await reports for each way Task.Nursery ends.
func TestResultOf(t *testing.T) {
	t.Parallel()
	child := func(err error) error {
		return &sched.ChildError{Nursery: "c", Text: "x", Err: err}
	}
	for _, c := range []struct {
		err      error
		kind     int32
		code     int64
		describe string
	}{
		{nil, 0, 0, "success"},
		{child(&codeError{code: 404}), 1, 404, "a child returned 404"},
		{child(&sched.SchedError{Code: sched.CodeSpawnBudgetExhausted}), 1, int64(codeSpawnBudgetExhausted), "the scheduler failed a child"},
		{child(&sched.PanicError{Value: "bug"}), 1, int64(codeInvalid), "a panic in the carrier"},
		{child(nil), 1, int64(codeInvalid), "a child error without a value"},
		{&sched.CancelError{Reason: nursery.ExplicitCancel}, 2, 0, "the owner was cancelled"},
		{errLeave, 2, 0, "left by a destroy"},
	} {
		kind, code := resultOf(c.err)
		if kind != c.kind || code != c.code {
			t.Errorf("%s: resultOf = (%d, %d), want (%d, %d)", c.describe, kind, code, c.kind, c.code)
		}
	}
}
