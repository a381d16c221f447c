package logging

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// FormatEnv names the environment variable that, set to "json", writes the
// log as JSON records (one per line) for tools and tests to read without
// parsing the text format.
const FormatEnv = "WHISPERKEY_LOG_FORMAT"

// FileName is the name of the current log file; older ones get .1, .2 appended.
const FileName = "whisperkey.log"

const (
	maxFileSize = 5 << 20 // bytes per file before it is rotated
	keepFiles   = 3       // whisperkey.log plus .1 and .2
)

// Open starts logging at level (a *slog.LevelVar changes it while running)
// into dir/whisperkey.log (creating dir), which
// is rotated at 5 MB keeping three files. When stderr is a terminal the
// records go there too. It returns the logger, the closer of the file and the
// file's path.
func Open(dir string, level slog.Leveler) (*slog.Logger, io.Closer, string, error) {
	var extra io.Writer
	if isTerminal(os.Stderr) {
		extra = os.Stderr
	}
	return open(dir, level, extra, os.Getenv(FormatEnv) == "json", maxFileSize, keepFiles)
}

func open(dir string, level slog.Leveler, extra io.Writer, jsonRecords bool, maxSize int64, keep int) (*slog.Logger, io.Closer, string, error) {
	if dir == "" {
		return nil, nil, "", errors.New("open log: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("create log directory: %w", err)
	}
	p := filepath.Join(dir, FileName)
	rf, err := newRotatingFile(p, maxSize, keep)
	if err != nil {
		return nil, nil, "", err
	}
	var w io.Writer = rf
	if extra != nil {
		w = tee{primary: rf, secondary: extra}
	}
	ho := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, ho)
	if jsonRecords {
		h = slog.NewJSONHandler(w, ho)
	}
	return slog.New(h), rf, p, nil
}

// tee writes to primary and, best effort, to secondary: a console that went
// away must not stop the log file.
type tee struct {
	primary, secondary io.Writer
}

func (t tee) Write(p []byte) (int, error) {
	n, err := t.primary.Write(p)
	_, _ = t.secondary.Write(p)
	return n, err
}

// isTerminal reports whether f is a console or terminal. A GUI-subsystem
// process on Windows has no valid stderr, and Stat fails there.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
