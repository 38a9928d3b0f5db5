package goker

import "github.com/cbcsim/cbcsim/sched"

var _ = register(Kernel{ID: "kubernetes_30872", Subtype: abba, Body: kubernetes30872})

// kubernetes30872: the federated informer's ClustersSynced holds the
// informer's lock and asks the cluster controller whether its FIFO has
// synced, which takes the FIFO's lock. The controller's loop pops from
// the FIFO holding the FIFO's lock, and processing the item adds a
// cluster, which takes the informer's lock: the two locks in opposite
// orders. The fix releases the informer's lock before asking the
// controller.
func kubernetes30872(fixed bool) sched.Func {
	return func(t *sched.Task) error {
		s := t.Scheduler()
		informerMu := newMutex(t, "federated_informer")
		fifoMu := newRWMutex(t, "delta_fifo")
		stop := sched.NewChan[struct{}](s, "stop", 0)
		informerStop := sched.NewChan[struct{}](s, "informer_stop", 0)
		controllerRun := func(t *sched.Task) error {
			for {
				if _, _, ready := informerStop.TryRecv(t); ready {
					return nil
				}
				if err := fifoMu.lock(t); err != nil { // Pop
					return err
				}
				if err := informerMu.lock(t); err != nil { // addCluster
					return err
				}
				if err := informerMu.unlock(t); err != nil {
					return err
				}
				if err := fifoMu.unlock(t); err != nil {
					return err
				}
			}
		}
		clustersSynced := func(t *sched.Task) error {
			if err := informerMu.lock(t); err != nil {
				return err
			}
			if fixed {
				if err := informerMu.unlock(t); err != nil {
					return err
				}
			}
			if err := fifoMu.lock(t); err != nil { // HasSynced
				return err
			}
			if err := fifoMu.unlock(t); err != nil {
				return err
			}
			if fixed {
				return nil
			}
			return informerMu.unlock(t)
		}
		return scope(t, func(n *sched.Nursery) error {
			if err := informerMu.lock(t); err != nil { // informer Start
				return err
			}
			if err := n.Go("controller_run", controllerRun); err != nil {
				return err
			}
			if err := informerMu.unlock(t); err != nil {
				return err
			}
			if err := goAll(n,
				task{"stop_informer", func(t *sched.Task) error {
					if _, _, err := stop.Recv(t); err != nil {
						return err
					}
					if err := informerMu.lock(t); err != nil {
						return err
					}
					defer informerMu.unlock(t)
					return informerStop.Close(t)
				}},
				task{"reconcile_namespace", clustersSynced}); err != nil {
				return err
			}
			return stop.Close(t)
		})
	}
}
