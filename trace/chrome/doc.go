// Package chrome exports a cbcsim trace to the Chrome trace-event JSON
// format, which ui.perfetto.dev and chrome://tracing open: one lane per
// worker, a slice per task run, an instant per other event
// (docs/export.md).
//
//	tr, err := trace.Parse(f)
//	if err != nil { ... }
//	err = chrome.Write(os.Stdout, tr)
package chrome
