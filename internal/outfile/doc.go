// Package outfile writes the files cbcsim produces (traces, exports,
// failure directories) so that the user's file system is never damaged:
//
//   - A new or regular file is written to a temporary file beside it and
//     renamed over it on Commit, so a failed or interrupted run leaves the
//     old file (or nothing), never half a file.
//   - A symlink is followed: its target is replaced and the link stays.
//   - What is not a regular file (a FIFO, /dev/null, a terminal) is
//     written through, as a shell's > would; a directory is refused.
//   - An existing file keeps its permission bits; a new one gets 0644,
//     less the umask.
//   - A temporary file is removed on every way out: Abort, a failed
//     Commit (the rename included), and SIGINT or SIGTERM once
//     HandleSignals is on.
//   - A command that can end early and still report (fuzz, explore) takes
//     the first SIGINT or SIGTERM with OnInterrupt; a second one exits.
//
// docs/reliability.md lists these guarantees with the rest of the tool's.
package outfile
