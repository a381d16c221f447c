package audio

import (
	"testing"
	"unicode/utf16"

	"github.com/gen2brain/malgo"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestDeviceKind(t *testing.T) {
	type args struct{ id, dev string }
	tabletest.Check(t, "deviceKind", func(a args) Kind {
		return deviceKind(a.id, a.dev)
	}, []tabletest.Case[args, Kind]{
		{Name: "pulse bluetooth headset", In: args{"bluez_input.00_1B_66_AA_BB_CC.0", "WH-1000XM4"}, Want: KindBluetooth},
		{Name: "pulse bluetooth old name", In: args{"bluez_source.00_1B_66_AA_BB_CC.handsfree_head_unit", "Headset"}, Want: KindBluetooth},
		{Name: "pulse usb", In: args{"alsa_input.usb-Blue_Microphones_Yeti_Stereo_Microphone_REV8-00.analog-stereo", "Yeti Stereo Microphone Analog Stereo"}, Want: KindUSB},
		{Name: "pulse built-in", In: args{"alsa_input.pci-0000_00_1f.3.analog-stereo", "Built-in Audio Analog Stereo"}, Want: KindBuiltIn},
		{Name: "pulse platform", In: args{"alsa_input.platform-sof-hda-dsp.HiFi__Mic1__source", "Digital Microphone"}, Want: KindBuiltIn},
		{Name: "pulse monitor", In: args{"vmic.monitor", "Monitor of VirtualMic"}, Want: KindMonitor},
		{Name: "windows hands-free", In: args{"{0.0.1.00000000}.{6d8a0f6b-0000-4c1f-9f2a-5e0f1e7c7a11}", "Headset (WH-1000XM4 Hands-Free AG Audio)"}, Want: KindBluetooth},
		{Name: "windows usb", In: args{"{0.0.1.00000000}.{1b2c}", "Microphone (USB Audio Device)"}, Want: KindUSB},
		{Name: "windows array", In: args{"{0.0.1.00000000}.{9f}", "Microphone Array (Realtek(R) Audio)"}, Want: KindUnknown},
		{Name: "nothing known", In: args{"", ""}, Want: KindUnknown},
	})
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
