package testlog

import (
	"log/slog"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what is logged to it.
type recorder struct {
	testing.TB
	lines    []string
	cleanups []func()
}

func (r *recorder) Log(args ...any)  { r.lines = append(r.lines, args[0].(string)) }
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func TestNew(t *testing.T) {
	tests := []struct {
		name      string
		level     slog.Level
		afterEnd  bool
		wantLines int
	}{
		{"debug and info records at debug level", slog.LevelDebug, false, 2},
		{"debug record below info level", slog.LevelInfo, false, 1},
		{"record after the test ended is dropped", slog.LevelDebug, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			log := New(r, tc.level)
			if tc.afterEnd {
				for _, f := range r.cleanups {
					f()
				}
			}
			log.Debug("detail")
			log.Info("engine ready", "variant", "cpu")
			if len(r.lines) != tc.wantLines {
				t.Fatalf("logged %q, want %d lines", r.lines, tc.wantLines)
			}
			if tc.wantLines > 0 && !strings.Contains(r.lines[len(r.lines)-1], `msg="engine ready" variant=cpu`) {
				t.Fatalf("logged %q", r.lines)
			}
		})
	}
}
