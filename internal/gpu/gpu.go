package gpu

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Vendor names as GPU.Vendor holds them.
const (
	NVIDIA = "NVIDIA"
	AMD    = "AMD"
	Intel  = "Intel"
)

const (
	pciNVIDIA    = 0x10de
	pciAMD       = 0x1002
	pciIntel     = 0x8086
	pciMicrosoft = 0x1414 // the Basic Render Driver, a software adapter
)

// GPU is one graphics adapter and what the probes learnt about it.
type GPU struct {
	Vendor    string `json:"vendor"` // NVIDIA, AMD, Intel, or "PCI 0x1234"
	Name      string `json:"name"`   // as the probe reported it
	PCIDevice uint16 `json:"pci_device"`
	// PCIBus is the adapter's PCI address, "0000:03:00.0" (domain:bus:device.function);
	// "" when no probe gave it. It is what ties the adapter to CUDA's and HIP's devices.
	PCIBus string `json:"pci_bus,omitempty"`
	// VRAM is dedicated memory in bytes; 0 when unknown. (WMI caps it at 4 GiB.)
	VRAM       uint64 `json:"vram,omitempty"`
	Integrated bool   `json:"integrated,omitempty"`
	Arch       string `json:"arch,omitempty"`     // AMD gfx target, e.g. "gfx1010"
	Codename   string `json:"codename,omitempty"` // e.g. "Navi 10"
	Family     string `json:"family,omitempty"`   // e.g. "RDNA 1", "Polaris", "Ampere"
	Driver     string `json:"driver,omitempty"`
	// CUDAVersion is the newest CUDA the NVIDIA driver supports (nvidia-smi's "CUDA Version").
	CUDAVersion string `json:"cuda_version,omitempty"`
	ComputeCap  string `json:"compute_cap,omitempty"` // NVIDIA, e.g. "8.6"
	Source      string `json:"source"`                // the probe that found it: dxgi, wmi, sysfs, nvidia-smi, rocminfo
}

// ROCmInstall is one HIP SDK / ROCm folder and the parts the GPU engine needs from it.
type ROCmInstall struct {
	Version string `json:"version"` // from the folder name, e.g. "6.2" or "7.1.1"
	Dir     string `json:"dir"`
	// LibDir holds the HIP runtime (bin on Windows, lib on Linux); the worker adds it to its library path.
	LibDir   string   `json:"lib_dir"`
	HIPMajor int      `json:"hip_major"`          // from amdhip64_N.dll / libamdhip64.so.N
	Comgr    bool     `json:"comgr"`              // amd_comgr present: without it HIP finds no device at all
	ROCBLAS  bool     `json:"rocblas"`            // rocblas.dll or librocblas.dll (librocblas.so on Linux)
	HIPBLAS  bool     `json:"hipblas"`            // hipblas.dll or libhipblas.dll (libhipblas.so)
	Kernels  []string `json:"kernels,omitempty"`  // gfx targets rocBLAS has a whole Tensile kernel set for
	HIPPath  bool     `json:"hip_path,omitempty"` // HIP_PATH points here (recorded, never trusted)
	// KernelsIncomplete says, for each gfx target that rocBLAS's library
	// folder names but has no whole kernel set for, what is missing.
	KernelsIncomplete map[string]string `json:"kernels_incomplete,omitempty"`
}

// hasKernels reports whether rocBLAS in this install has kernels for arch.
func (in ROCmInstall) hasKernels(arch string) bool {
	for _, k := range in.Kernels {
		if k == arch {
			return true
		}
	}
	return false
}

// complete reports whether this install has every part arch needs.
func (in ROCmInstall) complete(arch string) bool {
	return in.Comgr && in.HIPBLAS && in.ROCBLAS && in.hasKernels(arch)
}

// CUDALib is one cuBLAS library found on disk.
type CUDALib struct {
	Major int    `json:"major"` // CUDA major version in the file name (cublas64_12.dll → 12)
	Path  string `json:"path"`
}

// Report is everything Detect found.
type Report struct {
	GOOS    string        `json:"goos"`
	GPUs    []GPU         `json:"gpus"`
	ROCm    []ROCmInstall `json:"rocm,omitempty"`
	CUBLAS  []CUDALib     `json:"cublas,omitempty"`
	HIPPath string        `json:"hip_path,omitempty"`
	// HIPOrder is the PCI addresses of the AMD GPUs in the order HIP numbers
	// them (the KFD topology's on Linux, the HIP runtime's own on Windows);
	// empty when unknown.
	HIPOrder []string `json:"hip_order,omitempty"`
	Problems []string `json:"problems,omitempty"` // probes that failed, for doctor and the log
}

// Sources says where Detect looks; SystemSources gives the real machine's.
// Zero fields skip that probe, so tests feed recorded outputs through the same code.
type Sources struct {
	// GOOS decides wording ("HIP SDK 6.2" on Windows, "ROCm 6.2" elsewhere); "" means runtime.GOOS.
	GOOS string
	// SysRoot is the folder holding sys/ (and proc/) on Linux, normally "/".
	SysRoot string
	// Adapters lists display adapters (Windows: DXGI, falling back to WMI).
	Adapters func(ctx context.Context) ([]Adapter, error)
	// Run runs a probe command (nvidia-smi, rocminfo) and returns its stdout.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
	// ROCmRoots are folders whose subfolders are ROCm installs (C:\Program Files\AMD\ROCm, /opt).
	ROCmRoots []string
	// CUDALibDirs are searched for cuBLAS: the cuda variant folder, CUDA toolkit bin dirs, PATH.
	CUDALibDirs []string
	// HIPPath is $HIP_PATH, recorded only to say it was not relied on.
	HIPPath string
	// HIPDevices lists the PCI addresses of HIP's devices in its order, asking
	// the HIP runtime in libDir (Windows, where no file lists them); nil skips it.
	HIPDevices func(ctx context.Context, libDir string) ([]string, error)
	// Timeout bounds each command; 0 means 15 s.
	Timeout time.Duration
}

// Detect runs every probe in src and classifies what they found. It never fails:
// a probe that cannot run adds a line to Report.Problems.
func Detect(ctx context.Context, src Sources, log *slog.Logger) Report {
	log = log.With("pkg", "gpu")
	r := Report{GOOS: src.GOOS, HIPPath: src.HIPPath, GPUs: []GPU{}}
	if r.GOOS == "" {
		r.GOOS = runtime.GOOS
	}
	problem := func(what string, err error) {
		r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", what, err))
		log.Info("gpu probe failed", "probe", what, "err", err)
	}
	run := func(name string, args ...string) ([]byte, error) {
		timeout := src.Timeout
		if timeout == 0 {
			timeout = 15 * time.Second
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return src.Run(cctx, name, args...)
	}

	if src.Adapters != nil {
		ads, err := src.Adapters(ctx)
		if err != nil {
			problem("adapters", err)
		}
		for _, a := range ads {
			if !a.Software {
				r.GPUs = append(r.GPUs, a.gpu())
			}
		}
	}
	if src.SysRoot != "" {
		gs, err := ReadSysfs(src.SysRoot)
		if err != nil {
			problem("sysfs", err)
		}
		r.GPUs = append(r.GPUs, gs...)
	}
	if src.Run != nil && (len(r.GPUs) == 0 || r.has(NVIDIA)) {
		r.addNVIDIA(run, problem)
	}
	if src.Run != nil && r.GOOS == "linux" && (len(r.GPUs) == 0 || r.has(AMD)) {
		if out, err := run("rocminfo"); err != nil {
			problem("rocminfo", err)
		} else {
			r.GPUs = merge(r.GPUs, ParseROCmInfo(string(out)))
		}
	}
	for i := range r.GPUs {
		classify(&r.GPUs[i])
	}

	hip := filepath.Clean(strings.TrimRight(src.HIPPath, `/\`))
	for _, root := range src.ROCmRoots {
		ins, err := ScanROCm(root)
		if err != nil {
			problem("rocm", err)
		}
		for _, in := range ins {
			in.HIPPath = src.HIPPath != "" && filepath.Clean(in.Dir) == hip
			r.ROCm = append(r.ROCm, in)
		}
	}
	r.CUBLAS = FindCUBLAS(src.CUDALibDirs)
	r.HIPOrder = r.hipOrder(ctx, src, problem)

	for _, g := range r.GPUs {
		log.Info("gpu found", "name", g.Name, "vendor", g.Vendor, "pci_device", fmt.Sprintf("0x%04x", g.PCIDevice),
			"arch", g.Arch, "family", g.Family, "integrated", g.Integrated, "driver", g.Driver,
			"cuda", g.CUDAVersion, "cc", g.ComputeCap, "vram", g.VRAM, "source", g.Source)
	}
	for _, in := range r.ROCm {
		log.Info("rocm install found", "version", in.Version, "dir", in.Dir, "hip", in.HIPMajor,
			"comgr", in.Comgr, "rocblas", in.ROCBLAS, "hipblas", in.HIPBLAS, "kernels", strings.Join(in.Kernels, ","),
			"kernels_incomplete", fmt.Sprint(in.KernelsIncomplete), "hip_path", in.HIPPath)
	}
	for _, l := range r.CUBLAS {
		log.Info("cublas found", "major", l.Major, "path", l.Path)
	}
	return r
}

func (r *Report) has(vendor string) bool {
	for _, g := range r.GPUs {
		if g.Vendor == vendor {
			return true
		}
	}
	return false
}

// addNVIDIA asks nvidia-smi for names, driver and compute capability, and its
// banner for the newest CUDA the driver supports. Drivers before 510 do not
// know compute_cap, and it is exactly those the "too old" message is for.
func (r *Report) addNVIDIA(run func(string, ...string) ([]byte, error), problem func(string, error)) {
	banner, err := run("nvidia-smi")
	if err != nil {
		problem("nvidia-smi", err)
		return
	}
	driver, cuda := ParseNvidiaBanner(string(banner))
	out, err := run("nvidia-smi", "--query-gpu=name,pci.device_id,driver_version,memory.total,compute_cap", "--format=csv,noheader")
	if err != nil {
		problem("nvidia-smi query", err)
		// Ask again with the index in compute_cap's place: the parser keeps
		// five fields and takes an integer for "compute capability unknown".
		out, err = run("nvidia-smi", "--query-gpu=name,pci.device_id,driver_version,memory.total,index", "--format=csv,noheader")
	}
	var smi []GPU
	if err == nil {
		smi, err = ParseNvidiaSMI(string(out))
	}
	if err != nil {
		problem("nvidia-smi query", err)
	}
	for i := range smi {
		smi[i].CUDAVersion = cuda
	}
	// The bus ids in a query of their own: the main query's fields stay
	// those every driver since 470 answers.
	if len(smi) > 0 {
		out, err := run("nvidia-smi", "--query-gpu=pci.bus_id,pci.device_id", "--format=csv,noheader")
		var bus []string
		if err == nil {
			bus, err = ParseNvidiaBus(string(out))
		}
		switch {
		case err != nil:
			problem("nvidia-smi pci.bus_id", err)
		case len(bus) != len(smi):
			problem("nvidia-smi pci.bus_id", fmt.Errorf("%d addresses for %d GPUs", len(bus), len(smi)))
		default:
			for i := range smi {
				smi[i].PCIBus = bus[i]
			}
		}
	}
	r.GPUs = merge(r.GPUs, smi)
	for i := range r.GPUs {
		g := &r.GPUs[i]
		if g.Vendor == NVIDIA && g.CUDAVersion == "" && (driver != "" || cuda != "") {
			g.Driver, g.CUDAVersion = driver, cuda
		}
	}
}

// merge folds what a vendor tool says into the adapter list, matching cards by
// vendor and PCI device id in order (two identical cards pair up one to one).
func merge(base, extra []GPU) []GPU {
	used := make([]bool, len(base))
	for _, e := range extra {
		i := -1
		for j, b := range base {
			if !used[j] && b.Vendor == e.Vendor && (b.PCIDevice == e.PCIDevice || e.PCIDevice == 0) {
				i = j
				break
			}
		}
		if i < 0 {
			base = append(base, e)
			used = append(used, true)
			continue
		}
		used[i] = true
		b := &base[i]
		if e.Name != "" && !strings.HasPrefix(e.Name, "Device ") {
			b.Name = e.Name
		}
		for _, f := range [][2]*string{{&b.PCIBus, &e.PCIBus}, {&b.Arch, &e.Arch}, {&b.Driver, &e.Driver}, {&b.CUDAVersion, &e.CUDAVersion}, {&b.ComputeCap, &e.ComputeCap}} {
			if *f[1] != "" {
				*f[0] = *f[1]
			}
		}
		if b.VRAM == 0 || e.VRAM > b.VRAM {
			b.VRAM = e.VRAM
		}
		b.Source += "+" + e.Source
	}
	return base
}

func vendorName(id uint16) string {
	switch id {
	case pciNVIDIA:
		return NVIDIA
	case pciAMD:
		return AMD
	case pciIntel:
		return Intel
	}
	return fmt.Sprintf("PCI 0x%04x", id)
}

// hipOrder finds how HIP numbers the AMD GPUs, by PCI address: from the
// KFD topology on Linux, from the HIP runtime of an install on Windows.
// It is only needed, and only asked, when there are two AMD GPUs or more.
func (r *Report) hipOrder(ctx context.Context, src Sources, problem func(string, error)) []string {
	n := 0
	for _, g := range r.GPUs {
		if g.Vendor == AMD {
			n++
		}
	}
	if n < 2 {
		return nil
	}
	if src.SysRoot != "" {
		return KFDOrder(src.SysRoot)
	}
	if src.HIPDevices == nil {
		return nil
	}
	for _, in := range r.ROCm {
		if in.HIPMajor == 0 {
			continue
		}
		order, err := src.HIPDevices(ctx, in.LibDir)
		if err != nil {
			problem("hip devices ("+in.LibDir+")", err)
			continue
		}
		return order
	}
	return nil
}
