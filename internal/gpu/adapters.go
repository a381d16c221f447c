package gpu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
)

// Adapter is one display adapter as Windows lists it (DXGI, or WMI when DXGI fails).
type Adapter struct {
	Name     string `json:"name"`
	VendorID uint16 `json:"vendor_id"`
	DeviceID uint16 `json:"device_id"`
	VRAM     uint64 `json:"vram"` // dedicated video memory in bytes
	// PCIBus is the adapter's PCI address (NormalizeBus form), from the
	// kernel-mode driver by the adapter's LUID; "" when not known.
	PCIBus   string `json:"pci_bus,omitempty"`
	Driver   string `json:"driver,omitempty"`
	Software bool   `json:"software,omitempty"` // Basic Render Driver, remote display: not a GPU
	Source   string `json:"source"`
}

func (a Adapter) gpu() GPU {
	return GPU{Vendor: vendorName(a.VendorID), Name: a.Name, PCIDevice: a.DeviceID, PCIBus: a.PCIBus, VRAM: a.VRAM, Driver: a.Driver, Source: a.Source}
}

var pnpID = regexp.MustCompile(`(?i)^PCI\\VEN_([0-9A-F]{4})&DEV_([0-9A-F]{4})`)

// ParseWMI parses `Get-CimInstance Win32_VideoController | ConvertTo-Json`
// (an object for one adapter, an array for several). AdapterRAM is a 32-bit
// field, so cards with 4 GiB or more read as about 4 GiB.
func ParseWMI(data []byte) ([]Adapter, error) {
	type controller struct {
		Name          string
		PNPDeviceID   string
		AdapterRAM    *int64
		DriverVersion string
	}
	var list []controller
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	var err error
	if data[0] == '[' {
		err = json.Unmarshal(data, &list)
	} else {
		var one controller
		err = json.Unmarshal(data, &one)
		list = append(list, one)
	}
	if err != nil {
		return nil, fmt.Errorf("parse Win32_VideoController JSON: %w", err)
	}
	var ads []Adapter
	for _, c := range list {
		a := Adapter{Name: c.Name, Driver: c.DriverVersion, Source: "wmi"}
		m := pnpID.FindStringSubmatch(c.PNPDeviceID)
		if m == nil {
			a.Software = true // ROOT\BasicRender, SWD\RemoteDisplayEnum, ...
		} else {
			v, _ := strconv.ParseUint(m[1], 16, 16)
			d, _ := strconv.ParseUint(m[2], 16, 16)
			a.VendorID, a.DeviceID = uint16(v), uint16(d)
			a.Software = a.VendorID == pciMicrosoft
		}
		if c.AdapterRAM != nil && *c.AdapterRAM > 0 {
			a.VRAM = uint64(*c.AdapterRAM)
		}
		ads = append(ads, a)
	}
	return ads, nil
}
