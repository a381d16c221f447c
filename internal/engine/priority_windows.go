//go:build windows

package engine

import (
	"os/exec"
	"syscall"
)

// belowNormalPriorityClass is Windows' BELOW_NORMAL_PRIORITY_CLASS, which
// every thread of the process starts in.
const belowNormalPriorityClass = 0x00004000

// belowNormal starts the worker below the app's priority.
func belowNormal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= belowNormalPriorityClass
}

// lowerPriority has nothing left to do: the creation flag set the class.
func lowerPriority(*exec.Cmd) error { return nil }
