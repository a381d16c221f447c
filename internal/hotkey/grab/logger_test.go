package grab

import (
	"log/slog"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testlog"
)

// logger is the grabber's log in the test output with -v, else nowhere.
func logger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return testlog.New(t, slog.LevelDebug)
	}
	return testlog.Discard()
}
