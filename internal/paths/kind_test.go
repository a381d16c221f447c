package paths

import (
	"io/fs"
	"testing"
)

func TestKind(t *testing.T) {
	tests := []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "a regular file"},
		{fs.ModeDir | 0o755, "a folder"},
		{fs.ModeSymlink | 0o777, "a symbolic link"},
		{fs.ModeNamedPipe | 0o600, "a FIFO"},
		{fs.ModeSocket | 0o700, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice | 0o666, "a character device"},
		{fs.ModeDevice | 0o660, "a block device"},
		{fs.ModeIrregular, "?---------"},
	}
	for _, tt := range tests {
		if got := Kind(tt.mode); got != tt.want {
			t.Errorf("Kind(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
