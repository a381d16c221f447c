package gpu

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The community rocBLAS for gfx1010 as it lies in a HIP SDK's bin folder:
// the lazy-loading index, Tensile code objects each beside its .dat, a
// fallback code object (its .dat names no target) and rocBLAS's own kernels.
var gfx1010Set = []string{
	"rocblas/library/TensileLibrary_lazy_gfx1010.dat",
	"rocblas/library/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx1010.co",
	"rocblas/library/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx1010.dat",
	"rocblas/library/TensileLibrary_Type_SS_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx1010.co",
	"rocblas/library/TensileLibrary_Type_SS_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx1010.dat",
	"rocblas/library/TensileLibrary_Type_HH_HPA_Contraction_l_Ailk_Bjlk_Cijk_Dijk_fallback_gfx1010.hsaco",
	"rocblas/library/TensileLibrary_Type_HH_HPA_Contraction_l_Ailk_Bjlk_Cijk_Dijk_fallback.dat",
	"rocblas/library/Kernels.so-000-gfx1010-xnack-.hsaco",
}

// sdk6 is the bin folder of a HIP SDK 6.x install: the HIP runtime and
// amd_comgr, the libraries named, then the files given.
func sdk6(libs []string, files ...string) []string {
	return append(append([]string{"amdhip64_6.dll", "amd_comgr_2.dll", "hipInfo.exe"}, libs...), files...)
}

var dlls62 = []string{"hipblas.dll", "rocblas.dll"}

// TestROCmLibraryChecks builds HIP SDK folder trees and runs an RX 5700 XT
// through Detect and Choose: rocBLAS and hipBLAS under either DLL name, the
// gfx1010 kernel set wanted whole, and each HIP SDK version's own sentence.
func TestROCmLibraryChecks(t *testing.T) {
	const (
		rx  = "Detected AMD RX 5700 XT (RDNA 1)"
		gpu = rx + " — using GPU acceleration"
		cpu = " — using CPU mode. Setup: "
	)
	lone := sdk6(dlls62, "rocblas/library/TensileLibrary_lazy_gfx1010.dat")
	tests := []struct {
		name    string
		sdks    map[string][]string // folder under C:\Program Files\AMD\ROCm → files under its bin
		message string
		fix     string // the failing check's fix, when one fails
	}{
		{"rocblas.dll and hipblas.dll with the community set",
			map[string][]string{"6.2": sdk6(dlls62, gfx1010Set...)}, gpu, ""},
		{"librocblas.dll and libhipblas.dll (the 7.x names)",
			map[string][]string{"6.2": sdk6([]string{"libhipblas.dll", "librocblas.dll"}, gfx1010Set...)}, gpu, ""},
		{"HIP SDK 6.2.4 in a folder of its own",
			map[string][]string{"6.2.4": sdk6(dlls62, gfx1010Set...)}, gpu, ""},
		{"no rocBLAS",
			map[string][]string{"6.2": sdk6([]string{"hipblas.dll"}, gfx1010Set...)},
			rx + ", but HIP SDK 6.2 has no rocBLAS (rocblas.dll or librocblas.dll)" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put the community rocBLAS built for gfx1010 (rocblas.dll and its library folder) into HIP SDK 6.2's bin folder."},
		{"no hipBLAS",
			map[string][]string{"6.2": sdk6([]string{"rocblas.dll"}, gfx1010Set...)},
			rx + ", but HIP SDK 6.2 has no hipBLAS (hipblas.dll or libhipblas.dll)" + cpu + "docs/gpu-setup.md#amd-rdna-1",
			"Reinstall HIP SDK 6.2 with its HIP libraries (hipBLAS)."},
		{"a lone lazy .dat is refused",
			map[string][]string{"6.2": lone},
			rx + ", but HIP SDK 6.2's rocBLAS kernels for gfx1010 are incomplete: TensileLibrary_lazy_gfx1010.dat but no Tensile code objects (TensileLibrary_*_gfx1010.co or .hsaco)" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"the lazy .dat and rocBLAS's own kernels are no GEMM kernels",
			map[string][]string{"6.2": append(lone, "rocblas/library/Kernels.so-000-gfx1010.hsaco")},
			rx + ", but HIP SDK 6.2's rocBLAS kernels for gfx1010 are incomplete: TensileLibrary_lazy_gfx1010.dat but no Tensile code objects (TensileLibrary_*_gfx1010.co or .hsaco)" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"code objects without the index",
			map[string][]string{"6.2": sdk6(dlls62, gfx1010Set[1:]...)},
			rx + ", but HIP SDK 6.2's rocBLAS kernels for gfx1010 are incomplete: no TensileLibrary_lazy_gfx1010.dat, the index rocBLAS reads first, beside its 6 other gfx1010 files" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"a .dat whose code object did not arrive",
			map[string][]string{"6.2": sdk6(dlls62, append([]string{gfx1010Set[0]}, gfx1010Set[2:]...)...)},
			rx + ", but HIP SDK 6.2's rocBLAS kernels for gfx1010 are incomplete: TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx1010.dat without its .co" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"a code object without its .dat",
			map[string][]string{"6.2": sdk6(dlls62, gfx1010Set[0], gfx1010Set[1])},
			rx + ", but HIP SDK 6.2's rocBLAS kernels for gfx1010 are incomplete: TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx1010.co without its .dat" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"the index and fallback kernels only",
			map[string][]string{"6.2": sdk6(dlls62, gfx1010Set[0], gfx1010Set[5], gfx1010Set[6])}, gpu, ""},
		{"a file naming gfx1010 that is no kernel",
			map[string][]string{"6.2": sdk6(dlls62, "rocblas/library/README-gfx1010.txt", "rocblas/library/TensileLibrary_lazy_gfx1030.dat")},
			rx + ", but HIP SDK 6.2 has no rocBLAS kernels for gfx1010" + cpu + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
			"Put community rocBLAS built for gfx1010 into HIP SDK 6.2's rocblas folder."},
		{"HIP SDK 6.1",
			map[string][]string{"6.1": sdk6(dlls62, gfx1010Set...)},
			rx + ", but HIP SDK 6.2 is not installed (found 6.1: only HIP SDK 6.2 has been verified on RDNA 1, and the rocm-rdna1 engine is built against its hipBLAS and rocBLAS)" + cpu + "docs/gpu-setup.md#another-hip-sdk-6x",
			"Install AMD HIP SDK 6.2 beside 6.1 (they install side by side), then the community rocBLAS for gfx1010 into its folder."},
		{"HIP SDK 6.3",
			map[string][]string{"6.3": sdk6(dlls62, gfx1010Set...)},
			rx + ", but HIP SDK 6.2 is not installed (found 6.3: only HIP SDK 6.2 has been verified on RDNA 1, and the rocm-rdna1 engine is built against its hipBLAS and rocBLAS)" + cpu + "docs/gpu-setup.md#another-hip-sdk-6x",
			"Install AMD HIP SDK 6.2 beside 6.3 (they install side by side), then the community rocBLAS for gfx1010 into its folder."},
		{"HIP SDK 7.1",
			map[string][]string{"7.1": {"amdhip64_7.dll", "amd_comgr_3.dll", "libhipblas.dll", "rocblas.dll"}},
			rx + ", but HIP SDK 6.2 is not installed (found 7.1, which does not support RDNA 1)" + cpu + "docs/gpu-setup.md#amd-rdna-1",
			"Install AMD HIP SDK 6.2 beside 7.1; 7.x cannot run RDNA 1."},
		{"HIP SDK 6.3 and 7.1: the 6.x sentence",
			map[string][]string{"6.3": sdk6(dlls62, gfx1010Set...), "7.1": {"amdhip64_7.dll", "amd_comgr_3.dll", "libhipblas.dll", "rocblas.dll"}},
			rx + ", but HIP SDK 6.2 is not installed (found 6.3, 7.1: only HIP SDK 6.2 has been verified on RDNA 1, and the rocm-rdna1 engine is built against its hipBLAS and rocBLAS)" + cpu + "docs/gpu-setup.md#another-hip-sdk-6x",
			"Install AMD HIP SDK 6.2 beside 6.3, 7.1 (they install side by side), then the community rocBLAS for gfx1010 into its folder."},
		{"a lone-.dat 6.2 beside a whole one: the whole one is used",
			map[string][]string{"6.2": lone, "6.2.4": sdk6(dlls62, gfx1010Set...)}, gpu, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for sdk, files := range tt.sdks {
				for _, f := range files {
					p := filepath.Join(root, sdk, "bin", filepath.FromSlash(f))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			src := Sources{GOOS: "windows", ROCmRoots: []string{root},
				Adapters: func(context.Context) ([]Adapter, error) { return readDXGI(t, "rx5700xt.json"), nil }}
			r := Detect(context.Background(), src, testLogger(t))
			d := Choose(r, "auto", Engines{Have: func(string) bool { return true }})
			if d.Message != tt.message {
				t.Errorf("message:\n got %q\nwant %q", d.Message, tt.message)
			}
			if d.Fix != tt.fix {
				t.Errorf("fix:\n got %q\nwant %q", d.Fix, tt.fix)
			}
			want := VariantCPU
			if tt.fix == "" {
				want = VariantRDNA1
			}
			if d.Variant != want {
				t.Errorf("variant %q, want %q", d.Variant, want)
			}
		})
	}
}

// TestTensileKernels: the scan of a rocBLAS library folder, target by target.
func TestTensileKernels(t *testing.T) {
	tests := []struct {
		name       string
		files      []string
		complete   []string
		incomplete map[string]string
	}{
		{"the community gfx1010 set", base(gfx1010Set), []string{"gfx1010"}, nil},
		{"a merged (not lazy) library and its code object",
			[]string{"TensileLibrary_gfx1030.dat", "TensileLibrary_gfx1030.co"}, []string{"gfx1030"}, nil},
		{"a lone lazy .dat beside a whole target",
			append(base(gfx1010Set), "TensileLibrary_lazy_gfx1012.dat"), []string{"gfx1010"},
			map[string]string{"gfx1012": "TensileLibrary_lazy_gfx1012.dat but no Tensile code objects (TensileLibrary_*_gfx1012.co or .hsaco)"}},
		{"rocBLAS's own kernels only",
			[]string{"Kernels.so-000-gfx1010.hsaco"}, nil,
			map[string]string{"gfx1010": "no TensileLibrary_lazy_gfx1010.dat, the index rocBLAS reads first, beside its 1 other gfx1010 file"}},
		{"other files are not read", []string{"README-gfx1010.txt", "gfx1010.txt"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			complete, incomplete := tensileKernels(tt.files)
			if !slices.Equal(complete, tt.complete) || len(incomplete) != len(tt.incomplete) {
				t.Fatalf("got %q, %q; want %q, %q", complete, incomplete, tt.complete, tt.incomplete)
			}
			for arch, why := range tt.incomplete {
				if incomplete[arch] != why {
					t.Errorf("%s: got %q, want %q", arch, incomplete[arch], why)
				}
			}
		})
	}
}

func base(paths []string) []string {
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	return names
}
