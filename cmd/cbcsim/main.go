package main

import (
	"os"

	"github.com/cbcsim/cbcsim/internal/outfile"
)

func main() {
	outfile.HandleSignals() // an interrupt leaves no temporary file behind
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}
