package testenv

import (
	"os/exec"
	"syscall"
	"time"
)

// Terminate asks cmd to end with SIGTERM, so it can clean up as on a
// logout, and kills it if it has not ended within grace. exited is the
// channel the caller's goroutine sends or closes on when cmd.Wait returns;
// Terminate returns once it has.
func Terminate[T any](cmd *exec.Cmd, exited <-chan T, grace time.Duration) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-exited
	}
}
