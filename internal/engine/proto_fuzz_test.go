package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// FuzzReadFrame feeds the worker pipe's frame reader arbitrary bytes: it
// never panics or allocates past the frame limit, and whatever it accepts
// has the lengths its prefix announced.
func FuzzReadFrame(f *testing.F) {
	var ok bytes.Buffer
	if err := writeFrame(&ok, request{Op: "detect", Window: 3, NMels: 1, Frames: 2}, floatBytes([]float32{0.5, -1})); err != nil {
		f.Fatal(err)
	}
	f.Add(ok.Bytes())
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{2, 0, 0, 0, 3, 0, 0, 0, '{', '}', 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			fr, err := readFrame(r)
			if err != nil {
				return
			}
			if len(fr.header)+len(fr.payload) > maxFrame {
				t.Fatalf("accepted a frame of %d+%d bytes", len(fr.header), len(fr.payload))
			}
			want := len(fr.payload) / 4
			if len(fr.payload)%4 != 0 {
				want = 0 // not features: floats refuses it
			}
			if got := len(floats(fr.payload)); got != want {
				t.Fatalf("floats gave %d values for %d bytes", got, len(fr.payload))
			}
		}
	})
}

// A frame written by writeFrame reads back unchanged: features as the same
// float32s, a result as the same bytes.
func FuzzFrameRoundTrip(f *testing.F) {
	f.Add("generate", uint64(1), []byte{0, 0, 128, 63})
	f.Add("detect", uint64(2), []byte(`[["en",0.9]]`))
	f.Fuzz(func(t *testing.T, op string, window uint64, raw []byte) {
		var buf bytes.Buffer
		if err := writeFrame(&buf, request{Op: op, Window: window}, raw); err != nil {
			return
		}
		fr, err := readFrame(&buf)
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		if !bytes.Equal(fr.payload, raw) {
			t.Fatalf("payload %d bytes, want the %d sent", len(fr.payload), len(raw))
		}
		if len(raw)%4 != 0 {
			return
		}
		got := floats(fr.payload)
		for i := range got {
			if want := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("value %d = %v, want %v", i, got[i], want)
			}
		}
	})
}
