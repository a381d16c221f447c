package gpu

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Engine variants: each is a folder of libraries the worker loads.
const (
	VariantCPU   = "cpu"
	VariantCUDA  = "cuda"
	VariantROCm  = "rocm"       // CTranslate2's ROCm build, ROCm 7.x, RDNA 2 and newer
	VariantRDNA1 = "rocm-rdna1" // CTranslate2 built for gfx1010 against HIP SDK 6.2
)

// What the release cuda variant needs. It is CTranslate2 4.8.x built with
// CUDA 12: it loads cuBLAS 12 at run time (cuDNN is not needed since 4.6.3),
// and its GPU code is compressed, which drivers before 550 (CUDA 12.4) cannot
// load. A variant built by scripts/gpu-build.sh says what it needs instead
// (CUDABuild).
const (
	EngineCUDAMajor = 12
	MinDriverCUDA   = "12.4"
	MinComputeCap   = "5.0" // CUDA 12 builds start at Maxwell
)

// CUDABuild is what a cuda variant was built for. scripts/gpu-build.sh writes
// it beside the library (files CUDA_MAJOR and CUDA_ARCHS); the release builds
// have neither file and are CUDA 12 with code for every GPU from 5.0.
type CUDABuild struct {
	Major int `json:"major"`
	// Archs are the compute capabilities the library has GPU code for
	// ("9.0"); empty means every one its CUDA supports.
	Archs []string `json:"archs,omitempty"`
}

// ReadCUDABuild reads what the cuda variant in dir was built for; nil when
// it does not say (a release build).
func ReadCUDABuild(dir string) *CUDABuild {
	major, err := strconv.Atoi(strings.TrimSpace(readString(filepath.Join(dir, "CUDA_MAJOR"))))
	if err != nil || major <= 0 {
		return nil
	}
	return &CUDABuild{Major: major, Archs: strings.Fields(readString(filepath.Join(dir, "CUDA_ARCHS")))}
}

func (b *CUDABuild) major() int {
	if b == nil {
		return EngineCUDAMajor
	}
	return b.Major
}

// minDriver is the newest CUDA the driver must support, and the driver
// version that first did.
func (b *CUDABuild) minDriver() (cuda, driver string) {
	if m := b.major(); m != EngineCUDAMajor {
		return fmt.Sprintf("%d.0", m), map[int]string{13: "580"}[m]
	}
	return MinDriverCUDA, "550"
}

// minComputeCap is the oldest GPU the build's CUDA supports: CUDA 13 dropped
// Maxwell, Pascal and Volta.
func (b *CUDABuild) minComputeCap() string {
	if b.major() >= 13 {
		return "7.5"
	}
	return MinComputeCap
}

// runs reports whether the build has GPU code a GPU of compute capability cc
// can run: machine code for X.Y runs on X.Z with Z ≥ Y.
func (b *CUDABuild) runs(cc string) bool {
	if b == nil || len(b.Archs) == 0 || cc == "" {
		return true
	}
	major, _, _ := strings.Cut(cc, ".")
	for _, a := range b.Archs {
		if am, _, _ := strings.Cut(a, "."); am == major && versionAtLeast(cc, a) {
			return true
		}
	}
	return false
}

// Engines is what this install has: which variant folders hold an engine,
// and what the cuda variant was built for (nil: the release build).
type Engines struct {
	Have func(variant string) bool
	CUDA *CUDABuild
}

// Guide is the setup guide; every message that names a missing piece links a section of it.
const Guide = "docs/gpu-setup.md"

// Sections of the guide. The anchors test checks each resolves to a heading.
const (
	docNVIDIA      = "docs/gpu-setup.md#nvidia"
	docCUDA12      = "docs/gpu-setup.md#install-the-cuda-12-libraries"
	docCUDA13      = "docs/gpu-setup.md#only-cuda-13-is-installed"
	docBuildCUDA   = "docs/gpu-setup.md#build-the-cuda-engine-on-linux"
	docRDNA2       = "docs/gpu-setup.md#amd-rdna-2-and-newer"
	docRDNA1       = "docs/gpu-setup.md#amd-rdna-1"
	docComgr       = "docs/gpu-setup.md#amd_comgr"
	docKernels1010 = "docs/gpu-setup.md#rocblas-kernels-for-gfx1010"
	docBuildRDNA1  = "docs/gpu-setup.md#build-ctranslate2-for-gfx1010"
	docOther6x     = "docs/gpu-setup.md#another-hip-sdk-6x"
	docOther       = "docs/gpu-setup.md#other-gpus"
	docEngineFiles = "docs/gpu-setup.md#engine-files-are-missing"
	docStartFailed = "docs/gpu-setup.md#the-gpu-engine-failed-to-start"
	docWrong       = "docs/gpu-setup.md#the-gpu-computes-wrong-results"
	docSlow        = "docs/gpu-setup.md#the-gpu-is-slower-than-the-cpu"
)

// rocmVariant is the engine variant built for an AMD gfx target, "" if none is.
// The rocm list is CTranslate2's official ROCm build targets.
func rocmVariant(arch string) string {
	switch arch {
	case "gfx1010":
		return VariantRDNA1
	case "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151", "gfx1200", "gfx1201":
		return VariantROCm
	}
	return ""
}

// rocmOfficial is the targets of CTranslate2's official ROCm builds, as text.
const rocmOfficial = "gfx1030, gfx1100–1102, gfx1150/1151, gfx1200/1201"

// noBuildFor says why no engine variant fits an AMD gfx target: an RDNA chip
// near a built one is not covered by that build (an RX 6600 is gfx1032, not
// the gfx1030 the ROCm build carries code for).
func noBuildFor(arch string) string {
	switch {
	case strings.HasPrefix(arch, "gfx101"):
		return "the RDNA 1 engine is built for gfx1010 only, not " + arch
	case strings.HasPrefix(arch, "gfx103"), strings.HasPrefix(arch, "gfx11"), strings.HasPrefix(arch, "gfx120"):
		return "CTranslate2's official ROCm builds have no GPU code for " + arch + " (they cover " + rocmOfficial + " only)"
	}
	return "no WhisperKey GPU engine supports " + arch
}

// Decision is which engine variant to load and the one sentence that says why.
type Decision struct {
	Variant string `json:"variant"` // cpu, cuda, rocm or rocm-rdna1: the folder to load
	Device  string `json:"device"`  // cpu or cuda (CTranslate2's ROCm builds call the GPU cuda too)
	// DeviceIndex is the engine's device number for GPU: CUDA's in PCI bus
	// order (Env sets CUDA_DEVICE_ORDER=PCI_BUS_ID), 0 for HIP when Env
	// makes GPU HIP's only device (HIP_VISIBLE_DEVICES).
	DeviceIndex int `json:"device_index"`
	// Env is what the worker's environment needs so that DeviceIndex is GPU.
	Env []string `json:"env,omitempty"`
	// Match says how GPU was matched to the engine's device, for doctor:
	// "PCI 0000:03:00.0 is HIP device 1".
	Match string `json:"match,omitempty"`
	// GPU is the GPU used, or the one that could be used once Fix is done; nil when there is none.
	GPU *GPU `json:"gpu,omitempty"`
	// Want is the variant GPU needs even while falling back to cpu; WantInstalled says its folder exists.
	Want          string `json:"want,omitempty"`
	WantInstalled bool   `json:"want_installed,omitempty"`
	Runtime       string `json:"runtime,omitempty"` // "CUDA 12.4", "HIP SDK 6.2"
	// CUDABuild is what the cuda variant was built for, when it says (a
	// scripts/gpu-build.sh build); nil for the release build.
	CUDABuild *CUDABuild `json:"cuda_build,omitempty"`
	// LibDirs go on the worker's library search path after the variant folder (HIP SDK bin, cuBLAS dir).
	LibDirs []string `json:"lib_dirs,omitempty"`
	// FetchCUBLAS is the CUDA major whose cuBLAS is all the GPU lacks and
	// WhisperKey can download (`whisperkey gpu fetch`, the tray's Device
	// menu); 0 when there is nothing to fetch.
	FetchCUBLAS int    `json:"fetch_cublas,omitempty"`
	Message     string `json:"message"`
	Fix         string `json:"fix,omitempty"`        // one imperative line; "" when nothing is missing
	DocAnchor   string `json:"doc_anchor,omitempty"` // e.g. "docs/gpu-setup.md#amd-rdna-1"
}

// FetchLabel is the tray's Device menu item that downloads cuBLAS.
const FetchLabel = "Download cuBLAS for the GPU"

// Check is one requirement as doctor lists it.
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Fix  string `json:"fix,omitempty"`
}

// req is a Check plus what a message says when it is the first one missing.
type req struct {
	Check
	missing, doc string
}

// eval is one GPU's requirements for the variant that could run it.
type eval struct {
	gpu       GPU
	index     int    // in Report.GPUs
	variant   string // "" when no variant can run this GPU
	supported bool   // a variant exists: whatever is missing can be installed
	reqs      []req
	runtime   string
	libDirs   []string
	fetch     string // the Check WhisperKey can meet by downloading (cuBLAS); "" none
}

func (e eval) missing() *req {
	for i := range e.reqs {
		if !e.reqs[i].OK {
			return &e.reqs[i]
		}
	}
	return nil
}

func (e eval) ready() bool { return e.variant != "" && e.missing() == nil }

// Choose picks the engine variant for pref (auto, cpu, cuda or rocm) among
// the installed engines.
func Choose(r Report, pref choice.Device, engines Engines) Decision {
	cpu := Decision{Variant: VariantCPU, Device: VariantCPU}
	vendor := ""
	switch pref {
	case "", choice.DeviceAuto, choice.DeviceCPU:
	case choice.DeviceCUDA:
		vendor = NVIDIA
	case choice.DeviceROCm:
		vendor = AMD
	default:
		cpu.Message = fmt.Sprintf("Unknown device %q in the config (use auto, cpu, cuda or rocm) — using CPU mode", pref)
		return cpu
	}
	var evals []eval
	for i, g := range r.GPUs {
		if vendor == "" || g.Vendor == vendor {
			e := evaluate(r, g, engines)
			e.index = i
			evals = append(evals, e)
		}
	}
	sort.SliceStable(evals, func(i, j int) bool { return better(evals[i], evals[j]) })

	if len(evals) > 0 && (evals[0].gpu.Vendor == NVIDIA || evals[0].gpu.Vendor == AMD) {
		e := evals[0]
		g := e.gpu
		cpu.GPU, cpu.Want, cpu.Runtime = &g, e.variant, e.runtime
		cpu.WantInstalled = e.variant != "" && engines.Have(e.variant)
		if g.Vendor == NVIDIA {
			cpu.CUDABuild = engines.CUDA
		}
	}
	switch {
	case pref == choice.DeviceCPU:
		cpu.Message = "GPU acceleration is off (device: cpu in the config) — using CPU mode"
		return cpu
	case len(evals) == 0 && vendor == NVIDIA:
		cpu.Message, cpu.DocAnchor = "No NVIDIA GPU found for device: cuda — using CPU mode. Setup: "+docNVIDIA, docNVIDIA
		return cpu
	case len(evals) == 0 && vendor == AMD:
		cpu.Message, cpu.DocAnchor = "No AMD GPU found for device: rocm — using CPU mode. Setup: "+docRDNA2, docRDNA2
		return cpu
	case cpu.GPU == nil:
		cpu.Message, cpu.DocAnchor = "No supported GPU found — using CPU mode", docOther
		return cpu
	}
	e := evals[0]
	if m := e.missing(); m != nil {
		cpu.Message = fmt.Sprintf("Detected %s, but %s — using CPU mode. Setup: %s", e.gpu.Label(), m.missing, m.doc)
		cpu.Fix, cpu.DocAnchor = m.Fix, m.doc
		if m.Name == e.fetch {
			cpu.FetchCUBLAS = engines.CUDA.major()
		}
		return cpu
	}
	d := Decision{Variant: e.variant, Device: "cuda", GPU: cpu.GPU, Want: e.variant, WantInstalled: true,
		Runtime: e.runtime, CUDABuild: cpu.CUDABuild, LibDirs: e.libDirs, Message: "Detected " + e.gpu.Label() + " — using GPU acceleration"}
	if e.gpu.Vendor == NVIDIA {
		d.Message += " (CUDA " + e.gpu.CUDAVersion + ")"
	}
	d.DeviceIndex, d.Env, d.Match = device(r, e.index)
	return d
}

// device finds the engine's number for r.GPUs[i] by its PCI address: with
// CUDA_DEVICE_ORDER=PCI_BUS_ID, CUDA numbers GPUs by address; HIP's order
// is recorded in r.HIPOrder, and HIP_VISIBLE_DEVICES leaves HIP only the
// chosen one. Adapter order (DXGI's, sysfs's) is no guide: a Ryzen iGPU
// listed before an RX 5700 XT is not HIP's device 0 for that. Without
// addresses it falls back to counting the vendor's GPUs in probe order.
func device(r Report, i int) (index int, env []string, match string) {
	g := r.GPUs[i]
	probeOrder := 0
	n, addressed := 0, true
	for j, o := range r.GPUs {
		if o.Vendor != g.Vendor {
			continue
		}
		n++
		addressed = addressed && o.PCIBus != ""
		if j < i {
			probeOrder++
		}
	}
	if g.Vendor == NVIDIA {
		env = []string{"CUDA_DEVICE_ORDER=PCI_BUS_ID"}
		if !addressed {
			return probeOrder, env, fmt.Sprintf("CUDA device %d by probe order (no PCI address from nvidia-smi)", probeOrder)
		}
		index = 0
		for _, o := range r.GPUs {
			if o.Vendor == NVIDIA && o.PCIBus < g.PCIBus {
				index++
			}
		}
		return index, env, fmt.Sprintf("PCI %s is CUDA device %d (CUDA_DEVICE_ORDER=PCI_BUS_ID)", g.PCIBus, index)
	}
	for k, b := range r.HIPOrder {
		if g.PCIBus != "" && b == g.PCIBus {
			v := fmt.Sprintf("HIP_VISIBLE_DEVICES=%d", k)
			return 0, []string{v}, fmt.Sprintf("PCI %s is HIP device %d (%s)", g.PCIBus, k, v)
		}
	}
	if n == 1 {
		return 0, nil, strings.TrimSpace("HIP device 0, the only AMD GPU " + pciText(g))
	}
	return probeOrder, nil, fmt.Sprintf("HIP device %d by adapter order: HIP's own order is not known %s", probeOrder, pciText(g))
}

func pciText(g GPU) string {
	if g.PCIBus == "" {
		return ""
	}
	return "(PCI " + g.PCIBus + ")"
}

// better orders GPUs: usable now, then fixable, then NVIDIA/AMD, discrete
// before integrated, NVIDIA before AMD, more memory first.
func better(a, b eval) bool {
	known := func(e eval) bool { return e.gpu.Vendor == NVIDIA || e.gpu.Vendor == AMD }
	switch {
	case a.ready() != b.ready():
		return a.ready()
	case a.supported != b.supported:
		return a.supported
	case known(a) != known(b):
		return known(a)
	case a.gpu.Integrated != b.gpu.Integrated:
		return !a.gpu.Integrated
	case a.gpu.Vendor != b.gpu.Vendor:
		return a.gpu.Vendor == NVIDIA
	}
	return a.gpu.VRAM > b.gpu.VRAM
}

func evaluate(r Report, g GPU, engines Engines) eval {
	switch g.Vendor {
	case NVIDIA:
		return evalNVIDIA(r, g, engines)
	case AMD:
		return evalAMD(r, g, engines.Have)
	}
	return eval{gpu: g, reqs: []req{{Check: Check{Name: "GPU vendor supported (" + g.Vendor + ")", Fix: "Use CPU mode, or an NVIDIA or AMD GPU."},
		missing: "WhisperKey has no GPU engine for " + g.Vendor + " GPUs", doc: docOther}}}
}

func evalNVIDIA(r Report, g GPU, engines Engines) eval {
	e := eval{gpu: g, variant: VariantCUDA, supported: true}
	build := engines.CUDA
	major := build.major()
	minCUDA, minDriver := build.minDriver()
	driver := g.CUDAVersion != ""
	if driver {
		e.runtime = "CUDA " + g.CUDAVersion
	}
	e.reqs = append(e.reqs, req{Check{"NVIDIA driver installed (nvidia-smi runs)", driver, "Install the current NVIDIA driver."},
		"the NVIDIA driver is not installed", docNVIDIA})
	if minCC := build.minComputeCap(); g.ComputeCap != "" && !versionAtLeast(g.ComputeCap, minCC) {
		e.variant, e.supported = "", false
		e.reqs = append(e.reqs, req{Check{"Compute capability " + minCC + " or newer (has " + g.ComputeCap + ")", false, fmt.Sprintf("Use CPU mode: CUDA %d does not support this GPU.", major)},
			fmt.Sprintf("its compute capability %s is below the %s that CUDA %d needs", g.ComputeCap, minCC, major), docOther})
	}
	name := "NVIDIA driver supports CUDA " + minCUDA + " or newer"
	if driver {
		name += " (has " + g.CUDAVersion + ")"
	}
	missing := fmt.Sprintf("the NVIDIA driver is too old (%s supports CUDA %s; the engine needs %s or newer)", g.Driver, g.CUDAVersion, minCUDA)
	e.reqs = append(e.reqs, req{Check{name, driver && versionAtLeast(g.CUDAVersion, minCUDA), "Update the NVIDIA driver to " + minDriver + " or newer."}, missing, docNVIDIA})
	if build != nil && len(build.Archs) > 0 && g.ComputeCap != "" {
		built := strings.Join(build.Archs, ", ")
		e.reqs = append(e.reqs, req{Check{"cuda engine has GPU code for compute capability " + g.ComputeCap + " (built for " + built + ")", build.runs(g.ComputeCap),
			"Rebuild the engine for this GPU: CUDA_ARCH=" + g.ComputeCap + " scripts/gpu-build.sh."},
			"the cuda engine has no GPU code for compute capability " + g.ComputeCap + " (it was built for " + built + ")", docBuildCUDA})
	}

	var lib *CUDALib
	other := 0
	for i, l := range r.CUBLAS {
		if l.Major == major && lib == nil {
			lib = &r.CUBLAS[i]
		}
		if l.Major != major && l.Major > other {
			other = l.Major
		}
	}
	// The release build's CUDA 12 has its own setup sections; a build of
	// another CUDA is one the user made, and its section says what it needs.
	doc := docCUDA12
	if major != EngineCUDAMajor {
		doc = docBuildCUDA
	}
	c := req{Check{fmt.Sprintf("cuBLAS for CUDA %d found", major), lib != nil, fmt.Sprintf("Install the CUDA %d cuBLAS libraries (CUDA Toolkit %d.x).", major, major)},
		fmt.Sprintf("cuBLAS for CUDA %d is not installed", major), doc}
	if lib != nil {
		e.libDirs = []string{filepath.Dir(lib.Path)}
	} else if other > 0 {
		c.missing = fmt.Sprintf("only CUDA %d is installed and the engine needs CUDA %d (cuBLAS %d)", other, major, major)
		c.Fix = fmt.Sprintf("Install CUDA Toolkit %d.x beside CUDA %d (they coexist).", major, other)
		if major == EngineCUDAMajor && other > major {
			c.doc = docCUDA13
		}
	}
	// The release build's cuBLAS is pinned for download: no toolkit needed.
	if lib == nil && major == EngineCUDAMajor {
		e.fetch = c.Name
		c.Fix = fmt.Sprintf("Run `whisperkey gpu fetch` or pick “%s” in the tray's Device menu: it downloads NVIDIA's cuBLAS %d into the cuda engine folder.", FetchLabel, major)
	}
	e.reqs = append(e.reqs, c, engineReq(VariantCUDA, engines.Have))
	return e
}

func evalAMD(r Report, g GPU, have func(string) bool) eval {
	e := eval{gpu: g, variant: rocmVariant(g.Arch)}
	e.supported = e.variant != ""
	section := docRDNA2
	if e.variant == VariantRDNA1 {
		section = docRDNA1
	}
	if strings.HasPrefix(g.Name, "Microsoft Basic") {
		e.reqs = append(e.reqs, req{Check{"AMD graphics driver installed", false, "Install the AMD Adrenalin driver."},
			"the AMD graphics driver is not installed", section})
	}
	arch := req{Check{"GPU architecture supported (" + strings.Trim(g.Arch+", "+g.Family, ", ") + ")", e.supported, "Use CPU mode; the guide lists the AMD GPUs that work."},
		noBuildFor(g.Arch), docOther}
	if g.Arch == "" {
		arch.Name, arch.missing = "GPU architecture known", "its architecture is not known to WhisperKey"
	}
	e.reqs = append(e.reqs, arch)
	if !e.supported {
		return e
	}

	want, wantName := "7.x", sdkName(r.GOOS, "7.x")
	if e.variant == VariantRDNA1 {
		want, wantName = "6.2", sdkName(r.GOOS, "6.2")
	}
	var in *ROCmInstall
	var others, sixes []string
	for i, x := range r.ROCm {
		if !sdkMatches(x, want) {
			others = append(others, x.Version)
			if x.HIPMajor == 6 {
				sixes = append(sixes, x.Version)
			}
			continue
		}
		// Prefer the install that has everything; HIP_PATH plays no part.
		if in == nil || (x.complete(g.Arch) && !in.complete(g.Arch)) {
			in = &r.ROCm[i]
		}
	}
	sdk := req{Check{wantName + " installed", in != nil, "Install AMD " + wantName + "."}, wantName + " is not installed", section}
	if in == nil && len(others) > 0 {
		found := strings.Join(others, ", ")
		switch {
		case e.variant == VariantRDNA1 && len(sixes) > 0:
			// Another 6.x has the ROCm 6 runtime the driver brings, but the
			// engine was built against 6.2's hipBLAS and rocBLAS, and the
			// community gfx1010 rocBLAS that was verified is for 6.2.
			sdk.missing += fmt.Sprintf(" (found %s: only %s has been verified on RDNA 1, and the rocm-rdna1 engine is built against its hipBLAS and rocBLAS)", found, wantName)
			sdk.Fix = "Install AMD " + wantName + " beside " + found + " (they install side by side), then the community rocBLAS for gfx1010 into its folder."
			sdk.doc = docOther6x
		case e.variant == VariantRDNA1:
			sdk.missing += fmt.Sprintf(" (found %s, which does not support RDNA 1)", found)
			sdk.Fix = "Install AMD " + wantName + " beside " + found + "; 7.x cannot run RDNA 1."
		default:
			sdk.missing += fmt.Sprintf(" (found %s; the ROCm engine needs 7.x)", found)
		}
	}
	comgr := req{Check{"amd_comgr present", in != nil && in.Comgr, "Reinstall " + wantName + " with its HIP Runtime Compiler component (amd_comgr)."},
		"amd_comgr is missing from " + wantName, docComgr}
	hipblasName, rocblasName := "hipblas.dll or libhipblas.dll", "rocblas.dll or librocblas.dll"
	if r.GOOS != "windows" {
		hipblasName, rocblasName = "libhipblas.so", "librocblas.so"
	}
	hipblas := req{Check{"hipBLAS present (" + hipblasName + ")", in != nil && in.HIPBLAS, "Reinstall " + wantName + " with its HIP libraries (hipBLAS)."},
		wantName + " has no hipBLAS (" + hipblasName + ")", section}
	kdoc, rfix, kfix := section, "Reinstall "+wantName+" with its HIP libraries (rocBLAS).", "Reinstall "+wantName+"; its rocBLAS should carry kernels for "+g.Arch+"."
	if e.variant == VariantRDNA1 {
		kdoc = docKernels1010
		rfix = "Put the community rocBLAS built for gfx1010 (rocblas.dll and its library folder) into " + wantName + "'s bin folder."
		kfix = "Put community rocBLAS built for gfx1010 into " + wantName + "'s rocblas folder."
	}
	rocblas := req{Check{"rocBLAS present (" + rocblasName + ")", in != nil && in.ROCBLAS, rfix},
		wantName + " has no rocBLAS (" + rocblasName + ")", kdoc}
	kernels := req{Check{"rocBLAS kernels for " + g.Arch, in != nil && in.hasKernels(g.Arch), kfix},
		wantName + " has no rocBLAS kernels for " + g.Arch, kdoc}
	if in != nil {
		e.runtime, e.libDirs = sdkName(r.GOOS, in.Version), []string{in.LibDir}
		comgr.missing = "amd_comgr is missing from " + e.runtime
		hipblas.missing = e.runtime + " has no hipBLAS (" + hipblasName + ")"
		rocblas.missing = e.runtime + " has no rocBLAS (" + rocblasName + ")"
		kernels.missing = e.runtime + " has no rocBLAS kernels for " + g.Arch
		if why := in.KernelsIncomplete[g.Arch]; why != "" {
			kernels.missing = e.runtime + "'s rocBLAS kernels for " + g.Arch + " are incomplete: " + why
		}
	}
	eng := engineReq(e.variant, have)
	if e.variant == VariantRDNA1 {
		eng.doc, eng.Fix = docBuildRDNA1, "Build CTranslate2 for gfx1010 and put it in the rocm-rdna1 engine folder."
	}
	e.reqs = append(e.reqs, sdk, comgr, hipblas, rocblas, kernels, eng)
	return e
}

func engineReq(variant string, have func(string) bool) req {
	return req{Check{variant + " engine files present", have(variant), "Reinstall WhisperKey to restore the " + variant + " engine folder."},
		"the " + variant + " engine files are missing", docEngineFiles}
}

// sdkName is what AMD calls the install: the HIP SDK on Windows, ROCm elsewhere.
func sdkName(goos, version string) string {
	if goos == "windows" {
		return "HIP SDK " + version
	}
	return "ROCm " + version
}

// sdkMatches: "6.2" takes 6.2 and 6.2.x (the rdna1 build's ABI); "7.x" any ROCm 7.
func sdkMatches(in ROCmInstall, want string) bool {
	if want == "7.x" {
		return in.HIPMajor == 7
	}
	return in.HIPMajor == 6 && (in.Version == want || strings.HasPrefix(in.Version, want+"."))
}

// Requirements lists what d's GPU needs, each with whether it is met, for
// doctor; none when no GPU that WhisperKey could use was found.
func Requirements(r Report, d Decision) []Check {
	if d.GPU == nil {
		// No GPU is not a failure: the decision's message says so, and the
		// CPU is what this machine has.
		return nil
	}
	e := evaluate(r, *d.GPU, Engines{Have: func(v string) bool { return v == d.Want && d.WantInstalled }, CUDA: d.CUDABuild})
	var cs []Check
	for _, q := range e.reqs {
		c := q.Check
		if c.OK {
			c.Fix = ""
		}
		cs = append(cs, c)
	}
	if d.GPU.Vendor == AMD && r.HIPPath != "" && len(e.libDirs) > 0 {
		for _, in := range r.ROCm {
			if in.HIPPath && in.LibDir != e.libDirs[0] {
				cs = append(cs, Check{Name: "HIP_PATH ignored (it points to " + sdkName(r.GOOS, in.Version) + ")", OK: true})
			}
		}
	}
	return cs
}

// FallbackMessage says that d's GPU engine failed to start (reason) and CPU mode is used.
func FallbackMessage(d Decision, reason string) string {
	return fallback(d, "the GPU engine failed to start ("+reason+")", docStartFailed)
}

// VerifyMessage says what a verification run found: d.Message when it passed,
// otherwise that the GPU computes wrong results or is slower than the CPU.
func VerifyMessage(d Decision, v Verdict) string {
	switch {
	case v.OK:
		return d.Message
	case v.Wrong:
		return fallback(d, "the GPU computes wrong results ("+v.Reason+")", docWrong)
	}
	return fallback(d, fmt.Sprintf("the GPU is slower than the CPU (%.1f s against %.1f s)", v.GPUSeconds, v.CPUSeconds), docSlow)
}

func fallback(d Decision, what, doc string) string {
	if d.GPU == nil {
		return strings.ToUpper(what[:1]) + what[1:] + " — using CPU mode. Setup: " + doc
	}
	return "Detected " + d.GPU.Label() + ", but " + what + " — using CPU mode. Setup: " + doc
}
