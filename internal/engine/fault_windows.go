package engine

import "os"

// crashedOnItsOwn says whether a worker that ended as ps died of a fault of
// its own, by its exception code, rather than being ended from outside
// (TerminateProcess, as Process.Kill and Task Manager do, exits 1) or
// exiting.
func crashedOnItsOwn(ps *os.ProcessState) bool {
	switch uint32(ps.ExitCode()) {
	case 0xC0000005, // access violation
		0xC000001D, // illegal instruction
		0xC0000094, // integer division by zero
		0xC0000095, // integer overflow
		0xC0000096, // privileged instruction
		0xC00000FD, // stack overflow
		0xC0000374, // heap corruption
		0xC0000409, // fail fast: a failed check, abort()
		3:          // abort() in the C runtime's default mode
		return true
	}
	return false
}
