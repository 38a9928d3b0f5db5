//go:build mutants

package main

import (
	"fmt"
	"io"

	"github.com/cbcsim/cbcsim/internal/mutant"
)

// mutantFromEnv switches on the mutant CBCSIM_MUTANT names and says so on
// stderr, so that a shell user or a CI recipe can show a mutant with the
// real binary (docs/mutants.md).
func mutantFromEnv(value string, stderr io.Writer) error {
	n, err := mutant.FromEnv(value)
	if err != nil {
		return err
	}
	if n != mutant.None {
		fmt.Fprintf(stderr, "cbcsim: mutant %s is on (%s): the scheduler is broken on purpose\n", n, mutant.EnvVar)
	}
	return nil
}
