package gpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ParseNvidiaSMI parses the output of
// `nvidia-smi --query-gpu=name,pci.device_id,driver_version,memory.total,compute_cap --format=csv,noheader`,
// e.g. "NVIDIA GeForce RTX 3060, 0x250310DE, 551.86, 12288 MiB, 8.6".
func ParseNvidiaSMI(out string) ([]GPU, error) {
	var gs []GPU
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 5 {
			return nil, fmt.Errorf("nvidia-smi line %q: want 5 comma-separated fields (name, pci.device_id, driver_version, memory.total, compute_cap)", line)
		}
		// A name could hold a comma; the four fields after it cannot.
		n := len(f)
		name := strings.TrimSpace(strings.Join(f[:n-4], ","))
		id, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(f[n-4])), "0x"), 16, 32)
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi line %q: pci.device_id: %w", line, err)
		}
		g := GPU{Vendor: NVIDIA, Name: name, PCIDevice: uint16(id >> 16), Driver: strings.TrimSpace(f[n-3]), Source: "nvidia-smi"}
		if mib, ok := strings.CutSuffix(strings.TrimSpace(f[n-2]), " MiB"); ok {
			if v, err := strconv.ParseUint(mib, 10, 64); err == nil {
				g.VRAM = v << 20
			}
		}
		if cc := strings.TrimSpace(f[n-1]); ccPattern.MatchString(cc) {
			g.ComputeCap = cc
		}
		gs = append(gs, g)
	}
	return gs, nil
}

var (
	ccPattern     = regexp.MustCompile(`^\d+\.\d+$`)
	bannerDriver  = regexp.MustCompile(`Driver Version:\s*([0-9.]+)`)
	bannerCUDA    = regexp.MustCompile(`CUDA Version:\s*([0-9]+\.[0-9]+)`)
	cublasPattern = regexp.MustCompile(`^(?:cublas64_(\d+)\.dll|libcublas\.so\.(\d+))`)
)

// ParseNvidiaBanner reads the driver version and the newest CUDA version the
// driver supports from plain `nvidia-smi` output
// ("| NVIDIA-SMI 551.86   Driver Version: 551.86   CUDA Version: 12.4 |").
func ParseNvidiaBanner(out string) (driver, cuda string) {
	if m := bannerDriver.FindStringSubmatch(out); m != nil {
		driver = m[1]
	}
	if m := bannerCUDA.FindStringSubmatch(out); m != nil {
		cuda = m[1]
	}
	return driver, cuda
}

// ParseNvidiaBus parses
// `nvidia-smi --query-gpu=pci.bus_id,pci.device_id --format=csv,noheader`
// ("00000000:01:00.0, 0x250310DE"), one line per GPU in the order of the
// main query, into PCI addresses.
func ParseNvidiaBus(out string) ([]string, error) {
	var bus []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, _, _ := strings.Cut(line, ",")
		b := NormalizeBus(id)
		if b == "" {
			return nil, fmt.Errorf("nvidia-smi line %q: pci.bus_id is not a PCI address (domain:bus:device.function)", line)
		}
		bus = append(bus, b)
	}
	return bus, nil
}

var busPattern = regexp.MustCompile(`^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$`)

// NormalizeBus writes a PCI address the one way the probes compare it,
// "0000:01:00.0": nvidia-smi gives an 8-digit domain, sysfs a 4-digit one,
// Windows none. "" when s is not an address.
func NormalizeBus(s string) string {
	m := busPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	var dom, bus, dev, fn uint64
	if m[1] != "" {
		dom, _ = strconv.ParseUint(m[1], 16, 32)
	}
	bus, _ = strconv.ParseUint(m[2], 16, 8)
	dev, _ = strconv.ParseUint(m[3], 16, 8)
	fn, _ = strconv.ParseUint(m[4], 16, 8)
	return fmt.Sprintf("%04x:%02x:%02x.%x", dom, bus, dev, fn)
}
