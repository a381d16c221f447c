package instance

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// App is the guard name of the tray app. installer/whisperkey.nsi waits for
// the same mutex to disappear before it replaces or removes files.
const App = "app"

// ErrAlreadyRunning means another process holds the guard of the same name.
var ErrAlreadyRunning = errors.New("another WhisperKey is already running")

// ErrNotOurs means the guard's lock file is another user's, or no file: in
// the shared temp dir a stranger may have made it first.
var ErrNotOurs = errors.New("the single-instance lock file is not ours")

// mutexName is the Windows mutex for name. "Local\" scopes it to the login
// session, so two users on one machine each get their own app; a backslash
// after the prefix would be read as another namespace, so it is replaced.
func mutexName(name string) string {
	return `Local\WhisperKey-` + sanitize(name)
}

// lockPath is the lock file for name on Unix-like systems: in the per-user
// runtime dir when there is one, else in the shared temp dir with the uid in
// the name so users do not block each other.
func lockPath(name, runtimeDir, tempDir string, uid int) string {
	if runtimeDir != "" && filepath.IsAbs(runtimeDir) {
		return filepath.Join(runtimeDir, "whisperkey-"+sanitize(name)+".lock")
	}
	return filepath.Join(tempDir, fmt.Sprintf("whisperkey-%d-%s.lock", uid, sanitize(name)))
}

// sanitize keeps name usable in a file or kernel-object name.
func sanitize(name string) string {
	if name == "" {
		return "default"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
}

// once makes a release function safe to call more than once.
func once(f func()) func() {
	var o sync.Once
	return func() { o.Do(f) }
}
