package goker

import (
	"time"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "hugo_5379", Subtype: doubleLock, Body: hugo5379})

// hugo5379: counting a page's words initialises its content once: on a
// task of its own that holds the page's content lock while rendering the
// page's shortcodes, waited for with a 1 ms timeout. Rendering a
// shortcode counts the page's words again, which (once the outer
// initialisation has timed out) goes on to initialise the plain text
// under the same content lock: the rendering task takes a lock it holds,
// and the renderers waiting for the plain text's once wait with it. The
// fix initialises the plain text without the content lock. (Skipping the
// lock only in the nested count is not enough: a renderer initialising
// the plain text, holding that once's lock, then waits for the content
// lock that the rendering task holds while it waits for the once, an
// AB-BA deadlock simtest finds at run 1.)
func hugo5379(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		contentInitMu := newMutex(t, "content_init_mu")
		contentInit := newOnce(t, "content_init")
		plainInit := newOnce(t, "plain_init")
		return scope(t, func(n *sched.Nursery) error {
			var wordCount func(t *sched.Task, lock bool) error
			initContent := func(t *sched.Task) error {
				return contentInit.do(t, func(t *sched.Task) error {
					c := sched.NewChan[error](s, "c", 1)
					if err := n.GoFrom(t, "prepare_for_render", func(t *sched.Task) error {
						if err := contentInitMu.lock(t); err != nil {
							return err
						}
						defer contentInitMu.unlock(t)
						if err := wordCount(t, true); err != nil { // a shortcode's rendering
							return err
						}
						return c.Send(t, nil)
					}); err != nil {
						return err
					}
					_, err := sched.Select(t, sched.After(t, time.Millisecond).RecvCase(nil, nil), c.RecvCase(nil, nil))
					return err
				})
			}
			initPlain := func(t *sched.Task, lock bool) error {
				return plainInit.do(t, func(t *sched.Task) error {
					if !lock || fixed {
						return nil
					}
					if err := contentInitMu.lock(t); err != nil {
						return err
					}
					return contentInitMu.unlock(t)
				})
			}
			wordCount = func(t *sched.Task, lock bool) error {
				if err := initContent(t); err != nil {
					return err
				}
				return initPlain(t, lock)
			}
			for i := 0; i < 2; i++ {
				if err := n.Go("page_renderer", func(t *sched.Task) error { return wordCount(t, true) }); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
