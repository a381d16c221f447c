package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestPTTCommandLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "control.sock")
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitCode(run(context.Background(), tt.args, &stdout, &stderr), &stderr)
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
