package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ScanROCm lists the ROCm / HIP SDK installs in root's subfolders: Windows
// C:\Program Files\AMD\ROCm\<version>\bin, Linux /opt/rocm-<version>/lib.
// Folders without a HIP runtime are not installs and are left out.
func ScanROCm(root string) ([]ROCmInstall, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("scan ROCm installs in %s: %w", root, err)
	}
	var ins []ROCmInstall
	seen := map[string]bool{}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		// /opt/rocm is usually a link to /opt/rocm-<version>: count it once.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if seen[real] {
				continue
			}
			seen[real] = true
		}
		version := strings.TrimPrefix(strings.TrimPrefix(e.Name(), "rocm-"), "rocm")
		if version == "" {
			version = strings.TrimSpace(readString(filepath.Join(dir, ".info/version")))
			version, _, _ = strings.Cut(version, "-")
		}
		if version == "" || version[0] < '0' || version[0] > '9' {
			continue
		}
		if in, ok := scanInstall(dir, version); ok {
			ins = append(ins, in)
		}
	}
	return ins, nil
}

var (
	hipRuntime = regexp.MustCompile(`^(?:amdhip64_(\d+)\.dll|libamdhip64\.so\.(\d+))$`)
	gfxName    = regexp.MustCompile(`gfx[0-9a-f]+`)
)

func scanInstall(dir, version string) (ROCmInstall, bool) {
	for _, sub := range []string{"bin", "lib"} {
		lib := filepath.Join(dir, sub)
		entries, err := os.ReadDir(lib)
		if err != nil {
			continue
		}
		in := ROCmInstall{Version: version, Dir: dir, LibDir: lib}
		for _, e := range entries {
			n := strings.ToLower(e.Name())
			if m := hipRuntime.FindStringSubmatch(n); m != nil {
				in.HIPMajor, _ = strconv.Atoi(m[1] + m[2])
			}
			switch {
			case strings.HasPrefix(n, "amd_comgr") && strings.HasSuffix(n, ".dll"), strings.HasPrefix(n, "libamd_comgr.so"):
				in.Comgr = true
			case n == "rocblas.dll", strings.HasPrefix(n, "librocblas.so"):
				in.ROCBLAS = true
			}
		}
		if in.HIPMajor == 0 {
			continue
		}
		kernels, _ := os.ReadDir(filepath.Join(lib, "rocblas", "library"))
		seen := map[string]bool{}
		for _, k := range kernels {
			for _, g := range gfxName.FindAllString(strings.ToLower(k.Name()), -1) {
				if !seen[g] {
					seen[g] = true
					in.Kernels = append(in.Kernels, g)
				}
			}
		}
		sort.Strings(in.Kernels)
		return in, true
	}
	return ROCmInstall{}, false
}

// FindCUBLAS lists the cuBLAS libraries (cublas64_NN.dll, libcublas.so.NN) in dirs.
func FindCUBLAS(dirs []string) []CUDALib {
	var libs []CUDALib
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			m := cublasPattern.FindStringSubmatch(strings.ToLower(e.Name()))
			if m == nil {
				continue
			}
			major, _ := strconv.Atoi(m[1] + m[2])
			p := filepath.Join(d, e.Name())
			if key := fmt.Sprint(major, d); !seen[key] {
				seen[key] = true
				libs = append(libs, CUDALib{Major: major, Path: p})
			}
		}
	}
	return libs
}
