package main

/*
#include "janus_internal.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"

	"github.com/cbcsim/cbcsim/sched"
)

// The C return codes (janus_sched.h), as Go values.
const (
	codeOK                   = int32(C.JANUS_OK)
	codeCancelled            = int32(C.JANUS_E_CANCELLED)
	codeNotInTask            = int32(C.JANUS_E_NOT_IN_TASK)
	codeNurseryNotActive     = int32(C.JANUS_E_NURSERY_NOT_ACTIVE)
	codeSpawnBudgetExhausted = int32(C.JANUS_E_SPAWN_BUDGET_EXHAUSTED)
	codeCapabilityDenied     = int32(C.JANUS_E_CAPABILITY_DENIED)
	codeInvalid              = int32(C.JANUS_E_INVALID)
	codeResourceExhausted    = int32(C.JANUS_E_RESOURCE_EXHAUSTED)
)

// codeOf maps an error of the sched API to its C return code (the table in
// docs/c-abi.md).
func codeOf(err error) int32 {
	var ce *codeError
	switch {
	case err == nil:
		return codeOK
	case errors.Is(err, sched.ErrCancelled):
		return codeCancelled
	case errors.Is(err, sched.ErrSpawnBudgetExhausted):
		return codeSpawnBudgetExhausted
	case errors.Is(err, sched.ErrNurseryNotActive):
		return codeNurseryNotActive
	case errors.Is(err, sched.ErrCapabilityDenied):
		return codeCapabilityDenied
	case errors.Is(err, sched.ErrResourceExhausted), errors.Is(err, errNoStack):
		return codeResourceExhausted
	case errors.As(err, &ce):
		return int32(max(min(ce.code, math.MaxInt32), math.MinInt32))
	}
	return codeInvalid
}

// codeError is the error of a C task function that returned code != 0.
type codeError struct{ code int64 }

func (e *codeError) Error() string { return fmt.Sprintf("code %d", e.code) }

// errNoStack fails a C task whose stack could not be mapped.
var errNoStack = &sched.SchedError{Code: sched.CodeResourceExhausted, Detail: "no memory for a C task stack"}

// budgetIn converts a C budget as it is (a recharge's amount).
func budgetIn(b C.JanusBudget) sched.Budget {
	return sched.Budget{Ops: int64(b.ops), Memory: int64(min(uint64(b.memory), math.MaxInt64)),
		SpawnCount: int64(b.spawn_count), ChannelOps: int64(b.channel_ops), Syscalls: int64(b.syscalls)}
}

// startBudget converts the config's budget: all zero means the default.
func startBudget(b C.JanusBudget) sched.Budget {
	if g := budgetIn(b); g != (sched.Budget{}) {
		return g
	}
	return sched.DefaultBudget
}

// budgetOut converts a budget to C, each component saturating at its
// field's largest value.
func budgetOut(b sched.Budget) C.JanusBudget {
	clamp := func(v int64, limit uint64) uint64 {
		if v <= 0 {
			return 0
		}
		return min(uint64(v), limit)
	}
	return C.JanusBudget{
		ops:         C.uint32_t(clamp(b.Ops, math.MaxUint32)),
		memory:      C.uint64_t(clamp(b.Memory, math.MaxUint64)),
		spawn_count: C.uint16_t(clamp(b.SpawnCount, math.MaxUint16)),
		channel_ops: C.uint16_t(clamp(b.ChannelOps, math.MaxUint16)),
		syscalls:    C.uint16_t(clamp(b.Syscalls, math.MaxUint16)),
	}
}
