//go:build unix

package outfile

import (
	"io/fs"
	"syscall"
)

// umask is the process's umask, read once at start-up: reading it means
// setting it, so it is done before any goroutine can create a file.
var umask = func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}()
