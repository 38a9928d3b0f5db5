//go:build !unix

package bench

import "time"

// cpuTime reports no CPU time where getrusage does not exist; the scaling
// table then leaves its cores column empty.
func cpuTime() (time.Duration, bool) { return 0, false }
