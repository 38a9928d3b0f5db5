package sched_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"

	"github.com/cbcsim/cbcsim/nursery"
	"github.com/cbcsim/cbcsim/sched"
)

// Blocking runs a call that blocks, here an HTTP request to a server on
// the loopback address, without holding a worker: the two workers keep
// running other tasks while the requests are in flight. The request takes
// the task's context, so a cancelled task (a sibling failed, a timeout)
// aborts its request.
func ExampleTask_Blocking() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", strings.TrimPrefix(r.URL.Path, "/"))
	}))
	defer srv.Close()

	s, err := sched.New(sched.Config{Workers: 2, Budget: sched.Unlimited})
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var bodies []string
	res := s.Run("main", func(t *sched.Task) error {
		return t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			for _, name := range []string{"ann", "bob", "cy"} {
				if err := n.Go("get "+name, func(t *sched.Task) error {
					return t.Blocking(func(ctx context.Context) error {
						req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/"+name, nil)
						if err != nil {
							return err
						}
						resp, err := srv.Client().Do(req)
						if err != nil {
							return err
						}
						defer resp.Body.Close()
						body, err := io.ReadAll(resp.Body)
						mu.Lock()
						bodies = append(bodies, string(body))
						mu.Unlock()
						return err
					})
				}); err != nil {
					return err
				}
			}
			return nil
		})
	})
	sort.Strings(bodies)
	fmt.Println(strings.Join(bodies, ", "))
	fmt.Println("main:", res)
	// Output:
	// hello ann, hello bob, hello cy
	// main: ok
}

// Under collect_all every child runs to its end, and the nursery's error
// joins every child's error, the first first (conc's ErrorPool, Trio's
// ExceptionGroup): errors.Is finds each one. Its Error text is the first
// error's, as in a trace.
func ExampleNurseryOptions_collectAll() {
	errDisk := errors.New("disk full")
	errNet := errors.New("network down")
	s, err := sched.New(sched.Config{Workers: 1, Budget: sched.Unlimited})
	if err != nil {
		panic(err)
	}
	s.Run("main", func(t *sched.Task) error {
		err := t.Nursery(sched.NurseryOptions{Mode: nursery.CollectAll, MaxConcurrent: 1}, func(n *sched.Nursery) error {
			n.Go("write", func(*sched.Task) error { return errDisk })
			n.Go("ok", func(*sched.Task) error { return nil })
			n.Go("send", func(*sched.Task) error { return errNet })
			return nil
		})
		fmt.Println("disk:", errors.Is(err, errDisk), "network:", errors.Is(err, errNet))
		var ce *sched.ChildError
		if errors.As(err, &ce) {
			fmt.Printf("first: %v\nall:\n%v\n", ce, ce.Err)
		}
		return nil
	})
	// Output:
	// disk: true network: true
	// first: disk full
	// all:
	// disk full
	// network down
}

// A child may spawn into the nursery it was handed (GoFrom), as a Trio
// child may use the nursery passed to it: a crawler's pages spawn the
// pages they link to. It stays structured: the nursery waits for every
// task spawned into it, however late, before its owner goes on.
func ExampleNursery_GoFrom() {
	links := map[string][]string{"/": {"/a", "/b"}, "/a": {"/c"}, "/b": {"/c"}, "/c": nil}
	s, err := sched.New(sched.Config{Workers: 2, Budget: sched.Unlimited})
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	s.Run("main", func(t *sched.Task) error {
		err := t.Nursery(sched.NurseryOptions{}, func(n *sched.Nursery) error {
			var visit func(page string) sched.Func
			visit = func(page string) sched.Func {
				return func(t *sched.Task) error {
					for _, next := range links[page] {
						mu.Lock()
						fresh := !seen[next]
						seen[next] = true
						mu.Unlock()
						if fresh {
							if err := n.GoFrom(t, "visit "+next, visit(next)); err != nil {
								return err
							}
						}
					}
					return nil
				}
			}
			seen["/"] = true
			return n.Go("visit /", visit("/"))
		})
		fmt.Println("pages visited:", len(seen), "error:", err)
		return nil
	})
	// Output:
	// pages visited: 4 error: <nil>
}
