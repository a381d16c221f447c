package engine

import (
	"slices"
	"testing"
)

func TestWorkerEnv(t *testing.T) {
	cases := []struct {
		name string
		goos string
		gpu  bool
		dirs []string
		env  []string
		want []string
	}{
		{"linux prepends the variant folder", "linux", false, []string{"/opt/wk/engine/cpu"},
			[]string{"HOME=/root", "LD_LIBRARY_PATH=/usr/local/lib"},
			[]string{"HOME=/root", "LD_LIBRARY_PATH=/opt/wk/engine/cpu:/usr/local/lib"}},
		{"linux without a previous path", "linux", false, []string{"/e/cuda", "/usr/local/cuda/lib64"},
			[]string{"HOME=/root"},
			[]string{"HOME=/root", "LD_LIBRARY_PATH=/e/cuda:/usr/local/cuda/lib64"}},
		{"windows puts the variant and HIP SDK 6.2 first, drops HIP_PATH", "windows", false,
			[]string{`C:\WK\engine\rocm-rdna1`, `C:\Program Files\AMD\ROCm\6.2\bin`},
			[]string{`HIP_PATH=C:\Program Files\AMD\ROCm\7.1\`, `Path=C:\Windows\system32`, "USERNAME=ana"},
			[]string{"USERNAME=ana", `PATH=C:\WK\engine\rocm-rdna1;C:\Program Files\AMD\ROCm\6.2\bin;C:\Windows\system32`}},
		{"darwin", "darwin", false, []string{"/Applications/WK/engine/cpu"}, nil,
			[]string{"DYLD_LIBRARY_PATH=/Applications/WK/engine/cpu"}},
		{"empty dirs are skipped", "linux", false, []string{""}, []string{"A=1"}, []string{"A=1"}},
		{"a GPU worker gets the cub_caching allocator", "linux", true, []string{"/e/cuda"}, []string{"A=1"},
			[]string{"A=1", "LD_LIBRARY_PATH=/e/cuda", "CT2_CUDA_ALLOCATOR=cub_caching"}},
		{"the user's allocator choice stays", "windows", true, []string{`C:\WK\engine\rocm`},
			[]string{"CT2_CUDA_ALLOCATOR=cuda_malloc_async"},
			[]string{"CT2_CUDA_ALLOCATOR=cuda_malloc_async", `PATH=C:\WK\engine\rocm`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := workerEnv(tc.goos, tc.gpu, tc.dirs, tc.env); !slices.Equal(got, tc.want) {
				t.Fatalf("workerEnv = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

func TestLibraryName(t *testing.T) {
	for goos, want := range map[string]string{"windows": "ct2engine.dll", "linux": "libct2engine.so", "darwin": "libct2engine.dylib"} {
		if got := libraryName(goos); got != want {
			t.Errorf("libraryName(%s) = %s, want %s", goos, got, want)
		}
	}
}
