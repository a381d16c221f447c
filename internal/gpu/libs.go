package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	// HIP SDK 7.x may name a library libX.dll where 6.x had X.dll (it did so
	// for hipBLAS), so either name is accepted on Windows.
	rocblasLib = regexp.MustCompile(`^(?:(?:lib)?rocblas\.dll|librocblas\.so(?:\.\d+)*)$`)
	hipblasLib = regexp.MustCompile(`^(?:(?:lib)?hipblas\.dll|libhipblas\.so(?:\.\d+)*)$`)
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
			case rocblasLib.MatchString(n):
				in.ROCBLAS = true
			case hipblasLib.MatchString(n):
				in.HIPBLAS = true
			}
		}
		if in.HIPMajor == 0 {
			continue
		}
		var names []string
		files, _ := os.ReadDir(filepath.Join(lib, "rocblas", "library"))
		for _, f := range files {
			names = append(names, f.Name())
		}
		in.Kernels, in.KernelsIncomplete = tensileKernels(names)
		return in, true
	}
	return ROCmInstall{}, false
}

// tensileKernels reads a rocBLAS library folder's file names and returns the
// gfx targets it has a usable Tensile kernel set for, and for the targets
// named by some file but without one, what is missing. A set is an index
// (TensileLibrary_lazy_<gfx>.dat, or TensileLibrary_<gfx>.dat when not built
// for lazy loading) and the code objects it points to: TensileLibrary_*_<gfx>.co
// beside the .dat of the same name, or the fallback TensileLibrary_*_<gfx>.hsaco.
// A name merely containing the target is not enough: some ROCm builds ship a
// lone TensileLibrary_lazy_gfx1010.dat with no kernel behind it, and rocBLAS
// then fails the first GEMM.
func tensileKernels(names []string) (complete []string, incomplete map[string]string) {
	type set struct {
		index     string
		objects   int
		dats, cos map[string]string // per-type .dat and .co files by lower-case stem
		files     int               // files naming the target, for messages
	}
	sets := map[string]*set{}
	var archs []string
	for _, name := range names {
		n := strings.ToLower(name)
		tensile := strings.HasPrefix(n, "tensilelibrary")
		if !tensile && !strings.HasPrefix(n, "kernels.so") {
			continue
		}
		ext := filepath.Ext(n)
		stem := strings.TrimSuffix(n, ext)
		for _, arch := range uniq(gfxName.FindAllString(n, -1)) {
			s := sets[arch]
			if s == nil {
				s = &set{dats: map[string]string{}, cos: map[string]string{}}
				sets[arch] = s
				archs = append(archs, arch)
			}
			s.files++
			isIndex := strings.HasPrefix(stem, "tensilelibrary_lazy_"+arch) || strings.HasPrefix(stem, "tensilelibrary_"+arch)
			switch {
			case !tensile: // Kernels.so-*.hsaco: rocBLAS's own kernels, not Tensile's GEMMs
			case ext == ".dat" && isIndex:
				s.index = name
			case ext == ".dat":
				s.dats[stem] = name
			case ext == ".co":
				s.objects++
				if !isIndex { // the merged library's .co goes with its index
					s.cos[stem] = name
				}
			case ext == ".hsaco":
				s.objects++
			}
		}
	}
	sort.Strings(archs)
	for _, arch := range archs {
		s := sets[arch]
		why := ""
		switch {
		case s.index == "":
			files := "files"
			if s.files == 1 {
				files = "file"
			}
			why = fmt.Sprintf("no TensileLibrary_lazy_%s.dat, the index rocBLAS reads first, beside its %d other %s %s", arch, s.files, arch, files)
		case s.objects == 0:
			why = fmt.Sprintf("%s but no Tensile code objects (TensileLibrary_*_%s.co or .hsaco)", s.index, arch)
		default:
			why = unpaired(s.dats, s.cos, ".co")
			if why == "" {
				why = unpaired(s.cos, s.dats, ".dat")
			}
		}
		if why == "" {
			complete = append(complete, arch)
			continue
		}
		if incomplete == nil {
			incomplete = map[string]string{}
		}
		incomplete[arch] = why
	}
	return complete, incomplete
}

// unpaired names the first file in have whose partner (the same name with
// the extension ext) is not in other: a copy that stopped half way.
func unpaired(have, other map[string]string, ext string) string {
	stems := make([]string, 0, len(have))
	for stem := range have {
		stems = append(stems, stem)
	}
	sort.Strings(stems)
	for _, stem := range stems {
		if _, ok := other[stem]; !ok {
			return have[stem] + " without its " + ext
		}
	}
	return ""
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
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
