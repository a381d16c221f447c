package models

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunCLI(t *testing.T) {
	h := newFakeHub(t)
	h.addRepo(tinyRepo, 1<<20, "vocabulary.json")
	cacheDir := t.TempDir()
	c := newTestCache(t, h, cacheDir, nil)
	c.progressEvery = 0
	installed := filepath.Join(cacheDir, "Systran--faster-whisper-tiny.en")

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		wantErr    []string
		notWantOut []string
	}{
		{name: "no command", args: nil, wantCode: 2, wantErr: []string{"usage: whisperkey models"}},
		{name: "unknown command", args: []string{"fetch"}, wantCode: 2, wantErr: []string{`unknown command "fetch"`}},
		{name: "pull without name", args: []string{"pull"}, wantCode: 2, wantErr: []string{"takes 1 argument(s), got 0"}},
		{name: "help", args: []string{"help"}, wantCode: 0, wantOut: []string{"pull NAME"}},
		{name: "list before pull", args: []string{"list"}, wantCode: 0,
			wantOut: []string{"NAME", "DOWNLOADED", "tiny.en", "~78.0 MB", "large-v3-turbo"}, notWantOut: []string{"yes", cacheDir}},
		{name: "pull", args: []string{"pull", "tiny.en"}, wantCode: 0,
			wantOut: []string{installed + "\n"}, wantErr: []string{"\r[", "100% tiny.en: 1.0/1.0 MB"}},
		{name: "list after pull", args: []string{"list"}, wantCode: 0, wantOut: []string{"yes", "1.0 MB", installed + "\n"}},
		{name: "pull unknown repo", args: []string{"pull", "nobody/nothing"}, wantCode: 1,
			wantErr: []string{"whisperkey models pull: pull nobody/nothing: model repository nobody/nothing was not found on Hugging Face"}},
		{name: "rm", args: []string{"rm", "tiny.en"}, wantCode: 0, wantOut: []string{"removed tiny.en"}},
		{name: "rm again", args: []string{"rm", "tiny.en"}, wantCode: 1, wantErr: []string{"is not downloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := RunCLI(t.Context(), tt.args, &out, &errOut, c)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out.String(), errOut.String())
			}
			for _, s := range tt.wantOut {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.notWantOut {
				if strings.Contains(out.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%q", s, errOut.String())
				}
			}
		})
	}
	if _, err := os.Stat(installed); !os.IsNotExist(err) {
		t.Fatalf("model still installed after rm: %v", err)
	}
}
