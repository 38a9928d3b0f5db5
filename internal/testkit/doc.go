// Package testkit holds the test helpers that the tests of several
// packages share (test files cannot be imported across packages): golden
// files and the contents of a repro directory. Only tests import it.
//
//	var update = flag.Bool("update", false, "rewrite testdata/")
//	testkit.Golden(t, "testdata/x.golden", got, *update)
//	readme := testkit.ReproDir(t, dir, src, 4, 2)
package testkit
