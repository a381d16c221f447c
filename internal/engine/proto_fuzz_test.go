package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzReadFrame feeds the worker pipe's frame reader arbitrary bytes: it
// never panics or allocates past the frame limit, and whatever it accepts
// has the lengths its prefix announced.
func FuzzReadFrame(f *testing.F) {
	var ok bytes.Buffer
	if err := writeFrame(&ok, request{Op: "detect", Window: 3, NMels: 1, Frames: 2}, []float32{0.5, -1}); err != nil {
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
			if len(fr.header)+len(fr.payload) > maxFrame || len(fr.payload)%4 != 0 {
				t.Fatalf("accepted a frame of %d+%d bytes", len(fr.header), len(fr.payload))
			}
			if got := len(floats(fr.payload)); got != len(fr.payload)/4 {
				t.Fatalf("floats gave %d values for %d bytes", got, len(fr.payload))
			}
		}
	})
}

// A frame written by writeFrame reads back unchanged.
func FuzzFrameRoundTrip(f *testing.F) {
	f.Add("generate", uint64(1), []byte{0, 0, 128, 63})
	f.Fuzz(func(t *testing.T, op string, window uint64, raw []byte) {
		feats := make([]float32, len(raw)/4)
		for i := range feats {
			feats[i] = float32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		var buf bytes.Buffer
		if err := writeFrame(&buf, request{Op: op, Window: window}, feats); err != nil {
			return
		}
		fr, err := readFrame(&buf)
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		got := floats(fr.payload)
		if len(got) != len(feats) {
			t.Fatalf("payload %d values, want %d", len(got), len(feats))
		}
		for i := range got {
			if got[i] != feats[i] {
				t.Fatalf("value %d = %v, want %v", i, got[i], feats[i])
			}
		}
	})
}
