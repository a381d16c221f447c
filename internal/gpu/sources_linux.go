package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
)

// SystemSources reads this machine: sysfs, nvidia-smi, rocminfo, /opt/rocm-*, CUDA libraries.
func SystemSources() Sources {
	dirs, _ := filepath.Glob("/usr/local/cuda*/lib64")
	dirs = append(dirs, "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")
	dirs = append(dirs, pathDirs(os.Getenv("LD_LIBRARY_PATH"))...)
	return Sources{GOOS: "linux", SysRoot: "/", Run: runCommand, ROCmRoots: []string{"/opt"},
		CUDALibDirs: dirs, HIPPath: os.Getenv("HIP_PATH")}
}

func toolDirs(name string) []string { return []string{filepath.Join("/opt/rocm/bin", name)} }

func hideWindow(*exec.Cmd) {}
