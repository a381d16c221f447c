package audio

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

func requireFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		testenv.Require(t, "ffmpeg", "make deps (apt-get install ffmpeg)")
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// toneStats are the RMS level and the zero crossings per second of a clip.
func toneStats(s []float32) (rms, crossings float64) {
	var sum float64
	n := 0
	for i, v := range s {
		sum += float64(v) * float64(v)
		if i > 0 && (s[i-1] < 0) != (v < 0) {
			n++
		}
	}
	return math.Sqrt(sum / float64(len(s))), float64(n) * SampleRate / float64(len(s))
}

// TestDecodeFormats decodes one 440 Hz stereo tone written by sox and ffmpeg
// in every format and checks each comes back as the same 16 kHz mono tone.
func TestDecodeFormats(t *testing.T) {
	requireTool(t, "sox")
	requireFFmpeg(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "tone.wav")
	run(t, "sox", "-n", "-r", "44100", "-c", "2", "-b", "16", src, "synth", "2", "sine", "440", "vol", "0.5")
	files := map[string]string{"WAV": src}
	for _, f := range []struct{ name, file string }{{"FLAC", "tone.flac"}, {"Ogg Vorbis", "tone.ogg"}} {
		files[f.name] = filepath.Join(dir, f.file)
		run(t, "sox", src, files[f.name])
	}
	for _, f := range []struct{ name, file string }{
		{"MP3", "tone.mp3"}, {"Opus via ffmpeg", "tone.opus"}, {"AAC/M4A via ffmpeg", "tone.m4a"},
	} {
		files[f.name] = filepath.Join(dir, f.file)
		run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, files[f.name])
	}
	// go-mp3 garbles 22050 Hz (MPEG-2) without an error and refuses MPEG-2.5
	// (8000 to 12000 Hz, which LAME writes for low rates); ffmpeg decodes them.
	for _, rate := range []string{"8000", "11025", "16000", "22050", "24000", "48000"} {
		name := "MP3 mono " + rate + " Hz"
		files[name] = filepath.Join(dir, "tone"+rate+".mp3")
		run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, "-ac", "1", "-ar", rate, files[name])
	}
	// An MP3 named .wav: the content decides, not the name.
	files["MP3 named .wav"] = filepath.Join(dir, "really-mp3.wav")
	b, err := os.ReadFile(files["MP3"])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files["MP3 named .wav"], b, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := DecodeFile(src, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantRMS, wantZC := toneStats(want)
	for name, path := range files {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeFile(path, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			// Lossy encoders pad the start and end by up to a few frames.
			if d := math.Abs(float64(len(got)-len(want))) / float64(len(want)); d > 0.1 {
				t.Errorf("%d samples, want about %d", len(got), len(want))
			}
			if c := bestCorrelation(got, want); c < 0.95 {
				t.Errorf("waveform correlation with the WAV %.3f, want ≥ 0.95", c)
			}
			rms, zc := toneStats(got)
			if math.Abs(rms-wantRMS)/wantRMS > 0.1 || math.Abs(zc-wantZC)/wantZC > 0.05 {
				t.Errorf("RMS %.3f, %.0f crossings/s; want %.3f, %.0f", rms, zc, wantRMS, wantZC)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fromReader, err := DecodeNamed(f, "input", Limits{}) // a stream, as an upload arrives
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(float64(len(fromReader)-len(got))) > float64(len(got))/50 {
				t.Errorf("DecodeNamed(reader) gave %d samples, DecodeFile %d", len(fromReader), len(got))
			}
		})
	}
}

// An AAC .m4a whose index (the moov atom) follows the audio, as ffmpeg and
// most phones write it, needs a seekable input: from a pipe ffmpeg found no
// audio in it (issue 34). An input that can seek is copied to a temporary
// file for ffmpeg, which is removed afterwards.
func TestDecodeM4AWithIndexAtEnd(t *testing.T) {
	requireFFmpeg(t)
	requireTool(t, "sox")
	dir := t.TempDir()
	src, m4a := filepath.Join(dir, "tone.wav"), filepath.Join(dir, "tone.m4a")
	run(t, "sox", "-n", "-r", "48000", "-c", "2", src, "synth", "8", "sine", "440", "vol", "0.5")
	run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, "-c:a", "aac", "-b:a", "320k", m4a)
	data, err := os.ReadFile(m4a)
	if err != nil {
		t.Fatal(err)
	}
	// ffmpeg reads ahead 64 KiB or so from a pipe; past that it cannot go back.
	if mdat, moov := bytes.Index(data, []byte("mdat")), bytes.Index(data, []byte("moov")); mdat < 0 || moov < 128<<10 {
		t.Fatalf("the index is at %d, the audio at %d: want the index after 128 KiB of audio", moov, mdat)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	got, err := DecodeNamed(bytes.NewReader(data), "tone.m4a", Limits{MaxAudio: time.Minute, FFmpegTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d := len(got) - 8*SampleRate; d < 0 || d > SampleRate/10 {
		t.Errorf("%d samples, want 8 s (%d) and the encoder's padding", len(got), 8*SampleRate)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the temporary copy for ffmpeg is still there: %v", left)
	}
}

// bestCorrelation is the highest normalised correlation of a with b over the
// shifts lossy encoders add (up to 0.1 s).
func bestCorrelation(a, b []float32) float64 {
	best := 0.0
	for lag := 0; lag < SampleRate/10; lag += 1 {
		var s, na, nb float64
		for i := 0; i+lag < len(a) && i < len(b); i++ {
			x, y := float64(a[i+lag]), float64(b[i])
			s, na, nb = s+x*y, na+x*x, nb+y*y
		}
		if c := s / math.Sqrt(na*nb+1e-20); c > best {
			best = c
		}
	}
	return best
}

func TestSniff(t *testing.T) {
	cases := []struct {
		name string
		head []byte
		want string
	}{
		{"wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), FormatWAV},
		{"rf64", []byte("RF64\xff\xff\xff\xffWAVEds64"), FormatWAV},
		{"flac", []byte("fLaC\x00\x00\x00\x22"), FormatFLAC},
		{"ogg vorbis", append([]byte("OggS\x00\x02"), append(make([]byte, 22), "\x01vorbis"...)...), FormatVorbis},
		{"ogg opus", append([]byte("OggS\x00\x02"), append(make([]byte, 22), "OpusHead"...)...), FormatOther},
		{"id3 mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), FormatMP3},
		{"bare mp3 frame", []byte{0xFF, 0xFB, 0x90, 0x64}, FormatMP3},
		{"mpeg-2 layer III", []byte{0xFF, 0xF3, 0x48, 0xC4}, FormatMP3},
		{"aac adts is not mp3", []byte{0xFF, 0xF1, 0x50, 0x80}, FormatOther},
		{"mp2 is not mp3", []byte{0xFF, 0xFD, 0x90, 0x64}, FormatOther},
		{"text", []byte("hello there"), FormatOther},
		{"empty", nil, FormatOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sniff(tc.head); got != tc.want {
				t.Errorf("Sniff = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDecodeBadFiles: a damaged file of each format fails with one line that
// names the file and the way out.
func TestDecodeBadFiles(t *testing.T) {
	requireFFmpeg(t)
	dir := t.TempDir()
	garbage := bytes.Repeat([]byte("\x13\x37 not audio at all "), 200)
	cases := []struct {
		name, file string
		data       []byte
		kind       error
		want       string
	}{
		{"wav", "bad.wav", append([]byte("RIFF\x24\x00\x00\x00WAVE"), garbage...), ErrCorruptWAV, "bad.wav"},
		{"flac", "bad.flac", append([]byte("fLaC"), garbage...), ErrCorruptAudio, "damaged FLAC file"},
		{"mp3", "bad.mp3", append([]byte("ID3\x03\x00\x00\x00\x00\x00\x0a0123456789"), garbage...), ErrCorruptAudio, "damaged MP3 file"},
		{"mp3 tag past the end", "tag.mp3", []byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f"), ErrCorruptAudio, "ID3 tag says 268435465 bytes, but the file has 10"},
		{"mp3 tag size not synchsafe", "tag2.mp3", []byte("ID3\x03\x00\x00\xff\xff\xff\xff0123"), ErrCorruptAudio, "not a valid synchsafe number"},
		{"ogg", "bad.ogg", append(append([]byte("OggS\x00\x02"), make([]byte, 22)...), append([]byte("\x01vorbis"), garbage...)...), ErrCorruptAudio, "damaged Ogg Vorbis file"},
		{"other", "notes.m4a", []byte("these are my notes, not audio\n"), ErrUnsupportedFormat, "not audio that WhisperKey or ffmpeg can read"},
		{"empty", "empty.mp3", nil, ErrNotWAV, "empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := DecodeFile(path, Limits{})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !errors.Is(err, tc.kind) || !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.file) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q (kind %v), want one line naming %s and containing %q", msg, errors.Is(err, tc.kind), tc.file, tc.want)
			}
			t.Log(msg)
		})
	}
}

// TestDecodeWithoutFFmpeg: a format only ffmpeg reads says how to get ffmpeg.
func TestDecodeWithoutFFmpeg(t *testing.T) {
	requireFFmpeg(t)
	requireTool(t, "sox")
	dir := t.TempDir()
	src, opus := filepath.Join(dir, "tone.wav"), filepath.Join(dir, "tone.opus")
	run(t, "sox", "-n", "-r", "16000", "-c", "1", src, "synth", "1", "sine", "440")
	run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, opus)
	mp3 := filepath.Join(dir, "tone22k.mp3")
	run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, "-ar", "22050", mp3)
	mp3at8k := filepath.Join(dir, "tone8k.mp3")
	run(t, "ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, "-ar", "8000", mp3at8k)
	flacFile := filepath.Join(dir, "tone.flac")
	run(t, "sox", src, flacFile)
	t.Setenv("PATH", t.TempDir()) // no ffmpeg anywhere
	_, err := DecodeFile(opus, Limits{})
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "install it") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line saying to install ffmpeg", err)
	}
	t.Log(err)
	_, err = DecodeFile(mp3, Limits{})
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "22050 Hz") || !strings.Contains(err.Error(), "install it") {
		t.Fatalf("22050 Hz MP3 without ffmpeg: %v, want one line saying to install ffmpeg", err)
	}
	t.Log(err)
	_, err = DecodeFile(mp3at8k, Limits{})
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "MPEG version 2.5") || !strings.Contains(err.Error(), "install it") {
		t.Fatalf("8000 Hz (MPEG-2.5) MP3 without ffmpeg: %v, want one line saying to install ffmpeg", err)
	}
	t.Log(err)
	if _, err := DecodeFile(flacFile, Limits{}); err != nil { // the Go decoders need nothing on the PATH
		t.Fatalf("FLAC without ffmpeg: %v", err)
	}
}
