// Package doccheck runs the commands that README.md and docs/*.md show and
// compares their output with the output the documents show, so that a
// documented command cannot go stale (docs/contributing.md, "Runnable
// docs"). `make doccheck` runs it:
//
//	blocks, err := doccheck.Parse("docs/diff.md", src)
//	problems := doccheck.Runner{Dir: sandbox, Path: binDir}.Run(blocks)
//
// What is run: a fenced block tagged sh (or bash, shell) is a list of
// commands, one per line (a trailing backslash continues it; # starts a
// comment); a fenced block with lines starting with "$ " is a session,
// each "$ " line a command and the lines up to the next one its output.
// Other blocks (usage synopses, TOML, Go) are not run.
//
// An HTML comment just before a block, invisible when the page is shown,
// says what not to run and why:
//
//	<!-- doccheck: skip: the CI job's script, run by Kubernetes -->
//	<!-- doccheck: not-run make test; not-run make bench: minutes -->
//
// not-run takes a prefix of the command (its # comment aside), or with
// "=" the whole command: "not-run =cbcsim bench" leaves out that command
// but not "cbcsim bench --quick".
//
// Output is compared line by line after trailing spaces are removed:
// every shown line must appear, in order, in what the command printed
// (stdout and stderr); lines the document leaves out may be missing, a
// line "..." says so for a reader, and "[...]" inside a line matches any
// text (a time, a rate). A command must exit 0; a cbcsim command may also
// exit 1 (a failure found, traces that differ: what a worked example
// shows); 2 (bad input) or anything else is a problem. "echo $?" shows the
// status of the command before it.
package doccheck
