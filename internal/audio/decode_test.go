package audio

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// Decode recognises formats by content, reads WAV, and names the formats
// it cannot read yet instead of calling them broken WAV files.
func TestDecodeFormats(t *testing.T) {
	var wav bytes.Buffer
	if err := EncodeWAV(&wav, []float32{0, 0.5, -0.5, 0.25}, 8000, 1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
		kind error // nil: decodes
		says string
	}{
		{"wav", wav.Bytes(), nil, ""},
		{"flac", []byte("fLaC\x00\x00\x00\x22rest"), ErrUnsupportedFormat, "FLAC audio"},
		{"ogg", []byte("OggS\x00\x02rest-of-page"), ErrUnsupportedFormat, "Ogg audio"},
		{"mp3 with ID3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), ErrUnsupportedFormat, "MP3 audio"},
		{"mp3 frame", []byte{0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0, 0, 0, 0, 0}, ErrUnsupportedFormat, "MP3 audio"},
		{"text", []byte("hello, this is text\n"), ErrNotWAV, "not a WAV file"},
		{"empty", nil, ErrNotWAV, "empty"},
		{"wav cut in header", wav.Bytes()[:30], ErrCorruptWAV, "cut short"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clip, err := Decode(bytes.NewReader(tc.data), "upload")
			if tc.kind == nil {
				if err != nil || clip.Rate != 8000 || clip.Frames() != 4 {
					t.Fatalf("Decode: %+v, %v", clip, err)
				}
				return
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "upload ") {
				t.Fatalf("Decode: %v; want %v saying %q", err, tc.kind, tc.says)
			}
		})
	}
	samples, err := Decode16k(bytes.NewReader(wav.Bytes()), "upload")
	if err != nil || len(samples) != 8 {
		t.Fatalf("Decode16k: %d samples, %v; want 8 (4 frames at 8 kHz → 16 kHz)", len(samples), err)
	}
}
