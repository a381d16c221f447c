//go:build !linux && !windows

package gpu

import (
	"os/exec"
	"runtime"
)

// SystemSources has no probes here yet: the engine has no GPU variant for this OS.
func SystemSources() Sources { return Sources{GOOS: runtime.GOOS} }

func toolDirs(string) []string { return nil }

func hideWindow(*exec.Cmd) {}
