//go:build !windows

package session

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readableInputs counts the event devices under dir this process may read.
func readableInputs(dir string) int {
	paths, _ := filepath.Glob(filepath.Join(dir, "event*"))
	n := 0
	for _, p := range paths {
		if unix.Access(p, unix.R_OK) == nil {
			n++
		}
	}
	return n
}
