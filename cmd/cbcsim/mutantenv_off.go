//go:build !mutants

package main

import (
	"fmt"
	"io"
)

// mutantFromEnv refuses CBCSIM_MUTANT: a binary without the mutants tag
// has no mutant, and running as though one were on would show the correct
// scheduler as the broken one. It does not import package mutant, so that
// a production binary holds no symbol of it (docs/mutants.md).
func mutantFromEnv(value string, _ io.Writer) error {
	if value == "" {
		return nil
	}
	return fmt.Errorf("CBCSIM_MUTANT=%q: this binary was built without the mutants tag (go build -tags mutants ./cmd/cbcsim; docs/mutants.md)", value)
}
