package audio

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzDecodeWAV: any bytes either decode to a well-formed clip of finite
// samples or give one of the three kinds of error, on one line.
func FuzzDecodeWAV(f *testing.F) {
	half := pcm16Bytes(16384, -16384, 0, 32767)
	f.Add(riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half)))
	f.Add(riff(chunk("fmt ", fmtBody(3, 2, 44100, 32)), chunk("data", half)))
	f.Add(riff(chunk("fmt ", extensibleBody(1, 1, 16000, 32, 24)), chunk("data", half)))
	f.Add(riff(chunk("data", half), chunk("fmt ", fmtBody(1, 1, 8000, 8))))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, data []byte) {
		clip, err := DecodeWAV(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrNotWAV) && !errors.Is(err, ErrCorruptWAV) && !errors.Is(err, ErrUnsupportedWAV) {
				t.Fatalf("error of no known kind: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if clip.Channels < 1 || clip.Rate < 1000 || len(clip.Samples)%clip.Channels != 0 {
			t.Fatalf("clip %d Hz × %d with %d samples", clip.Rate, clip.Channels, len(clip.Samples))
		}
		for i, v := range clip.Samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d is %v", i, v)
			}
		}
	})
}
