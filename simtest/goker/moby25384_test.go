package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "moby_25384", Subtype: mixedMisuse, Body: moby25384})

// moby25384: the plugin manager adds one to a WaitGroup per plugin, then
// starts each plugin's task and waits on the group inside the loop: the
// first Wait needs every plugin done, but only the first has been
// started. With two or more plugins it waits forever. The fix waits once,
// after the loop.
func moby25384(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		const plugins = 2
		return scope(t, func(n *sched.Nursery) error {
			return n.Go("manager_init", func(t *sched.Task) error {
				group := newWaitGroup(t, "plugins")
				if err := group.add(t, plugins); err != nil {
					return err
				}
				return scope(t, func(n *sched.Nursery) error {
					for i := 0; i < plugins; i++ {
						if err := n.Go("plugin", func(t *sched.Task) error { return group.done(t) }); err != nil {
							return err
						}
						if !fixed {
							if err := group.wait(t); err != nil {
								return err
							}
						}
					}
					return group.wait(t)
				})
			})
		})
	}
}
