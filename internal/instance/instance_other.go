//go:build !windows

package instance

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// Acquire takes the single-instance guard called name. The returned release
// gives it up (safe to call twice); the OS also frees it when the process exits.
func Acquire(name string) (release func(), err error) {
	path := lockPath(name, paths.RuntimeDir(), os.TempDir(), os.Getuid())
	// In the shared temp dir another user may have made the file first: a
	// link of theirs must not be followed, and a file of theirs, which they
	// could hold locked, is refused by name rather than taken for an app.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil {
			if bad := notOurs(path, st, os.Getuid()); bad != nil {
				return nil, bad
			}
		}
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil {
		err = notOurs(path, st, os.Getuid())
	}
	if err != nil {
		f.Close()
		return nil, err
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

// notOurs says why the lock file at path is not one uid may use: it is no
// regular file, or another user owns it.
func notOurs(path string, st os.FileInfo, uid int) error {
	owner := -1
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		owner = int(sys.Uid)
	}
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%v, owner uid %d); remove it and start WhisperKey again",
			ErrNotOurs, path, st.Mode(), owner)
	case owner >= 0 && owner != uid:
		return fmt.Errorf("%w: %s belongs to uid %d (mode %04o), not to uid %d who runs WhisperKey, and its owner could hold it "+
			"to keep WhisperKey from starting; remove it (as root: rm %s) and start WhisperKey again, "+
			"or set XDG_RUNTIME_DIR to your private runtime folder", ErrNotOurs, path, owner, st.Mode().Perm(), uid, path)
	}
	return nil
}
