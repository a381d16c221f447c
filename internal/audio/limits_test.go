package audio_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
)

// Every decoder applies the WAV rule for sample rates (1 kHz to 1 MHz): a
// 66-byte FLAC or a patched Vorbis file saying 1 Hz once made the resampler
// ask for gigabytes and killed the process.
func TestDecodeRefusesAbsurdRates(t *testing.T) {
	badFLAC := audiotest.BadRateFLAC()
	cases := []struct {
		name string
		data []byte
		says string
	}{
		{"FLAC at 1 Hz (issue 27)", badFLAC, "1 Hz"},
		{"FLAC at 999 Hz", audiotest.SilentFLAC(999, 2), "999 Hz"},
		{"Vorbis at 1 Hz", audiotest.VorbisAtRate(t, 1), "1 Hz"},
		{"Vorbis at 2 MHz", audiotest.VorbisAtRate(t, 2_000_000), "2000000 Hz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := audio.DecodeNamed(bytes.NewReader(tc.data), "b.flac", audio.Limits{})
			if !errors.Is(err, audio.ErrCorruptAudio) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "1000 to 1000000") {
				t.Fatalf("err = %v; want ErrCorruptAudio naming %q and the allowed range", err, tc.says)
			}
		})
	}
}

// peakHeap is the most heap f holds at once, sampled every millisecond with
// the collector made eager, so garbage between collections stays small
// beside what f keeps.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak - min(peak, base)
}

// A small file of hours of audio is refused once decoding passes MaxAudio,
// with memory bounded by MaxAudio, not by what the file declares: before,
// a 12.9 KB FLAC of 68 minutes cost 1.2 GB and an 8-bit 1 kHz WAV 1.9 GB.
func TestDecodeStopsAtMaxAudio(t *testing.T) {
	const limit = time.Minute
	// 16 kHz mono float32 for the limit, three times over for growth and
	// the resampler, plus a fixed 16 MiB for decoder tables and buffers and
	// a collection cycle's garbage.
	bound := uint64(3*limit.Seconds()*audio.SampleRate*4) + 16<<20
	longWAV := func(rate, seconds int) []byte {
		var b bytes.Buffer
		if err := audio.EncodeWAV(&b, make([]float32, rate*seconds), rate, 1, audio.PCM16); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"FLAC, 68 minutes at 16 kHz", audiotest.SilentFLAC(16000, 68*60)},
		{"FLAC, 68 minutes at 16 kHz, length not declared", audiotest.HideLength(audiotest.SilentFLAC(16000, 68*60))},
		{"FLAC, 68 minutes at 1 kHz, length not declared", audiotest.HideLength(audiotest.SilentFLAC(1000, 68*60))},
		{"FLAC, 10 minutes at 1 MHz, length not declared", audiotest.HideLength(audiotest.SilentFLAC(1_000_000, 10*60))},
		{"WAV, 30 minutes at 1 kHz, streamed (size unknown)", streamed(longWAV(1000, 30*60))},
		{"FLAC, 68 minutes at 1 kHz", audiotest.SilentFLAC(1000, 68*60)},
		{"FLAC, 10 minutes at 1 MHz", audiotest.SilentFLAC(1_000_000, 10*60)},
		{"WAV, 30 minutes at 1 kHz", longWAV(1000, 30*60)},
		{"Matroska FLAC through ffmpeg, 68 minutes", audiotest.FFmpeg(t, "long.mka", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "4080", "-c:a", "flac")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			used := peakHeap(func() {
				_, err = audio.DecodeNamed(bytes.NewReader(tc.data), "long", audio.Limits{MaxAudio: limit, FFmpegTimeout: time.Minute})
			})
			if !errors.Is(err, audio.ErrTooLong) || !strings.Contains(err.Error(), "1m0s") {
				t.Fatalf("err = %v; want ErrTooLong naming the limit", err)
			}
			if used > bound {
				t.Fatalf("decoding %d bytes held %d MiB at peak; the bound for %s is %d MiB", len(tc.data), used>>20, limit, bound>>20)
			}
		})
	}
	// Just under the limit decodes, at its length.
	samples, err := audio.DecodeNamed(bytes.NewReader(audiotest.SilentFLAC(16000, 59)), "short", audio.Limits{MaxAudio: limit})
	if err != nil || len(samples) != 59*audio.SampleRate {
		t.Fatalf("59 s under a 1 min limit: %d samples, %v", len(samples), err)
	}
}

// What a header declares of the length is not taken at its word: only
// decoded audio counts toward MaxAudio (issue 34: a FLAC saying 2^36-1
// samples that held half a second got 413 from serve).
func TestDecodeJudgesByDecodedLength(t *testing.T) {
	half := audiotest.FFmpeg(t, "half.flac", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=0.5", "-c:a", "flac")
	var wav bytes.Buffer
	if err := audio.EncodeWAV(&wav, make([]float32, 8000), 16000, 1, audio.PCM16); err != nil {
		t.Fatal(err)
	}
	bigWAV := bytes.Clone(wav.Bytes())
	copy(bigWAV[40:44], []byte{0xfe, 0xff, 0xff, 0xff}) // 4 GiB of data declared, not a size left unknown
	cases := []struct {
		name string
		data []byte
	}{
		{"FLAC declaring 2^36-1 samples", audiotest.DeclareLength(half, 1<<36-1)},
		{"FLAC declaring 2 hours", audiotest.DeclareLength(half, 2*3600*16000)},
		{"WAV declaring 4 GiB of data", bigWAV},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := audio.DecodeNamed(bytes.NewReader(tc.data), "half", audio.Limits{MaxAudio: time.Minute})
			if err != nil || len(samples) != 8000 {
				t.Fatalf("%d samples, %v; want the 8000 it holds", len(samples), err)
			}
		})
	}
}

// ErrTooLong's message names the input and the limit, and says how to allow
// more when the caller says how (the CLI's --max-audio); ffmpeg's output is
// judged the same way.
func TestTooLongSaysHowToAllowMore(t *testing.T) {
	flac := audiotest.SilentFLAC(8000, 90)
	mka := audiotest.FFmpeg(t, "long.mka", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "90", "-c:a", "flac")
	cases := []struct {
		name  string
		data  []byte
		raise string
		want  string
	}{
		{"FLAC", flac, "", "long.x is longer than 1m0s, the most accepted; split it or allow longer audio"},
		{"FLAC, with a flag to raise it", flac, "pass a larger --max-audio", "long.x is longer than 1m0s, the most accepted; split it, or pass a larger --max-audio"},
		{"Matroska through ffmpeg", mka, "pass a larger --max-audio", "long.x is longer than 1m0s, the most accepted; split it, or pass a larger --max-audio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := audio.DecodeNamed(bytes.NewReader(tc.data), "long.x", audio.Limits{MaxAudio: time.Minute, Raise: tc.raise})
			if !errors.Is(err, audio.ErrTooLong) || err.Error() != tc.want {
				t.Fatalf("err = %v; want ErrTooLong saying %q", err, tc.want)
			}
		})
	}
}

// streamed marks a WAV's data size unknown, as a writer to a pipe does.
func streamed(wav []byte) []byte {
	wav = bytes.Clone(wav)
	copy(wav[40:44], []byte{0xff, 0xff, 0xff, 0xff})
	return wav
}

// The streaming resampler that keeps decoding memory bounded gives exactly
// what Resample gives on the whole input, however the input is cut.
func TestStreamResampleMatchesWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	in := make([]float32, 50_000)
	for i := range in {
		in[i] = rng.Float32()*2 - 1
	}
	for _, rate := range []int{8000, 11025, 22050, 44100, 48000, 44101, 1000, 1_000_000} {
		want := audio.Resample(in, rate, audio.SampleRate)
		for _, chunk := range []int{1, 333, 4096, len(in)} {
			wav := audiotest.FloatWAV(in, rate, 1)
			got, err := audio.DecodeNamed(&chunkReader{b: wav, n: chunk * 4}, "x", audio.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d Hz in chunks of %d: %d samples, want %d", rate, chunk, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%d Hz in chunks of %d: sample %d is %v, want %v", rate, chunk, i, got[i], want[i])
				}
			}
		}
	}
}

// chunkReader hands out at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[n:]
	return n, nil
}
