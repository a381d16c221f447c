package gpu

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current results")

func readDXGI(t *testing.T, name string) []Adapter {
	t.Helper()
	var ads []Adapter
	if err := json.Unmarshal(readFixture(t, "dxgi/"+name), &ads); err != nil {
		t.Fatalf("dxgi fixture %s: %v", name, err)
	}
	return ads
}

// TestDetectAndChoose runs the recorded machines through Detect and Choose:
// the variant and the exact sentence are asserted here; the full report,
// decision and doctor checks are compared with testdata/golden (-update rewrites).
func TestDetectAndChoose(t *testing.T) {
	const (
		rdna1Win  = "Detected AMD RX 5700 XT (RDNA 1)"
		cpuSuffix = " — using CPU mode. Setup: "
	)
	tests := []struct {
		name    string
		m       machine
		pref    choice.Device
		variant string
		message string
		labels  []string // every GPU the report lists, as messages name them
	}{
		{
			name:    "win-rx5700xt-sdk62",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-6.2-only"},
			variant: VariantRDNA1,
			message: rdna1Win + " — using GPU acceleration",
		},
		{
			name:    "win-rx5700xt-no-sdk",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json"},
			variant: VariantCPU,
			message: rdna1Win + ", but HIP SDK 6.2 is not installed" + cpuSuffix + "docs/gpu-setup.md#amd-rdna-1",
		},
		{
			name:    "win-rx5700xt-sdk71-only",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-7.1-only"},
			variant: VariantCPU,
			message: rdna1Win + ", but HIP SDK 6.2 is not installed (found 7.1, which does not support RDNA 1)" + cpuSuffix + "docs/gpu-setup.md#amd-rdna-1",
		},
		{
			name:    "win-rx5700xt-both-hip-path-71",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-both", hipPath: "7.1"},
			variant: VariantRDNA1,
			message: rdna1Win + " — using GPU acceleration",
		},
		{
			name:    "win-rx5700xt-sdk62-no-comgr",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-6.2-no-comgr"},
			variant: VariantCPU,
			message: rdna1Win + ", but amd_comgr is missing from HIP SDK 6.2" + cpuSuffix + "docs/gpu-setup.md#amd_comgr",
		},
		{
			name:    "win-rx5700xt-sdk62-no-gfx1010-kernels",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-6.2-stock-kernels"},
			variant: VariantCPU,
			message: rdna1Win + ", but HIP SDK 6.2 has no rocBLAS kernels for gfx1010" + cpuSuffix + "docs/gpu-setup.md#rocblas-kernels-for-gfx1010",
		},
		{
			name:    "win-rx5700xt-engine-not-built",
			m:       machine{goos: "windows", dxgi: "rx5700xt.json", rocm: "win-6.2-only", notInstalld: []string{VariantRDNA1}},
			variant: VariantCPU,
			message: rdna1Win + ", but the rocm-rdna1 engine files are missing" + cpuSuffix + "docs/gpu-setup.md#build-ctranslate2-for-gfx1010",
		},
		{
			name:    "win-rx5700xt-wmi-fallback",
			m:       machine{goos: "windows", wmi: "rx5700xt.json", rocm: "win-6.2-only"},
			variant: VariantRDNA1,
			message: rdna1Win + " — using GPU acceleration",
		},
		{
			name:    "win-rx5700xt-no-amd-driver",
			m:       machine{goos: "windows", dxgi: "rx5700xt-no-driver.json", rocm: "win-6.2-only"},
			variant: VariantCPU,
			message: "Detected AMD RX 5600 XT / 5700 / 5700 XT (RDNA 1), but the AMD graphics driver is not installed" + cpuSuffix + "docs/gpu-setup.md#amd-rdna-1",
		},
		{
			name:    "win-rx7900xtx-sdk71",
			m:       machine{goos: "windows", dxgi: "rx7900xtx.json", rocm: "win-7.1-only"},
			variant: VariantROCm,
			message: "Detected AMD RX 7900 XTX (RDNA 3) — using GPU acceleration",
		},
		{
			name:    "win-rx7900xtx-sdk62-only",
			m:       machine{goos: "windows", dxgi: "rx7900xtx.json", rocm: "win-6.2-stock-kernels"},
			variant: VariantCPU,
			message: "Detected AMD RX 7900 XTX (RDNA 3), but HIP SDK 7.x is not installed (found 6.2; the ROCm engine needs 7.x)" + cpuSuffix + "docs/gpu-setup.md#amd-rdna-2-and-newer",
		},
		{
			name:    "win-rx580-is-polaris-not-rdna1",
			m:       machine{goos: "windows", wmi: "rx580.json", rocm: "win-6.2-only"},
			variant: VariantCPU,
			message: "Detected AMD RX 580 (Polaris), but no WhisperKey GPU engine supports gfx803" + cpuSuffix + "docs/gpu-setup.md#other-gpus",
		},
		{
			name:    "win-apu-only-ryzen5600g-listed",
			m:       machine{goos: "windows", wmi: "ryzen5600g.json"},
			variant: VariantCPU,
			message: "Detected AMD Radeon Graphics (Vega, integrated), but no WhisperKey GPU engine supports gfx90c" + cpuSuffix + "docs/gpu-setup.md#other-gpus",
		},
		{
			name:    "win-rtx3060-cuda124",
			m:       machine{goos: "windows", dxgi: "rtx3060.json", smi: "rtx3060", cuda: "win-cuda-12.4"},
			variant: VariantCUDA,
			message: "Detected NVIDIA GeForce RTX 3060 — using GPU acceleration (CUDA 12.4)",
		},
		{
			name:    "win-rtx3060-no-cublas",
			m:       machine{goos: "windows", dxgi: "rtx3060.json", smi: "rtx3060", cuda: "win-cuda-none"},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce RTX 3060, but cuBLAS for CUDA 12 is not installed" + cpuSuffix + "docs/gpu-setup.md#install-the-cuda-12-libraries",
		},
		{
			name:    "win-rtx3060-engine-missing",
			m:       machine{goos: "windows", dxgi: "rtx3060.json", smi: "rtx3060", cuda: "win-cuda-12.4", notInstalld: []string{VariantCUDA}},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce RTX 3060, but the cuda engine files are missing" + cpuSuffix + "docs/gpu-setup.md#engine-files-are-missing",
		},
		{
			name:    "win-rtx3060-no-driver",
			m:       machine{goos: "windows", dxgi: "rtx3060-no-driver.json", cuda: "win-cuda-12.4"},
			variant: VariantCPU,
			message: "Detected NVIDIA GPU 0x2503, but the NVIDIA driver is not installed" + cpuSuffix + "docs/gpu-setup.md#nvidia",
		},
		{
			name:    "win-rtx5070-cuda13-only",
			m:       machine{goos: "windows", dxgi: "rtx5070.json", smi: "rtx5070", cuda: "win-cuda-13.0-only"},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce RTX 5070, but only CUDA 13 is installed and the engine needs CUDA 12 (cuBLAS 12)" + cpuSuffix + "docs/gpu-setup.md#only-cuda-13-is-installed",
		},
		{
			name:    "win-laptop-780m-and-rtx4060",
			m:       machine{goos: "windows", dxgi: "laptop-780m-rtx4060.json", smi: "rtx4060-laptop", cuda: "win-cuda-12.4"},
			variant: VariantCUDA,
			message: "Detected NVIDIA GeForce RTX 4060 Laptop GPU — using GPU acceleration (CUDA 12.6)",
			labels:  []string{"AMD Radeon 780M Graphics (RDNA 3, integrated)", "NVIDIA GeForce RTX 4060 Laptop GPU"},
		},
		{
			name:    "win-laptop-device-rocm-picks-the-igpu",
			m:       machine{goos: "windows", dxgi: "laptop-780m-rtx4060.json", smi: "rtx4060-laptop", cuda: "win-cuda-12.4", rocm: "win-7.1-only"},
			pref:    "rocm",
			variant: VariantCPU,
			message: "Detected AMD Radeon 780M Graphics (RDNA 3, integrated), but CTranslate2's official ROCm builds have no GPU code for gfx1103 (they cover gfx1030, gfx1100–1102, gfx1150/1151, gfx1200/1201 only)" + cpuSuffix + "docs/gpu-setup.md#other-gpus",
		},
		{
			name:    "win-rtx3060-device-cpu",
			m:       machine{goos: "windows", dxgi: "rtx3060.json", smi: "rtx3060", cuda: "win-cuda-12.4"},
			pref:    "cpu",
			variant: VariantCPU,
			message: "GPU acceleration is off (device: cpu in the config) — using CPU mode",
		},
		{
			name:    "win-rx7900xtx-device-cuda",
			m:       machine{goos: "windows", dxgi: "rx7900xtx.json", rocm: "win-7.1-only"},
			pref:    "cuda",
			variant: VariantCPU,
			message: "No NVIDIA GPU found for device: cuda — using CPU mode. Setup: docs/gpu-setup.md#nvidia",
		},
		{
			name:    "win-vm-no-gpu",
			m:       machine{goos: "windows", dxgi: "vm-basic-render.json"},
			variant: VariantCPU,
			message: "No supported GPU found — using CPU mode",
			labels:  []string{},
		},
		{
			name:    "linux-rx5700xt-sysfs-only",
			m:       machine{goos: "linux", sysfs: "rx5700xt.txtar", rocm: "linux-rocm-6.2.4-gfx1010"},
			variant: VariantRDNA1,
			message: "Detected AMD RX 5600 XT / 5700 / 5700 XT (RDNA 1) — using GPU acceleration",
		},
		{
			name:    "linux-rx5700xt-rocminfo",
			m:       machine{goos: "linux", sysfs: "rx5700xt.txtar", rocminfo: "rx5700xt.txt", rocm: "linux-rocm-6.2.4-gfx1010"},
			variant: VariantRDNA1,
			message: "Detected AMD RX 5700 XT (RDNA 1) — using GPU acceleration",
		},
		{
			name:    "linux-rx5700xt-rocm71",
			m:       machine{goos: "linux", sysfs: "rx5700xt.txtar", rocminfo: "rx5700xt.txt", rocm: "linux-rocm-7.1.0"},
			variant: VariantCPU,
			message: "Detected AMD RX 5700 XT (RDNA 1), but ROCm 6.2 is not installed (found 7.1.0, which does not support RDNA 1)" + cpuSuffix + "docs/gpu-setup.md#amd-rdna-1",
		},
		{
			name:    "linux-rx580-is-polaris-not-rdna1",
			m:       machine{goos: "linux", sysfs: "rx580.txtar", rocminfo: "rx580.txt", rocm: "linux-rocm-6.2.4-gfx1010"},
			variant: VariantCPU,
			message: "Detected AMD RX 580 (Polaris), but no WhisperKey GPU engine supports gfx803" + cpuSuffix + "docs/gpu-setup.md#other-gpus",
		},
		{
			name:    "linux-rx7900xtx-and-raphael-igpu",
			m:       machine{goos: "linux", sysfs: "rx7900xtx-raphael.txtar", rocminfo: "rx7900xtx.txt", rocm: "linux-rocm-7.1.0"},
			variant: VariantROCm,
			message: "Detected AMD RX 7900 XTX (RDNA 3) — using GPU acceleration",
			labels:  []string{"AMD RX 7900 XTX (RDNA 3)", "AMD Radeon Graphics (RDNA 2, integrated)"},
		},
		{
			name:    "linux-strix-halo-igpu-used",
			m:       machine{goos: "linux", sysfs: "strix-halo.txtar", rocminfo: "strix-halo.txt", rocm: "linux-rocm-7.1.0"},
			variant: VariantROCm,
			message: "Detected AMD Radeon Graphics (RDNA 3.5, integrated) — using GPU acceleration",
		},
		{
			name:    "linux-gtx1080-driver-470",
			m:       machine{goos: "linux", sysfs: "gtx1080.txtar", smi: "gtx1080-r470"},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce GTX 1080, but the NVIDIA driver is too old (470.256.02 supports CUDA 11.4; the engine needs 12.4 or newer)" + cpuSuffix + "docs/gpu-setup.md#nvidia",
		},
		// Recorded on a real H200 machine: its probes' own output.
		{
			name:    "linux-h200-cuda13-engine",
			m:       machine{goos: "linux", sysfs: "h200-vm.txtar", smi: "h200", cuda: "linux-cuda-13.0", cudaBuild: &CUDABuild{Major: 13, Archs: []string{"9.0"}}},
			variant: VariantCUDA,
			message: "Detected NVIDIA H200 — using GPU acceleration (CUDA 13.0)",
		},
		{
			name:    "linux-h200-release-engine",
			m:       machine{goos: "linux", sysfs: "h200-vm.txtar", smi: "h200", cuda: "linux-cuda-13.0"},
			variant: VariantCPU,
			message: "Detected NVIDIA H200, but only CUDA 13 is installed and the engine needs CUDA 12 (cuBLAS 12)" + cpuSuffix + "docs/gpu-setup.md#only-cuda-13-is-installed",
		},
		{
			name:    "linux-h200-engine-built-for-ampere",
			m:       machine{goos: "linux", sysfs: "h200-vm.txtar", smi: "h200", cuda: "linux-cuda-13.0", cudaBuild: &CUDABuild{Major: 13, Archs: []string{"8.0", "8.6"}}},
			variant: VariantCPU,
			message: "Detected NVIDIA H200, but the cuda engine has no GPU code for compute capability 9.0 (it was built for 8.0, 8.6)" + cpuSuffix + "docs/gpu-setup.md#build-the-cuda-engine-on-linux",
		},
		{
			name:    "win-rtx3060-cuda13-engine-old-driver",
			m:       machine{goos: "windows", dxgi: "rtx3060.json", smi: "rtx3060", cuda: "win-cuda-12.4", cudaBuild: &CUDABuild{Major: 13}},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce RTX 3060, but the NVIDIA driver is too old (551.86 supports CUDA 12.4; the engine needs 13.0 or newer)" + cpuSuffix + "docs/gpu-setup.md#nvidia",
		},
		{
			name:    "win-rtx5070-cuda13-engine-cuda12-only",
			m:       machine{goos: "windows", dxgi: "rtx5070.json", smi: "rtx5070", cuda: "win-cuda-12.4", cudaBuild: &CUDABuild{Major: 13}},
			variant: VariantCPU,
			message: "Detected NVIDIA GeForce RTX 5070, but only CUDA 12 is installed and the engine needs CUDA 13 (cuBLAS 13)" + cpuSuffix + "docs/gpu-setup.md#build-the-cuda-engine-on-linux",
		},
		{
			name:    "linux-intel-only",
			m:       machine{goos: "linux", sysfs: "intel-uhd770.txtar"},
			variant: VariantCPU,
			message: "No supported GPU found — using CPU mode",
			labels:  []string{"Intel GPU 0x4690 (integrated)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			r := Detect(context.Background(), tt.m.sources(t, root), testLogger(t))
			d := Choose(r, tt.pref, tt.m.engines())
			if d.Variant != tt.variant {
				t.Errorf("variant = %q, want %q", d.Variant, tt.variant)
			}
			if d.Message != tt.message {
				t.Errorf("message:\n got %q\nwant %q", d.Message, tt.message)
			}
			if tt.labels != nil {
				got := []string{}
				for _, g := range r.GPUs {
					got = append(got, g.Label())
				}
				if strings.Join(got, "|") != strings.Join(tt.labels, "|") {
					t.Errorf("GPUs = %q, want %q", got, tt.labels)
				}
			}
			if (d.Variant == VariantCPU) != (d.Device == VariantCPU) {
				t.Errorf("variant %q runs on device %q", d.Variant, d.Device)
			}
			checkGolden(t, root, map[string]any{"report": r, "decision": d, "requirements": Requirements(r, d)})
		})
	}
}

// checkGolden compares v as JSON with testdata/golden/<test>.json, with the
// temp root written as $ROOT so the files do not depend on the machine.
func checkGolden(t *testing.T, root string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	rootJSON, _ := json.Marshal(root)
	b = bytes.ReplaceAll(b, rootJSON[1:len(rootJSON)-1], []byte("$ROOT"))
	b = append(b, '\n')
	path := filepath.Join("testdata", "golden", filepath.Base(t.Name())+".json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("%s differs from this run (go test -update rewrites it after review):\n%s", path, b)
	}
}

// The GPU chosen is the engine's device by PCI address, whatever order the
// adapters are listed in: Decision.DeviceIndex and Decision.Env are what
// the worker gets (backend.SpecFor).
func TestDeviceByPCIAddress(t *testing.T) {
	tests := []struct {
		name  string
		m     machine
		gpu   string // the GPU chosen
		index int
		env   []string
		match string
	}{
		{
			name: "windows: a Ryzen 7000 iGPU listed before an RX 5700 XT, HIP lists the 5700 XT first",
			m: machine{goos: "windows", dxgi: "raphael-igpu-before-rx5700xt.json", rocm: "win-6.2-only",
				hipOrder: []string{"0000:03:00.0", "0000:0e:00.0"}},
			gpu: "AMD RX 5700 XT (RDNA 1)", index: 0, env: []string{"HIP_VISIBLE_DEVICES=0"},
			match: "PCI 0000:03:00.0 is HIP device 0 (HIP_VISIBLE_DEVICES=0)",
		},
		{
			name: "windows: the same, HIP listing the iGPU first",
			m: machine{goos: "windows", dxgi: "raphael-igpu-before-rx5700xt.json", rocm: "win-6.2-only",
				hipOrder: []string{"0000:0e:00.0", "0000:03:00.0"}},
			gpu: "AMD RX 5700 XT (RDNA 1)", index: 0, env: []string{"HIP_VISIBLE_DEVICES=1"},
			match: "PCI 0000:03:00.0 is HIP device 1 (HIP_VISIBLE_DEVICES=1)",
		},
		{
			name: "windows: HIP's order unknown, so the adapter order is used and said",
			m:    machine{goos: "windows", dxgi: "raphael-igpu-before-rx5700xt.json", rocm: "win-6.2-only"},
			gpu:  "AMD RX 5700 XT (RDNA 1)", index: 1,
			match: "HIP device 1 by adapter order: HIP's own order is not known (PCI 0000:03:00.0)",
		},
		{
			name: "linux: card0 is the Ryzen 7000 iGPU, the KFD topology has the RX 5700 XT first",
			m:    machine{goos: "linux", sysfs: "raphael-igpu-before-rx5700xt.txtar", rocm: "linux-rocm-6.2.4-gfx1010"},
			gpu:  "AMD RX 5600 XT / 5700 / 5700 XT (RDNA 1)", index: 0, env: []string{"HIP_VISIBLE_DEVICES=0"}, // sysfs gives no name; the PCI id is all three
			match: "PCI 0000:03:00.0 is HIP device 0 (HIP_VISIBLE_DEVICES=0)",
		},
		{
			name: "windows: an RTX 3060 beside Intel UHD 770 graphics",
			m:    machine{goos: "windows", dxgi: "uhd770-before-rtx3060.json", smi: "rtx3060", cuda: "win-cuda-12.4"},
			gpu:  "NVIDIA GeForce RTX 3060", index: 0, env: []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"},
			match: "PCI 0000:01:00.0 is CUDA device 0 (CUDA_DEVICE_ORDER=PCI_BUS_ID)",
		},
		{
			name: "windows: two NVIDIA cards, the larger RTX 3060 in the second slot and listed first by DXGI",
			m:    machine{goos: "windows", dxgi: "rtx3060-and-rtx3050.json", smi: "rtx3050-rtx3060", cuda: "win-cuda-12.4"},
			gpu:  "NVIDIA GeForce RTX 3060", index: 1, env: []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"},
			match: "PCI 0000:41:00.0 is CUDA device 1 (CUDA_DEVICE_ORDER=PCI_BUS_ID)",
		},
		{
			name: "linux: an H200 alone",
			m:    machine{goos: "linux", sysfs: "h200-vm.txtar", smi: "h200", cuda: "linux-cuda-13.0", cudaBuild: &CUDABuild{Major: 13}},
			gpu:  "NVIDIA H200", index: 0, env: []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"},
			match: "PCI 0000:00:06.0 is CUDA device 0 (CUDA_DEVICE_ORDER=PCI_BUS_ID)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Detect(context.Background(), tt.m.sources(t, t.TempDir()), testLogger(t))
			d := Choose(r, "auto", tt.m.engines())
			if d.Device != "cuda" || d.GPU == nil || d.GPU.Label() != tt.gpu {
				t.Fatalf("decision %s on %v: %s; want the GPU %s", d.Variant, d.GPU, d.Message, tt.gpu)
			}
			if d.DeviceIndex != tt.index || strings.Join(d.Env, " ") != strings.Join(tt.env, " ") || d.Match != tt.match {
				t.Errorf("device %d, env %q, match %q\nwant   %d, env %q, match %q", d.DeviceIndex, d.Env, d.Match, tt.index, tt.env, tt.match)
			}
		})
	}
}
