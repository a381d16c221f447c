//go:build !windows

package engine

import (
	"os"
	"syscall"
)

// crashedOnItsOwn says whether a worker that ended as ps died of a fault of
// its own (a bad memory access, an abort, an illegal instruction or an
// arithmetic fault), rather than being killed from outside (SIGKILL from the
// OS's out-of-memory killer or a user, SIGTERM) or exiting.
func crashedOnItsOwn(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT, syscall.SIGTRAP, syscall.SIGSYS:
		return true
	}
	return false
}
