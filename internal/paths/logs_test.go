package paths

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLogDirFor(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		home    string
		want    string
		wantErr bool
	}{
		{name: "windows", goos: "windows", env: map[string]string{"LOCALAPPDATA": `C:\Users\ann\AppData\Local`}, home: `C:\Users\ann`, want: `C:\Users\ann\AppData\Local\whisperkey\logs`},
		{name: "windows trailing slash", goos: "windows", env: map[string]string{"LOCALAPPDATA": `D:\data\`}, want: `D:\data\whisperkey\logs`},
		{name: "windows without LOCALAPPDATA", goos: "windows", home: `C:\Users\ann`, want: `C:\Users\ann\AppData\Local\whisperkey\logs`},
		{name: "windows with nothing", goos: "windows", wantErr: true},
		{name: "linux XDG_STATE_HOME", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "/var/state/ann"}, home: "/home/ann", want: "/var/state/ann/whisperkey/logs"},
		{name: "linux default", goos: "linux", home: "/home/ann", want: "/home/ann/.local/state/whisperkey/logs"},
		{name: "linux relative XDG_STATE_HOME ignored", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "state"}, home: "/home/ann", want: "/home/ann/.local/state/whisperkey/logs"},
		{name: "linux with nothing", goos: "linux", wantErr: true},
		{name: "freebsd like linux", goos: "freebsd", home: "/home/ann", want: "/home/ann/.local/state/whisperkey/logs"},
		{name: "macos", goos: "darwin", env: map[string]string{"XDG_STATE_HOME": "/ignored"}, home: "/Users/ann", want: "/Users/ann/Library/Logs/whisperkey"},
		{name: "macos without home", goos: "darwin", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := logDirFor(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("logDirFor = %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("logDirFor = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogDirOnThisOS(t *testing.T) {
	d, err := LogDir()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(d) || !strings.Contains(d, "whisperkey") {
		t.Errorf("LogDir() = %q, want an absolute path containing whisperkey", d)
	}
}
