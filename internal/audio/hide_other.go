//go:build !windows

package audio

import "os/exec"

// hideWindow does nothing outside Windows, where child processes get no console.
func hideWindow(*exec.Cmd) {}
