// Package testkit holds the test helpers that the tests of several
// packages share (test files cannot be imported across packages): golden
// files, the contents of a repro directory, the cbcsim binary built once
// for the tests that run it, and whether the full counts are asked for
// (`make test`). Only tests import it.
//
//	var update = flag.Bool("update", false, "rewrite testdata/")
//	testkit.Golden(t, "testdata/x.golden", got, *update)
//	readme := testkit.ReproDir(t, dir, src, 4, 2)
//	bin, err := testkit.BuildCbcsim("") // defer os.RemoveAll(filepath.Dir(bin))
//	if testkit.Full() { runs = 1000 }
package testkit
