//go:build !windows

package instance

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Acquire takes the single-instance guard called name. The returned release
// gives it up (safe to call twice); the OS also frees it when the process exits.
func Acquire(name string) (release func(), err error) {
	path := lockPath(name, runtimeDir(), os.TempDir(), os.Getuid())
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrAlreadyRunning
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The file is left in place: deleting it on release would race with a
	// process that has just opened the old file and is about to lock it.
	return once(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}), nil
}

// runtimeDir is $XDG_RUNTIME_DIR, the per-user directory for such files.
func runtimeDir() string { return os.Getenv("XDG_RUNTIME_DIR") }
