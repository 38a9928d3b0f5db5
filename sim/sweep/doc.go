// Package sweep runs many independent, deterministic jobs (the runs of
// `cbcsim check`, the seeds of `cbcsim fuzz`, the schedules of `cbcsim
// explore`) on a few goroutines, with a line of progress, early stop and
// sharding across machines:
//
//	sh, err := sweep.ParseShard(flag, os.Getenv) // "", "2/3" or "auto"
//	n := sh.Count(total)                          // this shard's jobs
//	st := sweep.Run(ctx, n, sweep.Options{Jobs: 4, Name: "check", Progress: os.Stderr},
//		func(j int64) sweep.Verdict {
//			i := sh.Index(j) // the job's index in the unsharded sweep
//			...
//			return sweep.Passed // or Failed, or Stop
//		})
//
// Jobs are handed out in increasing order from one atomic counter, so
// when Run returns, every job below st.Handed has finished: a caller that
// stops at the first failure and reports the lowest failing job gets the
// same answer on any number of goroutines. Shard K of N owns the jobs
// whose index is K-1 modulo N; the N shards together run every job of
// the unsharded sweep exactly once (docs/check.md#sharding).
package sweep
