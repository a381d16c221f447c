package assets

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"os"
	"testing"
)

func TestIcon(t *testing.T) {
	states := []State{StateIdle, StateRecording, StateTranscribing, StateError, StateLoading, StateWarning}
	tests := []struct {
		name string
		goos string
		ico  bool
	}{
		{name: "linux gets png", goos: "linux"},
		{name: "darwin gets png", goos: "darwin"},
		{name: "windows gets ico", goos: "windows", ico: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[string]State{}
			for _, s := range states {
				b := icon(tt.goos, s)
				if b == nil {
					t.Fatalf("icon(%q, %q) = nil", tt.goos, s)
				}
				if prev, dup := seen[string(b)]; dup {
					t.Errorf("states %q and %q share one icon", prev, s)
				}
				seen[string(b)] = s
				if tt.ico {
					checkICO(t, b, []int{16, 20, 24, 32, 48, 64})
					continue
				}
				checkPNG(t, b, 64)
			}
			if b := icon(tt.goos, "bogus"); b != nil {
				t.Errorf("icon(%q, bogus) = %d bytes, want nil", tt.goos, len(b))
			}
		})
	}
}

// whisperkey.ico is read from disk by windres and the installer, not embedded.
func TestAppIcon(t *testing.T) {
	b, err := os.ReadFile("whisperkey.ico")
	if err != nil {
		t.Fatal(err)
	}
	checkICO(t, b, []int{16, 20, 24, 32, 48, 64, 128, 256})
}

func TestSound(t *testing.T) {
	tests := []struct {
		name     string
		sound    string
		minMS    int
		maxMS    int
		wantNone bool
	}{
		{name: "start", sound: SoundStart, minMS: 100, maxMS: 140},
		{name: "stop", sound: SoundStop, minMS: 100, maxMS: 140},
		{name: "done", sound: SoundDone, minMS: 40, maxMS: 80},
		{name: "unknown", sound: "boom", wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Sound(tt.sound)
			if tt.wantNone {
				if b != nil {
					t.Fatalf("Sound(%q) = %d bytes, want nil", tt.sound, len(b))
				}
				return
			}
			rate, samples := parseWAV(t, b)
			if rate != 22050 {
				t.Fatalf("rate = %d, want 22050", rate)
			}
			if ms := len(samples) * 1000 / rate; ms < tt.minMS || ms > tt.maxMS {
				t.Errorf("duration = %d ms, want %d..%d", ms, tt.minMS, tt.maxMS)
			}
			var peak, maxStep int
			for i, s := range samples {
				peak = max(peak, abs(int(s)))
				if i > 0 {
					maxStep = max(maxStep, abs(int(s)-int(samples[i-1])))
				}
			}
			// Gentle: well below full scale, but audible.
			if peak > 32767/2 || peak < 32767/20 {
				t.Errorf("peak = %d, want between 1/20 and 1/2 of full scale", peak)
			}
			// Fades: the ends are silent, so starting or stopping playback does not click.
			for _, i := range []int{0, len(samples) - 1} {
				if abs(int(samples[i])) > 64 {
					t.Errorf("sample %d = %d, want ~0 (fade)", i, samples[i])
				}
			}
			// No discontinuity: a 1.4 kHz tone at this level moves at most ~peak*0.4 per sample.
			if maxStep > peak/2 {
				t.Errorf("largest step between samples = %d with peak %d: a click", maxStep, peak)
			}
		})
	}
}

func checkPNG(t *testing.T, b []byte, size int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	if got := img.Bounds(); got != image.Rect(0, 0, size, size) {
		t.Fatalf("png bounds = %v, want %dx%d", got, size, size)
	}
	// Transparent corners: the icon is a disc, not a square.
	if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
		t.Errorf("corner alpha = %d, want 0", a)
	}
	if _, _, _, a := img.At(size/2, size/2).RGBA(); a == 0 {
		t.Errorf("centre is transparent")
	}
}

func checkICO(t *testing.T, b []byte, sizes []int) {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 6 || le.Uint16(b[0:]) != 0 || le.Uint16(b[2:]) != 1 {
		t.Fatalf("not an ICONDIR")
	}
	n := int(le.Uint16(b[4:]))
	if n != len(sizes) {
		t.Fatalf("ico has %d images, want %d", n, len(sizes))
	}
	for i, want := range sizes {
		e := b[6+16*i:]
		w := int(e[0])
		if w == 0 {
			w = 256
		}
		if w != want || int(e[1]) != int(e[0]) {
			t.Errorf("entry %d is %dx%d, want %d", i, e[0], e[1], want)
		}
		size, off := le.Uint32(e[8:]), le.Uint32(e[12:])
		if int(off+size) > len(b) {
			t.Fatalf("entry %d points outside the file", i)
		}
		checkPNG(t, b[off:off+size], want)
	}
}

func parseWAV(t *testing.T, b []byte) (int, []int16) {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " {
		t.Fatalf("not a RIFF WAVE file")
	}
	if int(le.Uint32(b[4:])) != len(b)-8 {
		t.Fatalf("RIFF size %d, file %d", le.Uint32(b[4:]), len(b))
	}
	if format, ch, bits := le.Uint16(b[20:]), le.Uint16(b[22:]), le.Uint16(b[34:]); format != 1 || ch != 1 || bits != 16 {
		t.Fatalf("format %d channels %d bits %d, want PCM mono 16", format, ch, bits)
	}
	if string(b[36:40]) != "data" || int(le.Uint32(b[40:])) != len(b)-44 {
		t.Fatalf("bad data chunk")
	}
	samples := make([]int16, (len(b)-44)/2)
	for i := range samples {
		samples[i] = int16(le.Uint16(b[44+2*i:]))
	}
	return int(le.Uint32(b[24:])), samples
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
