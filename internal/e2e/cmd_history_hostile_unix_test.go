//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/history"
)

// `whisperkey history` reads a history file only: a FIFO, a device or a
// file larger than the app writes is refused at once, saying what it is
// and what to do, and left as it is.
func TestHistoryRefusesWhatIsNotAHistory(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want []string
	}{
		{"a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a regular file (a FIFO)"}},
		{"a link to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a regular file (a character device)"}},
		{"over the cap", func(t *testing.T, path string) {
			// A million entries, as the probe wrote: about 150 MB.
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fmt.Fprint(f, `{"version": 1, "entries": [`)
			entry := `{"id": "%d", "text": "dictation %d, a sentence of ordinary length for a test", "at": "2026-01-02T03:04:05Z"},`
			for i := 1_000_000; i > 1; i-- {
				fmt.Fprintf(f, entry, i, i)
			}
			fmt.Fprint(f, `{"id": "1", "text": "the first", "at": "2026-01-02T03:04:05Z"}]}`)
		}, []string{"larger than 8 MiB", "WhisperKey never writes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			t.Setenv("XDG_STATE_HOME", state)
			t.Setenv("WHISPERKEY_CACHE", t.TempDir())
			path := history.Path(filepath.Join(state, "whisperkey"))
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			tt.make(t, path)
			before, _ := os.Lstat(path)
			r := historyCLI(t)
			if r.code != 1 {
				t.Fatalf("history: exit %d, want 1; stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			for _, w := range append(tt.want, path, "move it away to start a new history") {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not say %q", r.stderr, w)
				}
			}
			if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				t.Errorf("the file changed: %v", err)
			}
		})
	}
}

// `whisperkey history` prints what the app keeps of a file that holds more
// (the newest 20), as plain text: the escape sequences and controls a file
// may hold never reach the terminal.
func TestHistoryPrintsTheKeptAsPlainText(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("WHISPERKEY_CACHE", t.TempDir())
	path := history.Path(filepath.Join(state, "whisperkey"))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`{"version": 1, "entries": [`)
	b.WriteString(`{"id": "1501", "text": "\u001b]0;owned\u0007\u001b[2Jplain\r\nwords\u001b[31m red\u009b0m", ` +
		`"raw": "as \u001b[1Aheard\u0008\u0008", "profile": "\u001b[5mmail", "cleanup": "clean\u0007", "at": "2026-01-02T03:30:00Z"}`)
	for i := 1500; i >= 1; i-- {
		fmt.Fprintf(&b, `, {"id": "%d", "text": "dictation %d", "at": "2026-01-02T03:04:05Z"}`, i, i)
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := historyCLI(t)
	if r.code != 0 {
		t.Fatalf("history: exit %d; stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != history.DefaultMax+1 { // the newest has its text as heard too
		t.Fatalf("history printed %d lines, want %d:\n%s", len(lines), history.DefaultMax+1, r.stdout)
	}
	if !strings.HasSuffix(lines[0], "  dictation 1482") || !strings.HasSuffix(lines[18], "  dictation 1500") {
		t.Errorf("history printed %q … %q; want the kept dictation 1482 … 1500, oldest first", lines[0], lines[18])
	}
	if !strings.HasSuffix(lines[19], "  [mail, clean]  plain words red") || lines[20] != "                     as heard: as heard" {
		t.Errorf("the newest is printed as %q, %q; want its words alone", lines[19], lines[20])
	}
	if strings.ContainsFunc(r.stdout, func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 }) {
		t.Errorf("history printed control characters: %q", r.stdout)
	}
}

// historyCLI runs `whisperkey history`; one that still runs after a minute
// (a FIFO blocks forever) fails the test.
func historyCLI(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := runCmd(t, exec.CommandContext(ctx, binary(t), "history"))
	if ctx.Err() != nil {
		t.Fatal("whisperkey history still ran after a minute")
	}
	return r
}
