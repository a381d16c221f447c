//go:build !windows

package engine

import (
	"os/exec"
	"syscall"
)

// backgroundNice is the niceness of a Background worker: the app's own
// transcriptions, at 0, get nearly all the CPU it would take.
const backgroundNice = 10

// belowNormal puts the worker in a process group of its own, so that
// lowerPriority reaches every one of its threads: on Linux a niceness is
// per thread, and the worker's runtime starts threads before its main.
func belowNormal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// lowerPriority renices the started worker's process group; threads it
// starts later inherit the niceness of the thread that starts them.
func lowerPriority(cmd *exec.Cmd) error {
	return syscall.Setpriority(syscall.PRIO_PGRP, cmd.Process.Pid, backgroundNice)
}
