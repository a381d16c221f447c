// Command whisperkey is a push-to-talk dictation app: hold a hotkey, speak,
// release, and the words appear at the cursor.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// errSilent is a failure the command has already reported.
var errSilent = errors.New("failed")

// usageError is a bad command line or bad input file: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	attachConsole()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// envOr is the environment variable key, or def when it is empty.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd, rest := "", args
	if len(args) > 0 {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "", "run":
		return runApp(ctx, rest, stderr)
	case "transcribe":
		return runTranscribe(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stderr)
	case "doctor":
		return runDoctor(ctx, rest, stdout, stderr)
	case "models":
		return runModels(ctx, rest, stdout, stderr)
	case "config":
		return runConfig(rest, stdout, stderr)
	case "engine-worker":
		return runWorker(stderr)
	case "version", "--version":
		_, err := fmt.Fprintln(stdout, "whisperkey", version)
		return err
	case "help", "-h", "--help":
		_, err := fmt.Fprint(stdout, usage)
		return err
	}
	return usageError{fmt.Sprintf("unknown command %q; run `whisperkey help`", cmd)}
}

const usage = `whisperkey — hold a hotkey, speak, release: the words appear at the cursor.

Usage:
  whisperkey [run]                       start the tray app
  whisperkey transcribe FILE [flags]     print the text of a WAV file (--help for flags)
  whisperkey serve [--listen ADDR] [--model NAME|DIR] [--api-key KEY]   OpenAI-compatible speech-to-text server
  whisperkey doctor [--json]             GPU, engine and model check with a self-test
  whisperkey models list|pull NAME|rm NAME
  whisperkey config path|show|validate
  whisperkey version
`

// exitCode prints err (one line) and maps it to the process exit code.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return 130
	case errors.Is(err, errSilent):
		return 1
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "whisperkey:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "whisperkey:", err)
		return 1
	}
}
