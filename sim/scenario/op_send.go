package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Send is `send = "channel"`: sends one value, blocking while the channel
// is full. Op.Str is the channel's name.
const Send OpKind = 9

func init() {
	defineOp(&OpDef{
		Kind: Send, Name: "send",
		Sample: `{ send = "c" }`,
		Decode: decodeChannel,
		Exec: func(e Env, t *sched.Task, _ Scope, op *Op) error {
			return driver.Send(t, e.Channel(op.Str), 1)
		},
		Safety: &OpSafety{Chan: Sends, BeforeChan: true, Need: needsOnce(Need{Ops: 1, ChannelOps: 1})},
	})
}
