package audio_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
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
// derived from the limit. Both ways in are fuzzed with the same bound: an
// upload's bytes (serve) and a file on disk (transcribe, which decodes
// every file before the model loads), and they must agree. Bytes for ffmpeg
// are only sniffed here (one process per input would make fuzzing crawl),
// and what an error would say of them stays short.
func FuzzDecodeAll(f *testing.F) {
	const limit = 250 * time.Millisecond
	// TotalAlloc (all allocations, freed or not) bounds the peak from above.
	// The worst a decoder may touch before the limit stops it: the limit's
	// frames at the highest rate, 8 channels, as float32 and as the
	// decoder's own int32, plus a fixed 48 MiB for codec tables and buffers.
	bound := uint64(limit.Seconds()*audio.MaxRate)*8*4*2 + 48<<20
	// No time for ffmpeg: an MP3 the Go decoder sends there is not run either.
	lim := audio.Limits{MaxAudio: limit, FFmpegTimeout: time.Nanosecond}
	bad := audiotest.BadRateFLAC()
	f.Add(bad)
	f.Add(audiotest.SilentFLAC(16000, 1))
	f.Add(audiotest.SilentFLAC(1_000_000, 2))
	// Issue 34: hours in a few hundred bytes, declared or not, and a
	// declared length far beyond what the file holds.
	f.Add(audiotest.SilentFLAC(1000, 3600))
	f.Add(audiotest.HideLength(audiotest.SilentFLAC(1000, 3600)))
	f.Add(audiotest.DeclareLength(audiotest.SilentFLAC(16000, 1), 1<<36-1))
	var wav bytes.Buffer
	_ = audio.EncodeWAV(&wav, make([]float32, 8000), 8000, 1, audio.PCM16)
	f.Add(wav.Bytes())
	f.Add(audiotest.SevenBitWAV(make([]float32, 800), 8000))
	tone := []string{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=0.3", "-ac", "1"}
	f.Add(audiotest.FFmpeg(f, "tone.ogg", append(tone, "-c:a", "libvorbis")...))
	f.Add(audiotest.FFmpeg(f, "tone.mp3", append(tone, "-c:a", "libmp3lame")...))
	f.Add(audiotest.FFmpeg(f, "tone8k.mp3", append(tone, "-c:a", "libmp3lame", "-ar", "8000")...)) // MPEG-2.5
	f.Add(audiotest.VorbisAtRate(f, 1))
	f.Add(audiotest.VorbisAtRate(f, 1000))
	f.Add(audiotest.FFmpeg(f, "tone.mka", append(tone, "-c:a", "flac")...))
	// ID3 headers that claim 256 MiB and (not synchsafe) 512 MiB: go-mp3 once allocated that.
	f.Add([]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f"))
	f.Add([]byte("ID3\x03\x00\x00\xff\xff\xff\xff"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "input") // one input at a time per process
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		short := 1000 + 2*len(path) // a message names the input at most twice
		ways := []struct {
			name   string
			decode func() ([]float32, error)
		}{
			{"upload", func() ([]float32, error) { return audio.DecodeNamed(bytes.NewReader(data), "x", lim) }},
			{"file", func() ([]float32, error) { return audio.DecodeFile(path, lim) }},
		}
		if audio.Sniff(data) == audio.FormatOther {
			for _, way := range ways {
				if _, err := way.decode(); err == nil || len(err.Error()) > short {
					t.Fatalf("%s: ffmpeg input with no time to run: %v", way.name, err)
				}
			}
			return
		}
		var lengths [2]int
		var errs [2]error
		for i, way := range ways {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			samples, err := way.decode()
			runtime.ReadMemStats(&after)
			if used := after.TotalAlloc - before.TotalAlloc; used > bound {
				t.Fatalf("%s: decoding %d bytes allocated %d MiB; the bound for %s is %d MiB", way.name, len(data), used>>20, limit, bound>>20)
			}
			lengths[i], errs[i] = len(samples), err
			if err != nil {
				if !slicesContainsErr(knownErrs, err) {
					t.Fatalf("%s: error of no known kind: %v", way.name, err)
				}
				if strings.Contains(err.Error(), "\n") || len(err.Error()) > short {
					t.Fatalf("%s: error is not one short line: %q", way.name, err)
				}
				continue
			}
			if max := int(limit.Seconds()*audio.SampleRate) + 64; len(samples) > max {
				t.Fatalf("%s: %d samples past a limit of %d", way.name, len(samples), max)
			}
			for i, v := range samples {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: sample %d is %v", way.name, i, v)
				}
			}
		}
		if lengths[0] != lengths[1] || (errs[0] == nil) != (errs[1] == nil) || errKind(errs[0]) != errKind(errs[1]) {
			t.Fatalf("the upload gave %d samples, %v; the file %d samples, %v", lengths[0], errs[0], lengths[1], errs[1])
		}
	})
}

var knownErrs = []error{audio.ErrNotWAV, audio.ErrCorruptWAV, audio.ErrUnsupportedWAV, audio.ErrCorruptAudio,
	audio.ErrUnsupportedFormat, audio.ErrTooLong}

// errKind is the known kind err is (nil for none).
func errKind(err error) error {
	for _, k := range knownErrs {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

func slicesContainsErr(kinds []error, err error) bool {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
