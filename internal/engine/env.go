package engine

import (
	"strings"
)

// allocatorEnv selects CTranslate2's GPU memory allocator. Its default
// (CUDA's async allocator, HIP's on ROCm) is behind the model-teardown crash
// (CTranslate2 #1782) and, on ROCm under Linux, dropped transcript text
// (#2090) and crashes at load (#2012); cub_caching avoids all three.
const allocatorEnv = "CT2_CUDA_ALLOCATOR"

// workerEnv returns the worker's environment: the variant folder and the
// library's extra dirs go first on the OS's library search path, and HIP_PATH
// is dropped because it may name an SDK the variant was not built for (a HIP
// SDK 7.1 beside the 6.2 that RDNA 1 needs). A GPU worker gets
// CT2_CUDA_ALLOCATOR=cub_caching unless the user set the variable.
func workerEnv(goos string, gpu bool, libDirs []string, env []string) []string {
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
	out := make([]string, 0, len(env)+2)
	prev := ""
	allocator := false
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		allocator = allocator || k == allocatorEnv
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
	if gpu && !allocator {
		out = append(out, allocatorEnv+"=cub_caching")
	}
	return out
}
