package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Close is `close = "channel"`: closes the channel. Op.Str is its name.
const Close OpKind = 11

func init() {
	defineOp(&OpDef{
		Kind: Close, Name: "close",
		Sample: `{ close = "c" }, { recv = "c" }`,
		Decode: decodeChannel,
		Exec: func(e Env, t *sched.Task, _ Scope, op *Op) error {
			return driver.Close(t, e.Channel(op.Str))
		},
		Safety: &OpSafety{Chan: Closes, BeforeChan: true, Need: needsOnce(Need{ChannelOps: 1})},
	})
}
