// Command gen draws WhisperKey's icons and writes its feedback sounds into assets/;
// its output is deterministic and committed, so `go generate ./assets` is only
// needed after changing it.
package main
