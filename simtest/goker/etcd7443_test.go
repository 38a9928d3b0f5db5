package goker

import (
	"errors"

	"github.com/cbcsim/cbcsim/sched"
)

var _ = register(Kernel{ID: "etcd_7443", Subtype: mixedLock, Body: etcd7443, Strategy: "pct"})

// etcd7443: the gRPC client's balancer notifies the client's balancer
// watcher of address changes on a capacity-1 channel, with a blocking
// send made while holding the balancer's lock, and, from a connection's
// Up or down, the connection's lock too. The watcher, between two
// receives, tears connections down, which takes their locks. When the
// channel is full, a connection's Up blocks on its send holding its lock,
// and the watcher, the only receiver, waits for that lock; the balancer's
// Close then waits for the balancer's lock, and the test for Close. The
// fix never blocks on the channel: a newer notification replaces one not
// yet received. As in GoKer, the addresses are 0, 1, 2 and 0 also means
// "none pinned", so that address 0 pins without unpinning: two Ups can
// notify before the watcher receives, which is what fills the channel.
// The window is narrow (the balancer is closed concurrently, after which
// nothing notifies): random scheduling misses it in 6,000 runs, pct finds
// it within the default runs, so TestGoKer looks for it with pct.
func etcd7443(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		all := []int{0, 1, 2}
		notifyCh := sched.NewChan[[]int](s, "notify_ch", 1)
		balancerMu := newRWMutex(t, "balancer_mu")
		ccMu := newRWMutex(t, "client_conn_mu")
		closedBalancer, pinAddr := false, 0
		type addrConn struct {
			addr int
			mu   *mutex
			down sched.Func
		}
		conns := map[int]*addrConn{}
		connsClosed := false
		// notify is called with balancerMu held.
		notify := func(t *sched.Task, addrs []int) error {
			if fixed {
				notifyCh.TryRecv(t)
				_, err := notifyCh.TrySend(t, addrs)
				return err
			}
			return notifyCh.Send(t, addrs)
		}
		up := func(t *sched.Task, addr int) (sched.Func, error) {
			if err := balancerMu.lock(t); err != nil {
				return nil, err
			}
			defer balancerMu.unlock(t)
			if closedBalancer {
				return func(*sched.Task) error { return nil }, nil
			}
			if pinAddr == 0 {
				pinAddr = addr
				if err := notify(t, []int{addr}); err != nil {
					return nil, err
				}
			}
			return func(t *sched.Task) error {
				if err := balancerMu.lock(t); err != nil {
					return err
				}
				defer balancerMu.unlock(t)
				if pinAddr != addr {
					return nil
				}
				pinAddr = 0
				if err := notify(t, all); !errors.Is(err, sched.ErrChannelClosed) { // Go: a recovered panic
					return err
				}
				return nil
			}, nil
		}
		tearDown := func(t *sched.Task, ac *addrConn) error {
			if err := ac.mu.lock(t); err != nil {
				return err
			}
			defer ac.mu.unlock(t)
			if ac.down == nil {
				return nil
			}
			down := ac.down
			ac.down = nil
			return down(t)
		}
		resetTransport := func(ac *addrConn) sched.Func {
			return func(t *sched.Task) error {
				if err := ac.mu.lock(t); err != nil {
					return err
				}
				defer ac.mu.unlock(t)
				down, err := up(t, ac.addr)
				ac.down = down
				return err
			}
		}
		closeBalancer := func(t *sched.Task) error {
			if err := balancerMu.lock(t); err != nil {
				return err
			}
			defer balancerMu.unlock(t)
			if closedBalancer {
				return nil
			}
			closedBalancer, pinAddr = true, 0
			return notifyCh.Close(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			resetAddrConn := func(t *sched.Task, addr int) error {
				ac := &addrConn{addr: addr, mu: newMutex(t, "addr_conn_mu")}
				if err := ccMu.lock(t); err != nil {
					return err
				}
				if connsClosed {
					return ccMu.unlock(t)
				}
				conns[addr] = ac
				if err := ccMu.unlock(t); err != nil {
					return err
				}
				return n.GoFrom(t, "reset_transport", resetTransport(ac))
			}
			lbWatcher := func(t *sched.Task) error {
				for {
					addrs, ok, err := notifyCh.Recv(t)
					if err != nil || !ok {
						return err
					}
					if err := ccMu.lock(t); err != nil {
						return err
					}
					var add []int
					var del []*addrConn
					keep := map[int]bool{}
					for _, a := range addrs {
						keep[a] = true
						if _, ok := conns[a]; !ok {
							add = append(add, a)
						}
					}
					for _, a := range all { // in address order: map order would not replay
						if c, ok := conns[a]; ok && !keep[a] {
							del = append(del, c)
							delete(conns, a)
						}
					}
					if err := ccMu.unlock(t); err != nil {
						return err
					}
					for _, a := range add {
						if err := resetAddrConn(t, a); err != nil {
							return err
						}
					}
					for _, c := range del {
						if err := tearDown(t, c); err != nil {
							return err
						}
					}
				}
			}
			closeConn := func(t *sched.Task) error {
				if err := ccMu.lock(t); err != nil {
					return err
				}
				var cs []*addrConn
				for _, a := range all {
					if c, ok := conns[a]; ok {
						cs = append(cs, c)
					}
				}
				conns, connsClosed = nil, true
				if err := ccMu.unlock(t); err != nil {
					return err
				}
				if err := closeBalancer(t); err != nil {
					return err
				}
				for _, c := range cs {
					if err := tearDown(t, c); err != nil {
						return err
					}
				}
				return nil
			}
			if err := notifyCh.Send(t, all); err != nil { // newSimpleBalancer
				return err
			}
			closec := sched.NewChan[struct{}](s, "closec", 0)
			if err := goAll(n, task{"lb_watcher", lbWatcher},
				task{"balancer_close", func(t *sched.Task) error {
					defer closec.Close(t)
					return closeBalancer(t)
				}},
				task{"conn_close", closeConn}); err != nil {
				return err
			}
			_, _, err := closec.Recv(t)
			return err
		})
	}
}
