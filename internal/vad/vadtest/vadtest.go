package vadtest

import (
	"log/slog"
	"os"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad"
)

// Open loads the detector from testenv.VADDir, which says what to run when
// its files are missing, logging to stderr; the test's cleanup closes it.
func Open(t testing.TB) *vad.Detector {
	t.Helper()
	lib, model, err := vad.Find(testenv.VADDir(t))
	if err != nil {
		t.Fatal(err)
	}
	d, err := vad.Open(lib, model, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}
