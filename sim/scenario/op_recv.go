package scenario

import (
	"github.com/cbcsim/cbcsim/sched"
	"github.com/cbcsim/cbcsim/sched/driver"
)

// Recv is `recv = "channel"`: receives one value, blocking while the
// channel is empty and open. Op.Str is the channel's name.
const Recv OpKind = 10

func init() {
	defineOp(&OpDef{
		Kind: Recv, Name: "recv",
		Sample: `{ send = "c" }, { recv = "c" }`,
		Decode: decodeChannel,
		Exec: func(e Env, t *sched.Task, _ Scope, op *Op) error {
			_, _, err := driver.Recv(t, e.Channel(op.Str))
			return err
		},
		Safety: &OpSafety{Chan: Recvs, BeforeChan: true, Need: needsOnce(Need{Ops: 1, ChannelOps: 1})},
	})
}
