package gpu

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ParseROCmInfo lists the GPU agents in `rocminfo` output: gfx target,
// marketing name and PCI device id ("Chip ID: 29471(0x731f)").
func ParseROCmInfo(out string) []GPU {
	var gs []GPU
	var cur map[string]string
	flush := func() {
		if cur != nil && cur["Device Type"] == "GPU" {
			g := GPU{Vendor: AMD, Name: cur["Marketing Name"], Arch: stripFeatures(cur["Name"]), Source: "rocminfo"}
			if m := chipID.FindStringSubmatch(cur["Chip ID"]); m != nil {
				id, _ := strconv.ParseUint(m[1], 16, 16)
				g.PCIDevice = uint16(id)
			}
			gs = append(gs, g)
		}
		cur = nil
	}
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "Agent ") && !strings.Contains(trimmed, ":") {
			flush()
			cur = map[string]string{}
			continue
		}
		// Agent fields sit two spaces in; deeper lines (ISA Info, pools) reuse the same keys.
		if cur == nil || !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
			continue
		}
		if k, v, ok := strings.Cut(trimmed, ":"); ok {
			if _, seen := cur[k]; !seen {
				cur[k] = strings.TrimSpace(v)
			}
		}
	}
	flush()
	return gs
}

var chipID = regexp.MustCompile(`\(0x([0-9a-fA-F]+)\)`)

// stripFeatures drops target features: "gfx1010:xnack-" → "gfx1010".
func stripFeatures(arch string) string {
	a, _, _ := strings.Cut(arch, ":")
	return a
}

// ReadSysfs lists the GPUs under root/sys/class/drm (vendor, device id, VRAM)
// and takes AMD gfx targets from the KFD topology under root/sys/class/kfd.
func ReadSysfs(root string) ([]GPU, error) {
	cards, err := filepath.Glob(filepath.Join(root, "sys/class/drm/card*"))
	if err != nil {
		return nil, fmt.Errorf("list drm cards: %w", err)
	}
	sort.Slice(cards, func(i, j int) bool { return cardNum(cards[i]) < cardNum(cards[j]) })
	var gs []GPU
	for _, c := range cards {
		if cardNum(c) < 0 {
			continue // connectors such as card0-DP-1
		}
		dev := filepath.Join(c, "device")
		vendor, err1 := readHex(filepath.Join(dev, "vendor"))
		device, err2 := readHex(filepath.Join(dev, "device"))
		if err1 != nil || err2 != nil {
			continue // not a PCI device (e.g. a virtual display)
		}
		g := GPU{Vendor: vendorName(uint16(vendor)), PCIDevice: uint16(device), Source: "sysfs", PCIBus: ueventSlot(filepath.Join(dev, "uevent"))}
		if v, err := readUint(filepath.Join(dev, "mem_info_vram_total")); err == nil {
			g.VRAM = v
		}
		switch g.Vendor {
		case AMD:
			g.Driver = moduleVersion(root, "amdgpu")
		case NVIDIA:
			g.Driver = readString(filepath.Join(root, "sys/module/nvidia/version"))
		}
		gs = append(gs, g)
	}

	nodes, _ := filepath.Glob(filepath.Join(root, "sys/class/kfd/kfd/topology/nodes/*/properties"))
	sort.Slice(nodes, func(i, j int) bool { return nodeNum(nodes[i]) < nodeNum(nodes[j]) })
	var kfd []GPU
	for _, n := range nodes {
		p, err := readProperties(n)
		if err != nil {
			return gs, err
		}
		arch := gfxFromVersion(p["gfx_target_version"])
		if arch == "" || arch == "gfx000" {
			continue // a CPU node, or a GPU masked from compute
		}
		g := GPU{Vendor: vendorName(uint16(p["vendor_id"])), PCIDevice: uint16(p["device_id"]), Arch: arch, Source: "kfd"}
		if loc, ok := p["location_id"]; ok && loc > 0 {
			// location_id is bus<<8 | device<<3 | function.
			g.PCIBus = fmt.Sprintf("%04x:%02x:%02x.%x", p["domain"], loc>>8, loc>>3&0x1f, loc&7)
		}
		kfd = append(kfd, g)
	}
	return merge(gs, kfd), nil
}

// KFDOrder is the PCI addresses of the GPU nodes in the KFD topology under
// root, in node order: the order ROCm's runtime, and so HIP, numbers them.
func KFDOrder(root string) []string {
	nodes, _ := filepath.Glob(filepath.Join(root, "sys/class/kfd/kfd/topology/nodes/*/properties"))
	sort.Slice(nodes, func(i, j int) bool { return nodeNum(nodes[i]) < nodeNum(nodes[j]) })
	var order []string
	for _, n := range nodes {
		p, err := readProperties(n)
		if err != nil {
			return nil
		}
		loc := p["location_id"]
		if arch := gfxFromVersion(p["gfx_target_version"]); arch == "" || arch == "gfx000" || loc == 0 {
			continue
		}
		order = append(order, fmt.Sprintf("%04x:%02x:%02x.%x", p["domain"], loc>>8, loc>>3&0x1f, loc&7))
	}
	return order
}

// ueventSlot reads PCI_SLOT_NAME from a device's uevent file.
func ueventSlot(path string) string {
	for _, line := range strings.Split(readString(path), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PCI_SLOT_NAME="); ok {
			return NormalizeBus(v)
		}
	}
	return ""
}

// moduleVersion reads a kernel module's version; in-tree amdgpu has none, so
// the kernel release stands in (it is what changes the driver).
func moduleVersion(root, module string) string {
	if v := readString(filepath.Join(root, "sys/module", module, "version")); v != "" {
		return v
	}
	if k := readString(filepath.Join(root, "proc/sys/kernel/osrelease")); k != "" {
		return "kernel " + k
	}
	return ""
}

func cardNum(path string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(path), "card"))
	if err != nil {
		return -1
	}
	return n
}

func nodeNum(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
	return n
}

func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readHex(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(string(b)), "0x"), 16, 32)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return v, nil
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}

// readProperties parses a KFD properties file ("name value" per line, decimal).
func readProperties(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	p := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), " "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			p[k] = int(n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return p, nil
}
