package gpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// amdChip is what a PCI device id tells about an AMD GPU when no driver tool
// says more (always on Windows, where there is no KFD topology to read).
type amdChip struct {
	codename, arch, name string
	integrated           bool
	family               string // overrides the family derived from arch
}

// amdPCI maps AMD PCI device ids to chips. Names list the cards sharing the id.
func amdPCI(dev uint16) (amdChip, bool) {
	c := func(codename, arch, name string) amdChip {
		return amdChip{codename: codename, arch: arch, name: name}
	}
	apu := func(codename, arch, name string) amdChip {
		return amdChip{codename: codename, arch: arch, name: name, integrated: true}
	}
	chips := []struct {
		ids  []uint16
		chip amdChip
	}{
		// RDNA 1
		{[]uint16{0x731f}, c("Navi 10", "gfx1010", "Radeon RX 5600 XT / 5700 / 5700 XT")},
		{[]uint16{0x7310}, c("Navi 10", "gfx1010", "Radeon Pro W5700X")},
		{[]uint16{0x7312}, c("Navi 10", "gfx1010", "Radeon Pro W5700")},
		{[]uint16{0x7360}, c("Navi 12", "gfx1011", "Radeon Pro 5600M")},
		{[]uint16{0x7362}, c("Navi 12", "gfx1011", "Radeon Pro V520")},
		{[]uint16{0x7340}, c("Navi 14", "gfx1012", "Radeon RX 5500 / 5500 XT")},
		{[]uint16{0x7341}, c("Navi 14", "gfx1012", "Radeon Pro W5500")},
		// RDNA 2
		{[]uint16{0x73a5}, c("Navi 21", "gfx1030", "Radeon RX 6950 XT")},
		{[]uint16{0x73af, 0x73bf}, c("Navi 21", "gfx1030", "Radeon RX 6800 / 6800 XT / 6900 XT")},
		{[]uint16{0x73a3}, c("Navi 21", "gfx1030", "Radeon Pro W6800")},
		{[]uint16{0x73df}, c("Navi 22", "gfx1031", "Radeon RX 6700 / 6700 XT / 6750 XT")},
		{[]uint16{0x73ff, 0x73ef}, c("Navi 23", "gfx1032", "Radeon RX 6600 / 6600 XT / 6650 XT")},
		{[]uint16{0x73e3}, c("Navi 23", "gfx1032", "Radeon Pro W6600")},
		{[]uint16{0x743f}, c("Navi 24", "gfx1034", "Radeon RX 6400 / 6500 XT")},
		{[]uint16{0x163f}, apu("Van Gogh", "gfx1033", "Radeon Graphics (Steam Deck)")},
		{[]uint16{0x1681}, apu("Rembrandt", "gfx1035", "Radeon 680M / 660M")},
		{[]uint16{0x164e}, apu("Raphael", "gfx1036", "Radeon Graphics")},
		{[]uint16{0x1506}, apu("Mendocino", "gfx1037", "Radeon 610M")},
		// RDNA 3 and 3.5
		{[]uint16{0x744c}, c("Navi 31", "gfx1100", "Radeon RX 7900 XT / 7900 XTX / 7900 GRE")},
		{[]uint16{0x7448}, c("Navi 31", "gfx1100", "Radeon Pro W7900")},
		{[]uint16{0x745e}, c("Navi 31", "gfx1100", "Radeon Pro W7800")},
		{[]uint16{0x747e}, c("Navi 32", "gfx1101", "Radeon RX 7700 XT / 7800 XT")},
		{[]uint16{0x7480, 0x7483}, c("Navi 33", "gfx1102", "Radeon RX 7600 / 7600 XT")},
		{[]uint16{0x15bf}, apu("Phoenix", "gfx1103", "Radeon 780M / 760M")},
		{[]uint16{0x15c8}, apu("Phoenix 2", "gfx1103", "Radeon 740M")},
		{[]uint16{0x150e}, apu("Strix Point", "gfx1150", "Radeon 890M / 880M")},
		{[]uint16{0x1586}, apu("Strix Halo", "gfx1151", "Radeon 8060S / 8050S")},
		// RDNA 4
		{[]uint16{0x7550}, c("Navi 48", "gfx1201", "Radeon RX 9070 / 9070 XT")},
		{[]uint16{0x7590}, c("Navi 44", "gfx1200", "Radeon RX 9060 XT")},
		// GCN: Polaris, Fiji, Vega — not RDNA, whatever the "RX" in the name suggests
		{[]uint16{0x67df}, c("Ellesmere", "gfx803", "Radeon RX 470 / 480 / 570 / 580 / 590")},
		{[]uint16{0x6fdf}, c("Ellesmere", "gfx803", "Radeon RX 580 2048SP")},
		{[]uint16{0x67ef}, c("Baffin", "gfx803", "Radeon RX 460 / 560")},
		{[]uint16{0x699f}, c("Lexa", "gfx803", "Radeon RX 550")},
		{[]uint16{0x7300}, amdChip{codename: "Fiji", arch: "gfx803", name: "Radeon R9 Fury / Nano", family: "GCN 3"}},
		{[]uint16{0x687f}, c("Vega 10", "gfx900", "Radeon RX Vega 56 / 64")},
		{[]uint16{0x66af}, c("Vega 20", "gfx906", "Radeon VII")},
		{[]uint16{0x15dd}, apu("Raven Ridge", "gfx902", "Radeon Vega Graphics")},
		{[]uint16{0x1636, 0x1638, 0x164c, 0x15e7}, apu("Renoir", "gfx90c", "Radeon Graphics")},
	}
	for _, r := range chips {
		if slices.Contains(r.ids, dev) {
			return r.chip, true
		}
	}
	return amdChip{}, false
}

// amdFamily names the architecture generation of a gfx target.
func amdFamily(arch string) string {
	switch {
	case arch == "":
		return ""
	case strings.HasPrefix(arch, "gfx101"):
		return "RDNA 1"
	case strings.HasPrefix(arch, "gfx103"):
		return "RDNA 2"
	case strings.HasPrefix(arch, "gfx110"):
		return "RDNA 3"
	case strings.HasPrefix(arch, "gfx115"):
		return "RDNA 3.5"
	case strings.HasPrefix(arch, "gfx120"):
		return "RDNA 4"
	case arch == "gfx803":
		return "Polaris"
	case strings.HasPrefix(arch, "gfx80"):
		return "GCN 3"
	case strings.HasPrefix(arch, "gfx7"):
		return "GCN 2"
	case strings.HasPrefix(arch, "gfx6"):
		return "GCN 1"
	case arch == "gfx908":
		return "CDNA 1"
	case arch == "gfx90a":
		return "CDNA 2"
	case strings.HasPrefix(arch, "gfx94"):
		return "CDNA 3"
	case strings.HasPrefix(arch, "gfx95"):
		return "CDNA 4"
	case strings.HasPrefix(arch, "gfx9"):
		return "Vega"
	}
	return ""
}

// amdIntegratedArch reports gfx targets that exist only as APU graphics.
func amdIntegratedArch(arch string) bool {
	switch arch {
	case "gfx801", "gfx902", "gfx909", "gfx90c", "gfx1033", "gfx1035", "gfx1036", "gfx1037",
		"gfx1103", "gfx1150", "gfx1151", "gfx1152":
		return true
	}
	return false
}

// nvidiaFamily names the generation of a CUDA compute capability ("8.6" → Ampere).
func nvidiaFamily(cc string) string {
	switch cc {
	case "":
		return ""
	case "7.0", "7.2":
		return "Volta"
	case "7.5":
		return "Turing"
	case "8.9":
		return "Ada Lovelace"
	}
	switch major, _, _ := strings.Cut(cc, "."); major {
	case "3":
		return "Kepler"
	case "5":
		return "Maxwell"
	case "6":
		return "Pascal"
	case "8":
		return "Ampere"
	case "9":
		return "Hopper"
	case "10", "11", "12":
		return "Blackwell"
	}
	return ""
}

// gfxFromVersion turns KFD's gfx_target_version (decimal MMmmss) into a gfx
// name; minor and stepping print in hex, so 90012 is gfx90c.
func gfxFromVersion(v int) string {
	if v <= 0 {
		return ""
	}
	return fmt.Sprintf("gfx%d%x%x", v/10000, (v/100)%100, v%100)
}

// classify fills family, architecture and a usable name from the tables.
func classify(g *GPU) {
	switch g.Vendor {
	case AMD:
		chip, ok := amdPCI(g.PCIDevice)
		if g.Arch == "" {
			g.Arch = chip.arch
		}
		g.Codename = chip.codename
		g.Family = amdFamily(g.Arch)
		if chip.family != "" {
			g.Family = chip.family
		}
		g.Integrated = g.Integrated || chip.integrated || amdIntegratedArch(g.Arch) ||
			(!ok && g.VRAM > 0 && g.VRAM < 1<<30)
	case NVIDIA:
		g.Family = nvidiaFamily(g.ComputeCap)
	case Intel:
		// Only Arc cards carry real VRAM; everything else shares system memory.
		g.Integrated = g.VRAM < 2<<30
	}
}

// badName reports names that say nothing about the card.
func badName(n string) bool {
	return n == "" || strings.HasPrefix(n, "Microsoft Basic") || strings.HasPrefix(n, "Device ")
}

// Label is how messages name the GPU: "AMD RX 5700 XT (RDNA 1)",
// "AMD Radeon 780M Graphics (RDNA 3, integrated)", "NVIDIA GeForce RTX 3060".
func (g GPU) Label() string {
	name := g.Name
	if chip, ok := amdPCI(g.PCIDevice); badName(name) && ok && g.Vendor == AMD {
		name = "AMD " + chip.name
	} else if badName(name) {
		name = fmt.Sprintf("%s GPU 0x%04x", g.Vendor, g.PCIDevice)
	}
	for _, junk := range []string{"(TM)", "(tm)", "(R)", "(r)"} {
		name = strings.ReplaceAll(name, junk, "")
	}
	name = strings.Join(strings.Fields(name), " ")
	if g.Vendor == AMD {
		if !strings.HasPrefix(name, "AMD") {
			name = "AMD " + name
		}
		name = strings.Replace(name, "Radeon RX ", "RX ", 1)
		name = strings.TrimSuffix(name, " Series")
	}
	var notes []string
	if g.Vendor == AMD {
		f := g.Family
		if f == "" {
			f = "unknown architecture"
		}
		notes = append(notes, f)
	}
	if g.Integrated {
		notes = append(notes, "integrated")
	}
	if len(notes) == 0 {
		return name
	}
	return name + " (" + strings.Join(notes, ", ") + ")"
}

// versionAtLeast compares dotted versions numerically ("12.10" ≥ "12.4").
func versionAtLeast(have, want string) bool {
	h, w := strings.Split(have, "."), strings.Split(want, ".")
	for i := 0; i < len(w); i++ {
		var hv int
		if i < len(h) {
			hv, _ = strconv.Atoi(h[i])
		}
		wv, _ := strconv.Atoi(w[i])
		if hv != wv {
			return hv > wv
		}
	}
	return true
}
