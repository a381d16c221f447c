package audio

import (
	"testing"
	"unicode/utf16"

	"github.com/gen2brain/malgo"
)

func TestDeviceKind(t *testing.T) {
	tests := []struct {
		name, id, dev string
		want          Kind
	}{
		{"pulse bluetooth headset", "bluez_input.00_1B_66_AA_BB_CC.0", "WH-1000XM4", KindBluetooth},
		{"pulse bluetooth old name", "bluez_source.00_1B_66_AA_BB_CC.handsfree_head_unit", "Headset", KindBluetooth},
		{"pulse usb", "alsa_input.usb-Blue_Microphones_Yeti_Stereo_Microphone_REV8-00.analog-stereo", "Yeti Stereo Microphone Analog Stereo", KindUSB},
		{"pulse built-in", "alsa_input.pci-0000_00_1f.3.analog-stereo", "Built-in Audio Analog Stereo", KindBuiltIn},
		{"pulse platform", "alsa_input.platform-sof-hda-dsp.HiFi__Mic1__source", "Digital Microphone", KindBuiltIn},
		{"pulse monitor", "vmic.monitor", "Monitor of VirtualMic", KindMonitor},
		{"windows hands-free", "{0.0.1.00000000}.{6d8a0f6b-0000-4c1f-9f2a-5e0f1e7c7a11}", "Headset (WH-1000XM4 Hands-Free AG Audio)", KindBluetooth},
		{"windows usb", "{0.0.1.00000000}.{1b2c}", "Microphone (USB Audio Device)", KindUSB},
		{"windows array", "{0.0.1.00000000}.{9f}", "Microphone Array (Realtek(R) Audio)", KindUnknown},
		{"nothing known", "", "", KindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deviceKind(tt.id, tt.dev); got != tt.want {
				t.Errorf("deviceKind(%q, %q) = %v, want %v", tt.id, tt.dev, got, tt.want)
			}
		})
	}
}

func TestRawID(t *testing.T) {
	var pulse malgo.DeviceID
	copy(pulse[:], "bluez_input.00_1B.0")
	if got := rawID(pulse, "PulseAudio"); got != "bluez_input.00_1B.0" {
		t.Errorf("PulseAudio ID = %q", got)
	}
	var wasapi malgo.DeviceID
	for i, c := range utf16.Encode([]rune("{0.0.1.00000000}.{ab}")) {
		wasapi[2*i], wasapi[2*i+1] = byte(c), byte(c>>8)
	}
	if got := rawID(wasapi, "WASAPI"); got != "{0.0.1.00000000}.{ab}" {
		t.Errorf("WASAPI ID = %q", got)
	}
}
