//go:build unix

package history_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// unixOnly are the files of TestReadRefusesWhatIsNotAHistory that only Unix has:
// a FIFO would block a plain open, /dev/zero never ends.
var unixOnly = []notAHistory{
	{"a FIFO", func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}, []string{"not a regular file (a FIFO)", "move it away"}},
	{"a link to /dev/zero", func(t *testing.T, path string) {
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}, []string{"not a regular file (a character device)"}},
	{"a link to a FIFO", func(t *testing.T, path string) {
		fifo := filepath.Join(filepath.Dir(path), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(fifo, path); err != nil {
			t.Fatal(err)
		}
	}, []string{"not a regular file (a FIFO)"}},
}
