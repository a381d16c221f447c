package commands

import (
	"io"
	"log/slog"
	"os"

	"github.com/whisperkey/whisperkey/internal/engine"
)

// runWorker is the hidden engine-worker command: it serves the engine
// protocol on stdin/stdout and logs to stderr, which the app captures.
func runWorker(stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return engine.Serve(os.Stdin, os.Stdout, log)
}
