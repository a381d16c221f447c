package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPTTCommandLine(t *testing.T) {
	private := t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(private, "control.sock")
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string // in stderr
	}{
		{"no command", []string{"ptt"}, 2, []string{"usage: whisperkey ptt press|release|toggle|cancel"}},
		{"unknown command", []string{"ptt", "hold"}, 2, []string{`unknown command "hold"`, `"press", "release", "toggle" or "cancel"`}},
		{"app not running", []string{"ptt", "press", "--socket", missing}, 1,
			[]string{"WhisperKey is not running", "no control socket at " + missing, "whisperkey run"}},
		{"folder others may enter", []string{"ptt", "press", "--socket", filepath.Join(open, "control.sock")}, 1,
			[]string{"control socket " + filepath.Join(open, "control.sock") + " was not used", open + " (owner uid", "has mode 0755", "chmod 700 " + open}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitCode(run(context.Background(), testBuild, tt.args, &stdout, &stderr), &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}
