package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// onceString is a string flag that may be given once: a second
// `--shard 1/3 --shard 2/3` is refused (exit 2) instead of silently
// taking the last, as pflag does. It is for the flags whose repetition
// is a mistake with consequences: which shard runs, where a report goes.
type onceString struct {
	p   *string
	set bool
}

// onceStringVar registers name as a onceString flag of cmd bound to p.
func onceStringVar(cmd *cobra.Command, p *string, name, value, usage string) {
	*p = value
	cmd.Flags().Var(&onceString{p: p}, name, usage)
}

func (o *onceString) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): give it once", *o.p, v)
	}
	o.set = true
	*o.p = v
	return nil
}

func (o *onceString) String() string {
	if o == nil || o.p == nil {
		return ""
	}
	return *o.p
}

func (o *onceString) Type() string { return "string" }
