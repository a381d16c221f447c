package audio

import (
	"strings"
	"unicode/utf16"

	"github.com/gen2brain/malgo"
)

// Kind is how a microphone is attached, as far as the audio system tells.
type Kind int

// Kinds of microphone.
const (
	KindUnknown   Kind = iota
	KindBuiltIn        // on the computer's own sound chip (PCI or a platform device)
	KindUSB            // a USB microphone or headset
	KindBluetooth      // a Bluetooth headset: opening it switches the headset to its hands-free profile
	KindMonitor        // the monitor of an output (a loopback, as on the test desktop)
)

func (k Kind) String() string {
	switch k {
	case KindBuiltIn:
		return "built-in"
	case KindUSB:
		return "USB"
	case KindBluetooth:
		return "Bluetooth"
	case KindMonitor:
		return "monitor of an output"
	}
	return "unknown"
}

// rawID is the backend's own identifier inside a miniaudio device ID: the
// source name for PulseAudio (PipeWire's pulse server too) and ALSA, the
// endpoint ID string for WASAPI.
func rawID(id malgo.DeviceID, backend string) string {
	if backend == "WASAPI" {
		u := make([]uint16, 0, len(id)/2)
		for i := 0; i+1 < len(id); i += 2 {
			c := uint16(id[i]) | uint16(id[i+1])<<8
			if c == 0 {
				break
			}
			u = append(u, c)
		}
		return string(utf16.Decode(u))
	}
	b := id[:]
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// deviceKind tells a microphone's kind from its backend ID and name.
// PulseAudio names sources after their bus (bluez_input.*, alsa_input.usb-*,
// alsa_input.pci-*), which is exact; Windows endpoint IDs carry no bus, so
// there the name's own words decide ("Hands-Free", "Bluetooth", "USB"),
// and a name without them is unknown.
func deviceKind(id, name string) Kind {
	lid := strings.ToLower(id)
	switch {
	case strings.HasPrefix(lid, "bluez_"):
		return KindBluetooth
	case strings.HasSuffix(lid, ".monitor"):
		return KindMonitor
	case strings.Contains(lid, ".usb-"):
		return KindUSB
	case strings.Contains(lid, ".pci-"), strings.Contains(lid, ".platform-"):
		return KindBuiltIn
	}
	ln := strings.ToLower(name)
	switch {
	case strings.Contains(ln, "bluetooth"), strings.Contains(ln, "hands-free"), strings.Contains(ln, "handsfree"):
		return KindBluetooth
	case strings.HasPrefix(ln, "monitor of "):
		return KindMonitor
	case strings.Contains(ln, "usb"):
		return KindUSB
	}
	return KindUnknown
}
