package testenv

import (
	"log/slog"
	"os"

	"github.com/whisperkey/whisperkey/internal/engine"
)

const workerEnv = "WHISPERKEY_TEST_ENGINE_WORKER"

// ServeWorkerIfAsked turns a test binary into the engine worker when the
// engine client started it as one (see WorkerOptions). Call it first in TestMain.
func ServeWorkerIfAsked() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	if err := engine.Serve(os.Stdin, os.Stdout, slog.New(slog.NewTextHandler(os.Stderr, nil))); err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}

// WorkerOptions make the engine client run this test binary as its worker.
func WorkerOptions() engine.Options {
	return engine.Options{Exe: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{workerEnv + "=1"}}
}
