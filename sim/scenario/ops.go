package scenario

import (
	"math"
	"strings"
)

// OpKind says which operation an Op is.
type OpKind uint8

// The operations, in the order of the contract's table. The zero OpKind is
// not an operation, so a zero Op is recognisably unset.
const (
	Compute OpKind = iota + 1
	Yield
	Call
	Loop
	Spawn
	Nursery
	Cancel
	CheckCancel
	Send
	Recv
	Close
	Sleep
	Alloc
	Syscall
	Recharge
	Defer
	Using
	Log
	Return
	Fail
	Panic

	// OpKindEnd is not an operation: it is one past the last, the length
	// of every table indexed by OpKind. A new operation goes before it.
	OpKindEnd
)

// String returns the operation's TOML key, e.g. "check_cancel".
func (k OpKind) String() string {
	if k == 0 || k >= OpKindEnd {
		return "invalid"
	}
	return opSpecs[k].name
}

// opSpec is one operation's row of the decoder's table: the keys that may
// sit beside the operation key in its table, and how its value (and
// those keys) decode into an Op. decode reports whether the decoder
// should go on to decode a `body` key (nursery decodes its own, with its
// label pushed).
type opSpec struct {
	name    string // its TOML key
	options []string
	decode  func(d *decoder, op *Op, a opArgs) (body bool)
}

// opArgs is what a decode function reads: the operation's table m, its
// value val at the TOML path kp, and where it sits.
type opArgs struct {
	m     map[string]any
	key   string
	val   any
	kp    string
	ctx   *bodyCtx
	depth int
}

// opSpecs is the decoder's table, one row per operation
// (docs/scenarios.md#operations). It is filled in init because the rows
// with a body reach the table again through decoder.body.
var opSpecs [OpKindEnd]opSpec

func init() {
	opSpecs = [...]opSpec{
		Compute:     {"compute", nil, decodeCount},
		Yield:       {"yield", nil, decodeTrue},
		Call:        {"call", nil, decodeCall},
		Loop:        {"loop", []string{"body"}, decodeLoop},
		Spawn:       {"spawn", []string{"as", "budget", "caps"}, decodeSpawn},
		Nursery:     {"nursery", []string{"body", "mode", "timeout", "max_concurrent", "budget", "catch"}, decodeNursery},
		Cancel:      {"cancel", nil, decodeCancel},
		CheckCancel: {"check_cancel", nil, decodeTrue},
		Send:        {"send", nil, decodeChannel},
		Recv:        {"recv", nil, decodeChannel},
		Close:       {"close", nil, decodeChannel},
		Sleep:       {"sleep", nil, decodeCount},
		Alloc:       {"alloc", nil, decodeCount},
		Syscall:     {"syscall", nil, decodeCount},
		Recharge:    {"recharge", []string{"ops", "memory", "spawn_count", "channel_ops", "syscalls"}, decodeRecharge},
		Defer:       {"defer", []string{"body"}, decodeName},
		Using:       {"using", []string{"body"}, decodeName},
		Log:         {"log", nil, decodeText},
		Return:      {"return", nil, decodeInteger},
		Fail:        {"fail", nil, decodeName},
		Panic:       {"panic", nil, decodeText},
	}
}

// HasBody reports whether the operation takes a body (loop, nursery,
// defer, using): its row of the decoder's table lists the option.
func (k OpKind) HasBody() bool { return k < OpKindEnd && contains(opSpecs[k].options, "body") }

// opKindOf returns the operation named by key, or 0.
func opKindOf(key string) OpKind {
	for k := Compute; k < OpKindEnd; k++ {
		if opSpecs[k].name == key {
			return k
		}
	}
	return 0
}

func isOptionOfAnyOp(key string) bool {
	for _, spec := range opSpecs {
		if contains(spec.options, key) {
			return true
		}
	}
	return false
}

func allOpNames() string {
	names := make([]string, 0, OpKindEnd)
	for k := Compute; k < OpKindEnd; k++ {
		names = append(names, opSpecs[k].name)
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

// op decodes one operation table at path: finds its one operation key,
// checks the other keys are that operation's options, decodes it with its
// row of opSpecs, then its body.
func (d *decoder) op(v any, path string, ctx *bodyCtx, depth int) Op {
	op := Op{Path: path}
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf(path, "an operation must be a table like { compute = 10 }, not %s", typeName(v))
		return op
	}
	p := d.pos.lookup(path)
	op.Line, op.Col = p.line, p.col
	key, ok := d.opKey(m, path)
	if !ok {
		return op
	}
	op.Kind = opKindOf(key)
	if !d.onlyOptions(m, path, key, opSpecs[op.Kind].options) {
		return op
	}
	a := opArgs{m: m, key: key, val: m[key], kp: keyPath(path, key), ctx: ctx, depth: depth}
	if !opSpecs[op.Kind].decode(d, &op, a) {
		return op
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

// opKey returns the one operation key of the table m.
func (d *decoder) opKey(m map[string]any, path string) (string, bool) {
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
				return "", false
			}
		}
		d.errorf(path, "no operation key: a table needs exactly one of: %s", allOpNames())
		return "", false
	case 1:
		return opKeys[0], true
	}
	d.errorf(path, "several operation keys (%s): an operation table has exactly one", quoteList(opKeys))
	return "", false
}

// onlyOptions checks that every key of m but the operation key is one of
// its options.
func (d *decoder) onlyOptions(m map[string]any, path, key string, opts []string) bool {
	for _, k := range d.keys(m, path) {
		if k != key && !contains(opts, k) {
			if len(opts) == 0 {
				d.errorf(keyPath(path, k), "unknown option %q: %s takes no options", k, key)
			} else {
				d.errorf(keyPath(path, k), "unknown option %q for %s (want one of: %s)", k, key, strings.Join(opts, ", "))
			}
			return false
		}
	}
	return true
}

// decodeCount: compute, sleep, alloc, syscall take a count >= 0.
func decodeCount(d *decoder, op *Op, a opArgs) bool {
	op.N, _ = d.intIn(a.val, a.kp, 0, math.MaxInt64)
	return true
}

// decodeTrue: yield and check_cancel are written `= true`.
func decodeTrue(d *decoder, _ *Op, a opArgs) bool {
	if b, ok := d.boolean(a.val, a.kp); ok && !b {
		d.errorf(a.kp, "must be true (write %s = true, or leave the operation out)", a.key)
	}
	return true
}

func decodeCall(d *decoder, op *Op, a opArgs) bool {
	name, ok := d.nonEmptyStr(a.val, a.kp)
	if !ok {
		return true
	}
	op.Str = name
	if !d.tasks[name] {
		d.errorf(op.Path, "unknown task %q in call", name)
		return false
	}
	d.calls[a.ctx.task] = append(d.calls[a.ctx.task], callSite{target: name, path: op.Path})
	return true
}

func decodeLoop(d *decoder, op *Op, a opArgs) bool {
	switch x := a.val.(type) {
	case string:
		if x != "forever" {
			d.errorf(a.kp, "must be a count >= 0 or \"forever\", not %q", x)
			return false
		}
		op.N = LoopForever
	case int64:
		op.N, _ = d.intIn(x, a.kp, 0, math.MaxInt64)
	default:
		d.errorf(a.kp, "must be a count >= 0 or \"forever\", not %s", typeName(a.val))
	}
	return true
}

func decodeSpawn(d *decoder, op *Op, a opArgs) bool {
	d.spawn(op, a.m, a.val, a.ctx)
	return true
}

func decodeNursery(d *decoder, op *Op, a opArgs) bool {
	d.nursery(op, a.m, a.val, a.ctx, a.depth)
	return false // the body is decoded with the label pushed
}

func decodeCancel(d *decoder, op *Op, a opArgs) bool {
	if label, ok := d.nonEmptyStr(a.val, a.kp); ok {
		op.Str = label
		if !contains(a.ctx.nurseries, label) {
			d.errorf(op.Path, "cancel of %q: no enclosing nursery of this body has that label", label)
		}
	}
	return true
}

// decodeChannel: send, recv and close name a declared channel.
func decodeChannel(d *decoder, op *Op, a opArgs) bool {
	if ch, ok := d.nonEmptyStr(a.val, a.kp); ok {
		op.Str = ch
		if !d.channels[ch] {
			d.errorf(op.Path, "unknown channel %q in %s (declare it under [channels])", ch, a.key)
		}
	}
	return true
}

func decodeRecharge(d *decoder, op *Op, a opArgs) bool {
	as, ok := d.nonEmptyStr(a.val, a.kp)
	if !ok {
		return true
	}
	op.Str = as
	rest := make(map[string]any, len(a.m))
	for k, x := range a.m {
		if k != a.key {
			rest[k] = x
		}
	}
	op.Recharge = d.budgetOverride(rest, op.Path, "recharge")
	if !d.failed() && op.Recharge.Set == 0 {
		d.errorf(op.Path, "recharge of %q gives nothing: add at least one of ops, memory, spawn_count, channel_ops, syscalls", as)
	}
	a.ctx.recharges = append(a.ctx.recharges, rechargeSite{target: as, path: op.Path})
	return true
}

// decodeName: defer, using and fail take a non-empty string.
func decodeName(d *decoder, op *Op, a opArgs) bool {
	op.Str, _ = d.nonEmptyStr(a.val, a.kp)
	return true
}

// decodeText: log and panic take any string.
func decodeText(d *decoder, op *Op, a opArgs) bool {
	op.Str, _ = d.str(a.val, a.kp)
	return true
}

func decodeInteger(d *decoder, op *Op, a opArgs) bool {
	op.N, _ = d.integer(a.val, a.kp)
	return true
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
