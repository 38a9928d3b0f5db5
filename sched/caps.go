package sched

import (
	"fmt"
	"strings"
)

// Caps is a set of capabilities (docs/spec.md#capabilities).
type Caps uint8

const (
	CapSpawn      Caps = 1 << iota // may spawn children and open nurseries
	CapBudget                      // may recharge its own budget
	CapSupervisor                  // may recharge children (cluster profile)
	CapChannel                     // may use channels
	CapIO                          // may perform syscalls

	CapsAll = CapSpawn | CapBudget | CapSupervisor | CapChannel | CapIO
)

var capNames = [...]string{"spawn", "budget", "supervisor", "channel", "io"}

// ParseCaps turns capability names into a set.
func ParseCaps(names []string) (Caps, error) {
	var c Caps
	for _, n := range names {
		found := false
		for i, cn := range capNames {
			if n == cn {
				c |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown capability %q (want one of %s)", n, strings.Join(capNames[:], ", "))
		}
	}
	return c, nil
}

func (c Caps) String() string {
	var parts []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, ",")
}
