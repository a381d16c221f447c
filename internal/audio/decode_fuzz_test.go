package audio_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
)

// FuzzDecodeAll: whatever bytes arrive, every Go decoder (WAV, FLAC, MP3,
// Ogg Vorbis) returns finite 16 kHz samples no longer than the limit or an
// error of a known kind on one line, and allocates no more than a bound
// derived from the limit; bytes for ffmpeg are only sniffed here (one
// process per input would make fuzzing crawl), and what an error would say
// of them stays short.
func FuzzDecodeAll(f *testing.F) {
	const limit = 250 * time.Millisecond
	// TotalAlloc (all allocations, freed or not) bounds the peak from above.
	// The worst a decoder may touch before the limit stops it: the limit's
	// frames at the highest rate, 8 channels, as float32 and as the
	// decoder's own int32, plus a fixed 48 MiB for codec tables and buffers.
	bound := uint64(limit.Seconds()*audio.MaxRate)*8*4*2 + 48<<20
	bad, _ := hex.DecodeString(audiotest.BadRateFLAC)
	f.Add(bad)
	f.Add(audiotest.SilentFLAC(16000, 1))
	f.Add(audiotest.SilentFLAC(1_000_000, 2))
	var wav bytes.Buffer
	_ = audio.EncodeWAV(&wav, make([]float32, 8000), 8000, 1)
	f.Add(wav.Bytes())
	tone := []string{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=0.3", "-ac", "1"}
	f.Add(audiotest.FFmpeg(f, "tone.ogg", append(tone, "-c:a", "libvorbis")...))
	f.Add(audiotest.FFmpeg(f, "tone.mp3", append(tone, "-c:a", "libmp3lame")...))
	f.Add(audiotest.VorbisAtRate(f, 1))
	f.Add(audiotest.FFmpeg(f, "tone.mka", append(tone, "-c:a", "flac")...))
	// ID3 headers that claim 256 MiB and (not synchsafe) 512 MiB: go-mp3 once allocated that.
	f.Add([]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f"))
	f.Add([]byte("ID3\x03\x00\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if audio.Sniff(data) == audio.FormatOther {
			_, err := audio.DecodeNamed(bytes.NewReader(data), "x", audio.Limits{MaxAudio: limit, FFmpegTimeout: time.Nanosecond})
			if err == nil || len(err.Error()) > 1000 {
				t.Fatalf("ffmpeg input with no time to run: %v", err)
			}
			return
		}
		var samples []float32
		var err error
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		// No time for ffmpeg: an MP3 the Go decoder sends there is not run either.
		samples, err = audio.DecodeNamed(bytes.NewReader(data), "x", audio.Limits{MaxAudio: limit, FFmpegTimeout: time.Nanosecond})
		runtime.ReadMemStats(&after)
		if used := after.TotalAlloc - before.TotalAlloc; used > bound {
			t.Fatalf("decoding %d bytes allocated %d MiB; the bound for %s is %d MiB", len(data), used>>20, limit, bound>>20)
		}
		if err != nil {
			known := []error{audio.ErrNotWAV, audio.ErrCorruptWAV, audio.ErrUnsupportedWAV, audio.ErrCorruptAudio,
				audio.ErrUnsupportedFormat, audio.ErrTooLong}
			if !slicesContainsErr(known, err) {
				t.Fatalf("error of no known kind: %v", err)
			}
			if strings.Contains(err.Error(), "\n") || len(err.Error()) > 1000 {
				t.Fatalf("error is not one short line: %q", err)
			}
			return
		}
		if max := int(limit.Seconds()*audio.SampleRate) + 64; len(samples) > max {
			t.Fatalf("%d samples past a limit of %d", len(samples), max)
		}
		for i, v := range samples {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d is %v", i, v)
			}
		}
	})
}

func slicesContainsErr(kinds []error, err error) bool {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
