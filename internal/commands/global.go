package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Build is what the build puts into the binary, which main hands over.
type Build struct {
	Version       string // -ldflags "-X main.version=…", "dev" otherwise
	ConfigExample []byte // config.example.yaml, written as the config when there is none
}

// errSilent is a failure the command has already reported.
var errSilent = errors.New("failed")

// usageError is a bad command line or bad input file: exit code 2. An empty
// message means the command has printed its usage and what was wrong.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// cliStatus turns the exit status of a package's RunCLI, which has already
// printed what went wrong, into run's error: 2 is a usage error, any other
// failure is silent.
func cliStatus(code int) error {
	switch code {
	case 0:
		return nil
	case 2:
		return usageError{}
	default:
		return errSilent
	}
}

// Main runs the command line args and returns the process exit code.
func Main(b Build, args []string) int {
	attachConsole()
	ctx, stop := interruptible(os.Stderr, func() { os.Exit(130) })
	err := run(ctx, b, args, os.Stdout, os.Stderr)
	stop()
	return exitCode(err, os.Stderr)
}

// interruptible cancels ctx on the first SIGINT or SIGTERM, so commands stop
// cleanly, and calls exit on the second: a command stuck in a read, or
// draining a server, still ends when the user insists.
func interruptible(stderr io.Writer, exit func()) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-sig:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sig:
			fmt.Fprintln(stderr, "whisperkey: second signal: exiting now")
			exit()
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		<-stopped
		cancel()
	}
}

// command is one subcommand: every one parses its own flags and returns an
// error, which exitCode turns into the exit status.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	hidden              bool
}

// commands lists every subcommand, in the order usage shows them.
func commands(b Build) []command {
	return []command{
		{name: "run", summary: "start the tray app (the default)",
			run: func(ctx context.Context, args []string, _, stderr io.Writer) error {
				return runApp(ctx, b, args, stderr)
			}},
		{name: "transcribe", args: "FILE [flags]", summary: "print the text of an audio file (--help for flags)", run: runTranscribe},
		{name: "serve", args: "[--listen ADDR] [--model NAME]", summary: "an OpenAI-compatible transcription server (--help for flags)",
			run: func(ctx context.Context, args []string, _, stderr io.Writer) error {
				return runServe(ctx, args, stderr)
			}},
		{name: "ptt", args: "press|release|toggle|cancel", summary: "the record hotkey of the running app, for a desktop's key binding (Wayland)",
			run: func(ctx context.Context, args []string, _, stderr io.Writer) error { return runPTT(ctx, args, stderr) }},
		{name: "doctor", args: "[--json]", summary: "GPU, engine and model check with a self-test",
			run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
				return runDoctor(ctx, b.Version, args, stdout, stderr)
			}},
		{name: "models", args: "list|pull NAME|rm NAME|import PATH", summary: "the model cache", run: runModels},
		{name: "gpu", args: "fetch|import FILE", summary: "put NVIDIA's cuBLAS into the cuda engine folder (docs/gpu-setup.md#nvidia)", run: runGPU},
		{name: "config", args: "path|show|validate [FILE]", summary: "the config file",
			run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
				return runConfig(args, stdout, stderr)
			}},
		{name: "history", summary: "print the dictations kept with history.keep_on_disk: true",
			run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
				return runHistory(args, stdout, stderr)
			}},
		{name: "version", summary: "print the version",
			run: func(_ context.Context, _ []string, stdout, _ io.Writer) error {
				_, err := fmt.Fprintln(stdout, "whisperkey", b.Version)
				return err
			}},
		{name: "engine-worker", hidden: true,
			run: func(_ context.Context, _ []string, _, stderr io.Writer) error { return runWorker(stderr) }},
	}
}

func run(ctx context.Context, b Build, args []string, stdout, stderr io.Writer) error {
	name, rest := "run", args
	if len(args) > 0 {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "--version":
		name = "version"
	case "help", "-h", "--help":
		_, err := fmt.Fprint(stdout, usage(b))
		return err
	}
	for _, c := range commands(b) {
		if c.name == name {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	return usageError{fmt.Sprintf("unknown command %q; run `whisperkey help`", name)}
}

func usage(b Build) string {
	var u strings.Builder
	u.WriteString("whisperkey — hold a hotkey, speak, release: the words appear at the cursor.\n\nUsage:\n")
	for _, c := range commands(b) {
		if !c.hidden {
			fmt.Fprintf(&u, "  %-44s %s\n", strings.TrimSpace("whisperkey "+c.name+" "+c.args), c.summary)
		}
	}
	return u.String()
}

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
		if ue.msg != "" { // "": the command printed its usage already
			fmt.Fprintln(stderr, "whisperkey:", err)
		}
		return 2
	default:
		fmt.Fprintln(stderr, "whisperkey:", err)
		return 1
	}
}
