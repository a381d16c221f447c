package gpu

import "testing"

func TestFallbackAndVerifyMessages(t *testing.T) {
	rx := GPU{Vendor: AMD, Name: "AMD Radeon RX 5700 XT", PCIDevice: 0x731f, Arch: "gfx1010", Family: "RDNA 1"}
	rtx := GPU{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 3060", CUDAVersion: "12.4"}
	rdna1 := Decision{Variant: VariantRDNA1, Device: "cuda", GPU: &rx, Message: "Detected AMD RX 5700 XT (RDNA 1) — using GPU acceleration"}
	cuda := Decision{Variant: VariantCUDA, Device: "cuda", GPU: &rtx}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"start failure",
			FallbackMessage(rdna1, "hipErrorNoDevice"),
			"Detected AMD RX 5700 XT (RDNA 1), but the GPU engine failed to start (hipErrorNoDevice) — using CPU mode. Setup: docs/gpu-setup.md#the-gpu-engine-failed-to-start"},
		{"start failure without a GPU record",
			FallbackMessage(Decision{Variant: VariantCUDA}, "worker exited with code 3"),
			"The GPU engine failed to start (worker exited with code 3) — using CPU mode. Setup: docs/gpu-setup.md#the-gpu-engine-failed-to-start"},
		{"verified",
			VerifyMessage(rdna1, Verdict{OK: true, GPUSeconds: 0.4, CPUSeconds: 1.9}),
			"Detected AMD RX 5700 XT (RDNA 1) — using GPU acceleration"},
		{"wrong results",
			VerifyMessage(rdna1, Verdict{Wrong: true, Reason: "empty text where the CPU heard 41 words"}),
			"Detected AMD RX 5700 XT (RDNA 1), but the GPU computes wrong results (empty text where the CPU heard 41 words) — using CPU mode. Setup: docs/gpu-setup.md#the-gpu-computes-wrong-results"},
		{"slower",
			VerifyMessage(cuda, Verdict{GPUSeconds: 2.14, CPUSeconds: 1.31}),
			"Detected NVIDIA GeForce RTX 3060, but the GPU is slower than the CPU (2.1 s against 1.3 s) — using CPU mode. Setup: docs/gpu-setup.md#the-gpu-is-slower-than-the-cpu"},
		{"unknown device in config",
			Choose(Report{}, "vulkan", Engines{Have: func(string) bool { return true }}).Message,
			`Unknown device "vulkan" in the config (use auto, cpu, cuda or rocm) — using CPU mode`},
		{"RX 6600 (gfx1032) has no ROCm build",
			Choose(Report{GPUs: []GPU{{Vendor: AMD, Name: "AMD Radeon RX 6600", PCIDevice: 0x73ff, Arch: "gfx1032", Family: "RDNA 2"}}}, "auto", Engines{Have: func(string) bool { return true }}).Message,
			"Detected AMD RX 6600 (RDNA 2), but CTranslate2's official ROCm builds have no GPU code for gfx1032 (they cover gfx1030, gfx1100–1102, gfx1150/1151, gfx1200/1201 only) — using CPU mode. Setup: docs/gpu-setup.md#other-gpus"},
		{"RX 6700 XT (gfx1031) has no ROCm build",
			Choose(Report{GPUs: []GPU{{Vendor: AMD, Name: "AMD Radeon RX 6700 XT", PCIDevice: 0x73df, Arch: "gfx1031", Family: "RDNA 2"}}}, "rocm", Engines{Have: func(string) bool { return true }}).Message,
			"Detected AMD RX 6700 XT (RDNA 2), but CTranslate2's official ROCm builds have no GPU code for gfx1031 (they cover gfx1030, gfx1100–1102, gfx1150/1151, gfx1200/1201 only) — using CPU mode. Setup: docs/gpu-setup.md#other-gpus"},
		{"RX 5500 (gfx1012) is not the RDNA 1 build's target",
			Choose(Report{GPUs: []GPU{{Vendor: AMD, Name: "AMD Radeon RX 5500 XT", PCIDevice: 0x7340, Arch: "gfx1012", Family: "RDNA 1"}}}, "auto", Engines{Have: func(string) bool { return true }}).Message,
			"Detected AMD RX 5500 XT (RDNA 1), but the RDNA 1 engine is built for gfx1010 only, not gfx1012 — using CPU mode. Setup: docs/gpu-setup.md#other-gpus"},
		{"device rocm without an AMD GPU",
			Choose(Report{GPUs: []GPU{rtx}}, "rocm", Engines{Have: func(string) bool { return true }}).Message,
			"No AMD GPU found for device: rocm — using CPU mode. Setup: docs/gpu-setup.md#amd-rdna-2-and-newer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("\n got %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}

func TestChoosePicksAmongSeveral(t *testing.T) {
	rocm71 := ROCmInstall{Version: "7.1", LibDir: "7.1/bin", HIPMajor: 7, Comgr: true, ROCBLAS: true, HIPBLAS: true, Kernels: []string{"gfx1100", "gfx1151"}}
	strix := GPU{Vendor: AMD, Name: "AMD Radeon 8060S Graphics", Arch: "gfx1151", Family: "RDNA 3.5", Integrated: true, VRAM: 1 << 30}
	rx1 := GPU{Vendor: AMD, Name: "AMD Radeon RX 7900 XTX", PCIDevice: 0x744c, Arch: "gfx1100", Family: "RDNA 3", VRAM: 24 << 30}
	rx2 := rx1
	rtxNoLibs := GPU{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 4090", CUDAVersion: "12.4", Driver: "551.86", ComputeCap: "8.9"}
	all := Engines{Have: func(string) bool { return true }}
	tests := []struct {
		name  string
		gpus  []GPU
		label string
		index int
	}{
		{"discrete before integrated", []GPU{strix, rx1}, "AMD RX 7900 XTX (RDNA 3)", 1},
		{"a ready GPU beats one missing a piece", []GPU{rtxNoLibs, strix}, "AMD Radeon 8060S Graphics (RDNA 3.5, integrated)", 0},
		{"two identical cards: the first", []GPU{rx1, rx2}, "AMD RX 7900 XTX (RDNA 3)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Choose(Report{GOOS: "linux", GPUs: tt.gpus, ROCm: []ROCmInstall{rocm71}}, "auto", all)
			if d.GPU == nil || d.GPU.Label() != tt.label || d.DeviceIndex != tt.index || d.Variant != VariantROCm {
				t.Errorf("got %+v (%s), want %s index %d on rocm", d, d.Message, tt.label, tt.index)
			}
		})
	}
}
