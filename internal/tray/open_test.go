package tray

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOpenPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	guide := "https://github.com/whisperkey/whisperkey/blob/main/docs/gpu-setup.md"
	tests := []struct {
		name    string
		goos    string
		path    string
		runErr  error
		wantCmd []string // nil: nothing runs
		wantErr string
	}{
		{name: "linux file", goos: "linux", path: file, wantCmd: []string{"xdg-open", file}},
		{name: "linux url", goos: "linux", path: guide, wantCmd: []string{"xdg-open", guide}},
		{name: "windows file", goos: "windows", path: file, wantCmd: []string{"rundll32", "url.dll,FileProtocolHandler", file}},
		{name: "darwin url", goos: "darwin", path: guide, wantCmd: []string{"open", guide}},
		{name: "freebsd uses xdg-open", goos: "freebsd", path: dir, wantCmd: []string{"xdg-open", dir}},
		{name: "missing file", goos: "linux", path: filepath.Join(dir, "app.log"), wantErr: "app.log"},
		{name: "empty path", goos: "linux", path: "", wantErr: "empty path"},
		{name: "opener fails", goos: "linux", path: file, runErr: errors.New("exit status 3"),
			wantCmd: []string{"xdg-open", file}, wantErr: "with xdg-open: exit status 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := openPath(tt.goos, tt.path, func(name string, args ...string) error {
				got = append([]string{name}, args...)
				return tt.runErr
			})
			if !reflect.DeepEqual(got, tt.wantCmd) {
				t.Errorf("ran %q, want %q", got, tt.wantCmd)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestTruncateUTF16(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{name: "fits", in: "WhisperKey: ready", n: 127, want: "WhisperKey: ready"},
		{name: "cut with ellipsis", in: "abcdef", n: 4, want: "abc…"},
		{name: "surrogate pair counts two", in: "ab😀cd", n: 4, want: "ab…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := truncateUTF16(tt.in, tt.n); got != tt.want {
				t.Errorf("truncateUTF16(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
