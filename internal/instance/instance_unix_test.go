//go:build !windows

package instance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without XDG_RUNTIME_DIR the lock file is in the shared temp dir, where
// another user may make it first: a link or a file of theirs is refused by
// name, and left alone.
func TestStrangersLockFileRefused(t *testing.T) {
	const nobody = 65534
	tests := []struct {
		name     string
		plant    func(t *testing.T, path string)
		needRoot bool
		want     []string
	}{
		{"a link to a file of ours", func(t *testing.T, path string) {
			target := filepath.Join(filepath.Dir(path), "target")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, false, []string{"is not a regular file (L", "remove it"}},
		{"a folder", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, false, []string{"is not a regular file (d"}},
		{"another user's file, open to all", func(t *testing.T, path string) {
			planted(t, path, 0o666, nobody)
		}, true, []string{fmt.Sprintf("belongs to uid %d (mode 0666), not to uid %d", nobody, os.Getuid()), "rm ", "XDG_RUNTIME_DIR"}},
		{"another user's file", func(t *testing.T, path string) {
			planted(t, path, 0o644, nobody)
		}, true, []string{fmt.Sprintf("belongs to uid %d (mode 0644)", nobody)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needRoot && os.Getuid() != 0 {
				t.Skip("making another user's file needs root (CI runs the tests as root)")
			}
			tmp := t.TempDir()
			t.Setenv("XDG_RUNTIME_DIR", "")
			t.Setenv("TMPDIR", tmp)
			name := uniqueName(t)
			path := lockPath(name, "", tmp, os.Getuid())
			tt.plant(t, path)
			before, _ := os.Lstat(path)
			release, err := Acquire(name)
			if err == nil {
				release()
				t.Fatal("Acquire took the stranger's lock file")
			}
			if !errors.Is(err, ErrNotOurs) {
				t.Fatalf("Acquire = %v, want ErrNotOurs", err)
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
				t.Errorf("the planted file changed: %v", err)
			}
		})
	}
}

func planted(t *testing.T, path string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.WriteFile(path, nil, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}
