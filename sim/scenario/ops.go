package scenario

import (
	"math"
	"strings"
)

// opOptions lists, for each operation, the keys that may sit beside the
// operation key in its table.
var opOptions = [...][]string{
	Compute:     nil,
	Yield:       nil,
	Call:        nil,
	Loop:        {"body"},
	Spawn:       {"as", "budget", "caps"},
	Nursery:     {"body", "mode", "timeout", "max_concurrent", "budget", "catch"},
	Cancel:      nil,
	CheckCancel: nil,
	Send:        nil,
	Recv:        nil,
	Close:       nil,
	Sleep:       nil,
	Alloc:       nil,
	Syscall:     nil,
	Recharge:    {"ops", "memory", "spawn_count", "channel_ops", "syscalls"},
	Defer:       {"body"},
	Using:       {"body"},
	Log:         nil,
	Return:      nil,
	Fail:        nil,
	Panic:       nil,
}

// opKindOf returns the operation named by key, or 0.
func opKindOf(key string) OpKind {
	for k := Compute; k <= Panic; k++ {
		if opKindNames[k] == key {
			return k
		}
	}
	return 0
}

func isOptionOfAnyOp(key string) bool {
	for _, opts := range opOptions {
		if contains(opts, key) {
			return true
		}
	}
	return false
}

func allOpNames() string {
	names := make([]string, 0, Panic)
	for k := Compute; k <= Panic; k++ {
		names = append(names, opKindNames[k])
	}
	return strings.Join(names, ", ")
}

// bodyCtx is what the decoder knows about the body it is in. A task body is
// one context; a body reached through `call` or `spawn` is another task body
// with its own context, which is why a spawn in a called task is not inside
// the caller's nursery.
type bodyCtx struct {
	task      string
	nurseries []string        // labels of the enclosing nurseries, innermost last
	as        map[string]bool // `as` names of the spawns in this task body
	recharges []rechargeSite  // checked against as when the body is done
}

type rechargeSite struct {
	target string
	path   string
}

// body decodes an array of operations.
func (d *decoder) body(v any, path string, ctx *bodyCtx, depth int) []Op {
	if d.failed() {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		d.errorf(path, "must be an array of operations like [ { compute = 10 } ], not %s", typeName(v))
		return nil
	}
	if depth > maxBodyDepth {
		d.errorf(path, "bodies are nested more than %d deep", maxBodyDepth)
		return nil
	}
	ops := make([]Op, 0, len(arr))
	for i, e := range arr {
		op := d.op(e, indexPath(path, i), ctx, depth)
		if d.failed() {
			return nil
		}
		ops = append(ops, op)
	}
	return ops
}

// op decodes one operation table at path.
func (d *decoder) op(v any, path string, ctx *bodyCtx, depth int) Op {
	op := Op{Path: path}
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(path, "an operation must be a table like { compute = 10 }, not %s", typeName(v))
		return op
	}
	p := d.pos.lookup(path)
	op.Line, op.Col = p.line, p.col

	var opKeys []string
	for _, k := range d.keys(m, path) {
		if opKindOf(k) != 0 {
			opKeys = append(opKeys, k)
		}
	}
	switch len(opKeys) {
	case 0:
		for _, k := range d.keys(m, path) {
			if !isOptionOfAnyOp(k) {
				d.errorf(keyPath(path, k), "unknown operation %q (want one of: %s)", k, allOpNames())
				return op
			}
		}
		d.errorf(path, "no operation key: a table needs exactly one of: %s", allOpNames())
		return op
	case 1:
	default:
		d.errorf(path, "several operation keys (%s): an operation table has exactly one", quoteList(opKeys))
		return op
	}
	key := opKeys[0]
	op.Kind = opKindOf(key)
	kp := keyPath(path, key)
	val := m[key]
	opts := opOptions[op.Kind]
	for _, k := range d.keys(m, path) {
		if k != key && !contains(opts, k) {
			if len(opts) == 0 {
				d.errorf(keyPath(path, k), "unknown option %q: %s takes no options", k, key)
			} else {
				d.errorf(keyPath(path, k), "unknown option %q for %s (want one of: %s)", k, key, strings.Join(opts, ", "))
			}
			return op
		}
	}

	switch op.Kind {
	case Compute, Sleep, Alloc, Syscall:
		op.N, _ = d.intIn(val, kp, 0, math.MaxInt64)
	case Yield, CheckCancel:
		if b, ok := d.boolean(val, kp); ok && !b {
			d.errorf(kp, "must be true (write %s = true, or leave the operation out)", key)
		}
	case Call:
		if name, ok := d.nonEmptyStr(val, kp); ok {
			op.Str = name
			if !d.tasks[name] {
				d.errorf(path, "unknown task %q in call", name)
				return op
			}
			d.calls[ctx.task] = append(d.calls[ctx.task], callSite{target: name, path: path})
		}
	case Loop:
		switch x := val.(type) {
		case string:
			if x != "forever" {
				d.errorf(kp, "must be a count >= 0 or \"forever\", not %q", x)
				return op
			}
			op.N = LoopForever
		case int64:
			op.N, _ = d.intIn(x, kp, 0, math.MaxInt64)
		default:
			d.errorf(kp, "must be a count >= 0 or \"forever\", not %s", typeName(val))
		}
	case Spawn:
		d.spawn(&op, m, val, ctx)
	case Nursery:
		d.nursery(&op, m, val, ctx, depth)
		return op // the body is decoded with the label pushed
	case Cancel:
		if label, ok := d.nonEmptyStr(val, kp); ok {
			op.Str = label
			if !contains(ctx.nurseries, label) {
				d.errorf(path, "cancel of %q: no enclosing nursery of this body has that label", label)
			}
		}
	case Send, Recv, Close:
		if ch, ok := d.nonEmptyStr(val, kp); ok {
			op.Str = ch
			if !d.channels[ch] {
				d.errorf(path, "unknown channel %q in %s (declare it under [channels])", ch, key)
			}
		}
	case Recharge:
		if as, ok := d.nonEmptyStr(val, kp); ok {
			op.Str = as
			rest := make(map[string]any, len(m))
			for k, x := range m {
				if k != key {
					rest[k] = x
				}
			}
			op.Recharge = d.budgetOverride(rest, path, "recharge")
			if !d.failed() && op.Recharge.Set == 0 {
				d.errorf(path, "recharge of %q gives nothing: add at least one of ops, memory, spawn_count, channel_ops, syscalls", as)
			}
			ctx.recharges = append(ctx.recharges, rechargeSite{target: as, path: path})
		}
	case Defer, Using:
		op.Str, _ = d.nonEmptyStr(val, kp)
	case Log:
		op.Str, _ = d.str(val, kp)
	case Return:
		op.N, _ = d.integer(val, kp)
	case Fail:
		op.Str, _ = d.nonEmptyStr(val, kp)
	case Panic:
		op.Str, _ = d.str(val, kp)
	}
	if b, ok := m["body"]; ok && !d.failed() {
		if op.Kind == Defer {
			// A defer body runs at task exit, when every nursery of this
			// body has already been awaited: no enclosing nursery is open
			// there, so none may be spawned into or cancelled.
			saved := ctx.nurseries
			ctx.nurseries = nil
			op.Body = d.body(b, keyPath(path, "body"), ctx, depth+1)
			ctx.nurseries = saved
		} else {
			op.Body = d.body(b, keyPath(path, "body"), ctx, depth+1)
		}
	}
	return op
}

func (d *decoder) spawn(op *Op, m map[string]any, val any, ctx *bodyCtx) {
	kp := keyPath(op.Path, "spawn")
	name, ok := d.nonEmptyStr(val, kp)
	if !ok {
		return
	}
	op.Str = name
	switch {
	case d.profile == ProfileCore:
		d.errorf(op.Path, "spawn is not allowed under profile \"core\" (it has no scheduler)")
		return
	case len(ctx.nurseries) == 0:
		d.errorf(op.Path, "N1001 SpawnOutsideNursery: spawn of %q is not inside a nursery body of task %q", name, ctx.task)
		return
	case !d.tasks[name]:
		d.errorf(op.Path, "unknown task %q in spawn", name)
		return
	}
	for _, k := range d.keys(m, op.Path) {
		p := keyPath(op.Path, k)
		switch k {
		case "as":
			if as, ok := d.nonEmptyStr(m[k], p); ok {
				op.As = as
				ctx.as[as] = true
			}
		case "budget":
			o := d.budgetOverride(m[k], p, "a spawn budget")
			op.SpawnBudget = &o
		case "caps":
			op.Caps, op.HasCaps = d.caps(m[k], p)
		}
	}
}

func (d *decoder) nursery(op *Op, m map[string]any, val any, ctx *bodyCtx, depth int) {
	kp := keyPath(op.Path, "nursery")
	label, ok := d.nonEmptyStr(val, kp)
	if !ok {
		return
	}
	op.Str = label
	op.Mode = DefaultMode
	if d.profile == ProfileCore {
		d.errorf(op.Path, "nursery is not allowed under profile \"core\" (it has no scheduler)")
		return
	}
	d.labels[label] = true
	for _, k := range d.keys(m, op.Path) {
		p := keyPath(op.Path, k)
		switch k {
		case "mode":
			if s, ok := d.oneOf(m[k], p, modes); ok {
				op.Mode = s
			}
		case "timeout":
			op.Timeout, op.HasTimeout = d.intIn(m[k], p, 1, math.MaxInt64)
		case "max_concurrent":
			n, _ := d.intIn(m[k], p, 0, maxConcurrentMax)
			op.MaxConcurrent = int(n)
		case "budget":
			o := d.budgetOverride(m[k], p, "a nursery budget")
			op.NurseryBudget = &o
		case "catch":
			op.Catch, _ = d.boolean(m[k], p)
		}
	}
	if b, ok := m["body"]; ok && !d.failed() {
		ctx.nurseries = append(ctx.nurseries, label)
		op.Body = d.body(b, keyPath(op.Path, "body"), ctx, depth+1)
		ctx.nurseries = ctx.nurseries[:len(ctx.nurseries)-1]
	}
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = `"` + k + `"`
	}
	return strings.Join(q, ", ")
}
