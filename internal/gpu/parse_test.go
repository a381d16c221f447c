package gpu

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestParseNvidiaSMI(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []GPU
		wantErr string
	}{
		{
			name: "recorded rtx3060",
			in:   string(readFixture(t, "nvidia-smi/rtx3060.csv")),
			want: []GPU{{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 3060", PCIDevice: 0x2503, VRAM: 12288 << 20, Driver: "551.86", ComputeCap: "8.6", Source: "nvidia-smi"}},
		},
		{
			name: "recorded h200 (a real machine, driver 580)",
			in:   string(readFixture(t, "nvidia-smi/h200.csv")),
			want: []GPU{{Vendor: NVIDIA, Name: "NVIDIA H200", PCIDevice: 0x2335, VRAM: 143771 << 20, Driver: "580.159.04", ComputeCap: "9.0", Source: "nvidia-smi"}},
		},
		{
			name: "two cards, a comma in a name, no compute capability",
			in:   "Quadro P2000, Rev A, 0x1C3010DE, 535.183.01, 5120 MiB, [N/A]\nNVIDIA GeForce RTX 4090, 0x268410DE, 535.183.01, 24564 MiB, 8.9\n",
			want: []GPU{
				{Vendor: NVIDIA, Name: "Quadro P2000, Rev A", PCIDevice: 0x1c30, VRAM: 5120 << 20, Driver: "535.183.01", Source: "nvidia-smi"},
				{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 4090", PCIDevice: 0x2684, VRAM: 24564 << 20, Driver: "535.183.01", ComputeCap: "8.9", Source: "nvidia-smi"},
			},
		},
		{
			name: "index in place of compute_cap (drivers before 510)",
			in:   string(readFixture(t, "nvidia-smi/gtx1080-r470.csv")),
			want: []GPU{{Vendor: NVIDIA, Name: "NVIDIA GeForce GTX 1080", PCIDevice: 0x1b80, VRAM: 8119 << 20, Driver: "470.256.02", Source: "nvidia-smi"}},
		},
		{name: "empty", in: "\n"},
		{name: "error text instead of CSV", in: "No devices were found\n", wantErr: "want 5 comma-separated fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNvidiaSMI(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d GPUs %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("GPU %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseNvidiaBanner(t *testing.T) {
	tests := []struct{ name, fixture, driver, cuda string }{
		{"windows 551", "rtx3060.txt", "551.86", "12.4"},
		{"driver offering CUDA 13", "rtx5070.txt", "581.29", "13.0"},
		{"linux 470", "gtx1080-r470.txt", "470.256.02", "11.4"},
		{"linux 580, recorded on an H200", "h200.txt", "580.159.04", "13.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, c := ParseNvidiaBanner(string(readFixture(t, "nvidia-smi/"+tt.fixture)))
			if d != tt.driver || c != tt.cuda {
				t.Errorf("got driver %q CUDA %q, want %q %q", d, c, tt.driver, tt.cuda)
			}
		})
	}
}

func TestParseROCmInfo(t *testing.T) {
	tests := []struct {
		name, fixture string
		want          []GPU
	}{
		{"rx5700xt: CPU agent skipped, xnack feature stripped", "rx5700xt.txt",
			[]GPU{{Vendor: AMD, Name: "AMD Radeon RX 5700 XT", PCIDevice: 0x731f, Arch: "gfx1010", Source: "rocminfo"}}},
		{"rx580 is gfx803", "rx580.txt",
			[]GPU{{Vendor: AMD, Name: "Radeon RX 580 Series", PCIDevice: 0x67df, Arch: "gfx803", Source: "rocminfo"}}},
		{"discrete and integrated", "rx7900xtx.txt", []GPU{
			{Vendor: AMD, Name: "AMD Radeon RX 7900 XTX", PCIDevice: 0x744c, Arch: "gfx1100", Source: "rocminfo"},
			{Vendor: AMD, Name: "AMD Radeon Graphics", PCIDevice: 0x164e, Arch: "gfx1036", Source: "rocminfo"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseROCmInfo(string(readFixture(t, "rocminfo/"+tt.fixture)))
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("agent %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReadSysfs(t *testing.T) {
	root := t.TempDir()
	buildTree(t, "sysfs/rx7900xtx-raphael.txtar", root)
	got, err := ReadSysfs(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{
		{Vendor: AMD, PCIDevice: 0x744c, PCIBus: "0000:03:00.0", VRAM: 25753026560, Arch: "gfx1100", Driver: "kernel 6.8.0-45-generic", Source: "sysfs+kfd"},
		{Vendor: AMD, PCIDevice: 0x164e, PCIBus: "0000:15:00.0", VRAM: 536870912, Arch: "gfx1036", Driver: "kernel 6.8.0-45-generic", Source: "sysfs+kfd"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v (connectors such as card0-DP-1 are not cards)", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("card %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if gs, err := ReadSysfs(t.TempDir()); err != nil || len(gs) != 0 {
		t.Errorf("empty root: got %v, %v; want no GPUs and no error", gs, err)
	}
}

func TestArchitectureTables(t *testing.T) {
	tests := []struct {
		name       string
		gfxVersion int
		arch       string
		family     string
	}{
		{"RX 5700 XT", 100100, "gfx1010", "RDNA 1"},
		{"RX 580 is Polaris, not RDNA 1", 80003, "gfx803", "Polaris"},
		{"Renoir APU: hex stepping", 90012, "gfx90c", "Vega"},
		{"RX 6700 XT", 100301, "gfx1031", "RDNA 2"},
		{"Radeon 780M", 110003, "gfx1103", "RDNA 3"},
		{"Strix Halo", 110501, "gfx1151", "RDNA 3.5"},
		{"RX 9070 XT", 120001, "gfx1201", "RDNA 4"},
		{"CPU node", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arch := gfxFromVersion(tt.gfxVersion)
			if arch != tt.arch || amdFamily(arch) != tt.family {
				t.Errorf("gfx_target_version %d → %q %q, want %q %q", tt.gfxVersion, arch, amdFamily(arch), tt.arch, tt.family)
			}
		})
	}
	chip, ok := amdPCI(0x731f)
	if !ok || chip.codename != "Navi 10" || chip.arch != "gfx1010" || amdFamily(chip.arch) != "RDNA 1" || !strings.Contains(chip.name, "5700 XT") {
		t.Errorf("0x731F → %+v, want Navi 10, gfx1010, RDNA 1, RX 5700 XT", chip)
	}
	for cc, want := range map[string]string{"5.2": "Maxwell", "6.1": "Pascal", "7.5": "Turing", "8.6": "Ampere", "8.9": "Ada Lovelace", "12.0": "Blackwell"} {
		if got := nvidiaFamily(cc); got != want {
			t.Errorf("compute capability %s → %q, want %q", cc, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	tests := []struct {
		name string
		g    GPU
		want string
	}{
		{"marketing name shortened", GPU{Vendor: AMD, Name: "AMD Radeon RX 5700 XT", Family: "RDNA 1"}, "AMD RX 5700 XT (RDNA 1)"},
		{"old driver name", GPU{Vendor: AMD, Name: "Radeon RX 580 Series", Family: "Polaris"}, "AMD RX 580 (Polaris)"},
		{"APU", GPU{Vendor: AMD, Name: "AMD Radeon(TM) Graphics", Family: "Vega", Integrated: true}, "AMD Radeon Graphics (Vega, integrated)"},
		{"no driver, known chip", GPU{Vendor: AMD, Name: "Microsoft Basic Display Adapter", PCIDevice: 0x744c, Family: "RDNA 3"}, "AMD RX 7900 XT / 7900 XTX / 7900 GRE (RDNA 3)"},
		{"unknown AMD chip", GPU{Vendor: AMD, PCIDevice: 0x1234}, "AMD GPU 0x1234 (unknown architecture)"},
		{"NVIDIA keeps its name", GPU{Vendor: NVIDIA, Name: "NVIDIA GeForce RTX 3060", Family: "Ampere"}, "NVIDIA GeForce RTX 3060"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.Label(); got != tt.want {
				t.Errorf("Label() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseWMI(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Adapter
		wantErr  bool
	}{
		{name: "full object, one adapter, AdapterRAM capped", in: string(readFixture(t, "wmi/rx5700xt.json")),
			want: []Adapter{{Name: "AMD Radeon RX 5700 XT", VendorID: 0x1002, DeviceID: 0x731f, VRAM: 4293918720, Driver: "32.0.12033.1030", Source: "wmi"}}},
		{name: "array with a remote display adapter", in: string(readFixture(t, "wmi/rx580.json")),
			want: []Adapter{
				{Name: "Radeon RX 580 Series", VendorID: 0x1002, DeviceID: 0x67df, VRAM: 4293918720, Driver: "31.0.21921.1000", Source: "wmi"},
				{Name: "Microsoft Remote Display Adapter", Driver: "10.0.22621.1", Software: true, Source: "wmi"},
			}},
		{name: "no adapters", in: ""},
		{name: "not JSON", in: "Get-CimInstance : Access denied", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWMI([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("adapter %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestScanROCm(t *testing.T) {
	tests := []struct {
		name    string
		layout  string
		want    string // version:hip:comgr:rocblas:gfx1010 per install
		libDirs string
	}{
		{"6.2 only", "win-6.2-only", "6.2:6:true:true:true", "6.2/bin"},
		{"7.1 only", "win-7.1-only", "7.1:7:true:true:false", "7.1/bin"},
		{"both", "win-both", "6.2:6:true:true:true 7.1:7:true:true:false", "6.2/bin 7.1/bin"},
		{"6.2 without comgr", "win-6.2-no-comgr", "6.2:6:false:true:true", "6.2/bin"},
		{"6.2 with stock kernels", "win-6.2-stock-kernels", "6.2:6:true:true:false", "6.2/bin"},
		{"linux /opt, other folders ignored", "linux-rocm-6.2.4-gfx1010", "6.2.4:6:true:true:true", "rocm-6.2.4/lib"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			buildTree(t, "layouts/"+tt.layout+".txtar", root)
			ins, err := ScanROCm(root)
			if err != nil {
				t.Fatal(err)
			}
			var got, dirs []string
			for _, in := range ins {
				got = append(got, strings.Join([]string{in.Version, strconv.Itoa(in.HIPMajor), strconv.FormatBool(in.Comgr), strconv.FormatBool(in.ROCBLAS), strconv.FormatBool(in.hasKernels("gfx1010"))}, ":"))
				rel, _ := filepath.Rel(root, in.LibDir)
				dirs = append(dirs, filepath.ToSlash(rel))
			}
			if strings.Join(got, " ") != tt.want || strings.Join(dirs, " ") != tt.libDirs {
				t.Errorf("got %q in %q, want %q in %q", got, dirs, tt.want, tt.libDirs)
			}
		})
	}
	if ins, err := ScanROCm(filepath.Join(t.TempDir(), "absent")); err != nil || ins != nil {
		t.Errorf("missing root: got %v, %v; want nothing", ins, err)
	}
}

func TestVersionAtLeast(t *testing.T) {
	type args struct{ have, want string }
	tabletest.Check(t, "versionAtLeast", func(a args) bool {
		return versionAtLeast(a.have, a.want)
	}, []tabletest.Case[args, bool]{
		{Name: "equal", In: args{"12.4", "12.4"}, Want: true},
		{Name: "numeric not lexical", In: args{"12.10", "12.4"}, Want: true},
		{Name: "older minor", In: args{"12.2", "12.4"}, Want: false},
		{Name: "newer major", In: args{"13.0", "12.4"}, Want: true},
		{Name: "older major", In: args{"11.8", "12.4"}, Want: false},
		{Name: "compute capability", In: args{"5.0", "5.0"}, Want: true},
		{Name: "Kepler", In: args{"3.5", "5.0"}, Want: false},
	})
}

func TestCUDABuild(t *testing.T) {
	dir := t.TempDir()
	if got := ReadCUDABuild(dir); got != nil {
		t.Errorf("a folder without build files (a release build) reads as %+v, want nil", got)
	}
	for name, body := range map[string]string{"CUDA_MAJOR": "13\n", "CUDA_ARCHS": "8.6 9.0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := ReadCUDABuild(dir)
	if b == nil || b.Major != 13 || strings.Join(b.Archs, ",") != "8.6,9.0" {
		t.Fatalf("ReadCUDABuild = %+v, want CUDA 13 for 8.6 and 9.0", b)
	}
	tests := []struct {
		build *CUDABuild
		cc    string
		runs  bool
	}{
		{nil, "5.0", true},                    // release build: every GPU CUDA 12 supports
		{&CUDABuild{Major: 13}, "12.0", true}, // no list: every GPU
		{b, "9.0", true},                      // built for it
		{b, "8.9", true},                      // 8.6 code runs on 8.9
		{b, "8.0", false},                     // but not on 8.0
		{b, "12.0", false},                    // nor on another major
		{&CUDABuild{Major: 13, Archs: []string{"9.0"}}, "", true}, // unknown cc: let loading decide
	}
	for _, tt := range tests {
		if got := tt.build.runs(tt.cc); got != tt.runs {
			t.Errorf("%+v runs on %q = %v, want %v", tt.build, tt.cc, got, tt.runs)
		}
	}
}

func TestPCIAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:01:00.0": "0000:01:00.0", "0000:0E:00.0": "0000:0e:00.0", "01:00.0": "0000:01:00.0",
		"0001:c1:1f.7": "0001:c1:1f.7", "01:00": "", "PCI bus 1": "",
	} {
		if got := NormalizeBus(in); got != want {
			t.Errorf("NormalizeBus(%q) = %q, want %q", in, got, want)
		}
	}
	got, err := ParseNvidiaBus("00000000:01:00.0, 0x250310DE\n00000000:41:00.0, 0x250710DE\n")
	if err != nil || len(got) != 2 || got[0] != "0000:01:00.0" || got[1] != "0000:41:00.0" {
		t.Errorf("ParseNvidiaBus = %q, %v", got, err)
	}
	if _, err := ParseNvidiaBus("[N/A], 0x250310DE"); err == nil {
		t.Error("ParseNvidiaBus took [N/A]")
	}
}
