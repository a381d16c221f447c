package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenWritesLevelledRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "logs")
	var console bytes.Buffer
	log, closer, path, err := open(dir, slog.LevelInfo, &console, false, maxFileSize, keepFiles)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, FileName); path != want {
		t.Errorf("path = %q, want %q", path, want)
	}
	log.Debug("hidden detail")
	log.Info("engine ready", "variant", "cpu")
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	if err := closer.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"file": string(data), "console": console.String()} {
		if !strings.Contains(text, `msg="engine ready" variant=cpu`) {
			t.Errorf("%s lacks the info record:\n%s", name, text)
		}
		if strings.Contains(text, "hidden detail") {
			t.Errorf("%s has the debug record below the level:\n%s", name, text)
		}
	}
	log.Info("after close") // must not panic; the record is dropped
}

// With WHISPERKEY_LOG_FORMAT=json every record is one JSON object, so tests
// and tools read fields without parsing the text format.
func TestOpenJSONRecords(t *testing.T) {
	t.Setenv(FormatEnv, "json")
	dir := t.TempDir()
	log, closer, path, err := Open(dir, slog.LevelInfo)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("dictated", "chars", 12, "engine_ms", 345.5)
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Msg      string  `json:"msg"`
		Level    string  `json:"level"`
		Chars    int     `json:"chars"`
		EngineMS float64 `json:"engine_ms"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &rec); err != nil {
		t.Fatalf("log is not one JSON record: %v\n%s", err, data)
	}
	if rec.Msg != "dictated" || rec.Level != "INFO" || rec.Chars != 12 || rec.EngineMS != 345.5 {
		t.Fatalf("record = %+v", rec)
	}
}

func TestOpenAppendsToExistingLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("earlier run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log, closer, _, err := open(dir, slog.LevelInfo, nil, false, maxFileSize, keepFiles)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("this run")
	closer.Close()
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "earlier run\n") || !strings.Contains(string(data), "this run") {
		t.Errorf("log file = %q, want the earlier run kept and this run appended", data)
	}
}

func TestRotationKeepsThreeFiles(t *testing.T) {
	tests := []struct {
		name   string
		max    int64
		keep   int
		writes int
		want   []string // files that must exist
		absent []string
	}{
		{name: "below the limit", max: 1000, keep: 3, writes: 5, want: []string{FileName}, absent: []string{FileName + ".1"}},
		{name: "one rotation", max: 100, keep: 3, writes: 15, want: []string{FileName, FileName + ".1"}, absent: []string{FileName + ".2"}},
		{name: "many rotations", max: 100, keep: 3, writes: 200, want: []string{FileName, FileName + ".1", FileName + ".2"}, absent: []string{FileName + ".3"}},
		{name: "keep one truncates", max: 100, keep: 1, writes: 50, want: []string{FileName}, absent: []string{FileName + ".1"}},
	}
	line := []byte("0123456789\n") // 11 bytes
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r, err := newRotatingFile(filepath.Join(dir, FileName), tt.max, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tt.writes; i++ {
				if n, err := r.Write(line); err != nil || n != len(line) {
					t.Fatalf("write %d: n=%d err=%v", i, n, err)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			for _, f := range tt.want {
				st, err := os.Stat(filepath.Join(dir, f))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if st.Size() > tt.max {
					t.Errorf("%s is %d bytes, over the %d limit", f, st.Size(), tt.max)
				}
			}
			for _, f := range tt.absent {
				if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s exists (err=%v), want it absent", f, err)
				}
			}
			if _, err := r.Write(line); !errors.Is(err, fs.ErrClosed) {
				t.Errorf("write after Close: err=%v, want fs.ErrClosed", err)
			}
		})
	}
}

func TestRotationKeepsNewestRecords(t *testing.T) {
	dir := t.TempDir()
	r, err := newRotatingFile(filepath.Join(dir, FileName), 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"first record ...\n", "second record ..\n", "third record ...\n", "fourth record ..\n"} {
		if _, err := r.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}
	// Each 17-byte record fills a file, so the three files hold the last three.
	if got := read(FileName); got != "fourth record ..\n" {
		t.Errorf("current = %q", got)
	}
	if got := read(FileName + ".1"); got != "third record ...\n" {
		t.Errorf(".1 = %q", got)
	}
	if got := read(FileName + ".2"); got != "second record ..\n" {
		t.Errorf(".2 = %q", got)
	}
}

func TestOpenBadDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := Open(filepath.Join(file, "logs"), slog.LevelInfo); err == nil {
		t.Fatal("Open under a regular file succeeded, want an error")
	}
	if _, _, _, err := Open("", slog.LevelInfo); err == nil {
		t.Fatal("Open with no directory succeeded, want an error")
	}
}
