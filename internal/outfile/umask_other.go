//go:build !unix

package outfile

import "io/fs"

// umask is 0 where there is none.
var umask fs.FileMode
