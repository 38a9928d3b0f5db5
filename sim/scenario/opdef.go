package scenario

import (
	"fmt"
	"strings"

	"github.com/cbcsim/cbcsim/sched"
)

// OpKind says which operation an Op is. Each operation's file (op_*.go)
// declares its kind with the number of its row in the contract's table
// (docs/scenarios.md#operations), so the numbering never moves. The zero
// OpKind is not an operation, so a zero Op is recognisably unset.
type OpKind uint8

// OpDef is one operation's whole definition, declared in its own file
// (op_compute.go, op_send.go, ...) and registered by that file's init: its
// TOML key and options and how it decodes (the loader, ops.go), what it
// does on the real sched.Task API (the interpreter in package sim, through
// Env), how it is written back (the fuzzer's formatter in package gen,
// through Formatter), what the fuzzer's safety rules and shrinker know of
// it (OpSafety), and optionally how the fuzzer draws it (OpGen). The
// packages that use a part reach it through OpKind.Def and the small
// interfaces this package declares and they implement, so adding an
// operation is one file; TestEveryOpHasItsRows fails when a part is
// missing.
type OpDef struct {
	Kind OpKind
	Name string // its TOML key, e.g. "check_cancel"
	// Sample is the operation as a scenario writes it, e.g.
	// `{ compute = 3 }` (or a few ops, one of them it), using every option
	// it takes. The tests of every part run it (SampleSource): it loads,
	// writes back the same, and executes with every invariant holding.
	Sample string
	// Options are the keys that may sit beside the operation key in its
	// table; "body" among them is what HasBody reads.
	Options []string
	// Decode reads the operation's value (and options) into op. It reports
	// whether the decoder should go on to decode a `body` key; an
	// operation that decodes its own body (nursery, defer) returns false.
	Decode func(d *decoder, op *Op, a opArgs) (body bool)
	// Exec runs the operation in task t, inside the nurseries sc.
	Exec func(e Env, t *sched.Task, sc Scope, op *Op) error
	// Format writes the operation key and value and its options, e.g.
	// `spawn = "w", as = "a"`; nil writes `key = "Str"`, for an operation
	// whose value is a string and that has no option but its body (the
	// formatter writes the body).
	Format func(f Formatter, op *Op)
	Safety *OpSafety
	Gen    *OpGen // nil: the fuzzer does not draw it, or draws it as part of a shape (gen.go)
	// Since is the format version that introduced it (0: version 1); a
	// file of an older version that uses it is refused.
	Since int
}

// opDefs holds the registered definitions, indexed by OpKind; opDefs[0]
// is nil.
var opDefs []*OpDef

// defineOp registers d; each operation's file calls it from init. A kind
// or a name defined twice is a programming error, caught when the package
// loads.
func defineOp(d *OpDef) {
	for int(d.Kind) >= len(opDefs) {
		opDefs = append(opDefs, nil)
	}
	if d.Kind == 0 || opDefs[d.Kind] != nil {
		panic(fmt.Sprintf("scenario: defineOp: kind %d of %q is 0 or defined twice", d.Kind, d.Name))
	}
	for _, o := range opDefs {
		if o != nil && o.Name == d.Name {
			panic(fmt.Sprintf("scenario: defineOp: %q defined twice", d.Name))
		}
	}
	opDefs[d.Kind] = d
}

// Def returns the operation's definition, or nil if k is not one.
func (k OpKind) Def() *OpDef {
	if int(k) >= len(opDefs) {
		return nil
	}
	return opDefs[k]
}

// OpKinds returns every operation's kind, in the contract's table order.
func OpKinds() []OpKind {
	out := make([]OpKind, 0, len(opDefs))
	for _, d := range opDefs {
		if d != nil {
			out = append(out, d.Kind)
		}
	}
	return out
}

// String returns the operation's TOML key, e.g. "check_cancel".
func (k OpKind) String() string {
	if d := k.Def(); d != nil {
		return d.Name
	}
	return "invalid"
}

// HasBody reports whether the operation takes a body (loop, nursery,
// defer, using): its definition lists the option.
func (k OpKind) HasBody() bool {
	d := k.Def()
	return d != nil && contains(d.Options, "body")
}

// opKindOf returns the operation named by key, or 0.
func opKindOf(key string) OpKind {
	for _, d := range opDefs {
		if d != nil && d.Name == key {
			return d.Kind
		}
	}
	return 0
}

func isOptionOfAnyOp(key string) bool {
	for _, d := range opDefs {
		if d != nil && contains(d.Options, key) {
			return true
		}
	}
	return false
}

func allOpNames() string {
	names := make([]string, 0, len(opDefs))
	for _, d := range opDefs {
		if d != nil {
			names = append(names, d.Name)
		}
	}
	return strings.Join(names, ", ")
}

// SampleSource is a scenario that runs k's Sample: task.main opens a
// nursery "n" and spawns task.child `as` "a" in it, then runs the sample.
// A sample may name channel "c" (capacity 1), task "child", nursery "n"
// and the child "a".
func SampleSource(k OpKind) []byte {
	return []byte(fmt.Sprintf(`version = %d
name = "sample-%s"

[channels]
c = { capacity = 1 }

[task.main]
ops = [
  { nursery = "n", body = [
    { spawn = "child", as = "a" },
    %s,
  ] },
]

[task.child]
ops = [{ compute = 2 }]
`, max(MinVersion, k.Def().Since), k, k.Def().Sample))
}
