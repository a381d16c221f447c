//go:build unix

package commands

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO with no writer is refused at once instead of blocking forever, as
// are other files that are not regular files.
func TestTranscribeRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "some.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, t.TempDir()} {
		var out, errb bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- run(context.Background(), testBuild, []string{"transcribe", path}, &out, &errb) }()
		select {
		case err := <-done:
			if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), "not a regular file") && !strings.Contains(errb.String(), "is a directory") {
				t.Fatalf("%s: exit %d, stderr %q; want 2 saying it is not a regular file", path, code, errb.String())
			}
		case <-time.After(10 * time.Second):
			// Unblock the open so the goroutine ends.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%s: transcribe still blocked after 10 s", path)
		}
	}
}

// The first SIGTERM cancels; a second exits at once even when the command
// is stuck and ignores the cancellation.
func TestSecondSignalExits(t *testing.T) {
	if os.Getenv("WHISPERKEY_TEST_STUCK") == "1" {
		ctx, stop := interruptible(os.Stderr, func() { os.Exit(130) })
		defer stop()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("cancelled")
		select {} // stuck: only the second signal ends it
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondSignalExits$")
	cmd.Env = append(os.Environ(), "WHISPERKEY_TEST_STUCK=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			_ = cmd.Process.Kill()
			t.Fatalf("child said %q, want %q", lines.Text(), want)
		}
	}
	expect("ready")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	expect("cancelled")
	_ = cmd.Process.Signal(syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("second signal: %v; want exit 130", err)
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatal("the second SIGTERM did not end the process within 20 s")
	}
}
