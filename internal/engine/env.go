package engine

import (
	"strings"
)

// workerEnv returns the worker's environment: the variant folder and the
// library's extra dirs go first on the OS's library search path, and HIP_PATH
// is dropped because it may name an SDK the variant was not built for (a HIP
// SDK 7.1 beside the 6.2 that RDNA 1 needs).
func workerEnv(goos string, libDirs []string, env []string) []string {
	key, sep := "LD_LIBRARY_PATH", ":"
	switch goos {
	case "windows":
		key, sep = "PATH", ";"
	case "darwin":
		key = "DYLD_LIBRARY_PATH"
	}
	var dirs []string
	for _, d := range libDirs {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	out := make([]string, 0, len(env)+1)
	prev := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.EqualFold(k, "HIP_PATH"):
			continue
		case k == key || (goos == "windows" && strings.EqualFold(k, key)):
			prev = v
			continue
		}
		out = append(out, kv)
	}
	if prev != "" {
		dirs = append(dirs, prev)
	}
	if len(dirs) > 0 {
		out = append(out, key+"="+strings.Join(dirs, sep))
	}
	return out
}
