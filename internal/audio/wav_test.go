package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

func requireTool(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		testenv.Require(t, tool, "apt-get install "+map[string]string{"sox": "sox", "soxi": "sox", "espeak-ng": "espeak-ng", "paplay": "pulseaudio-utils", "pactl": "pulseaudio-utils"}[tool])
	}
}

func TestDecodeWAVFromSox(t *testing.T) {
	requireTool(t, "sox")
	tests := []struct {
		name     string
		args     []string // sox output format options
		rate     int
		channels int
		tol      float64 // amplitude tolerance of the decoded 1 kHz tone
	}{
		{name: "8-bit unsigned", args: []string{"-b", "8", "-e", "unsigned-integer"}, rate: 16000, channels: 1, tol: 0.02},
		{name: "16-bit", args: []string{"-b", "16", "-e", "signed-integer"}, rate: 16000, channels: 1, tol: 0.002},
		{name: "24-bit", args: []string{"-b", "24", "-e", "signed-integer"}, rate: 16000, channels: 1, tol: 0.002},
		{name: "32-bit int", args: []string{"-b", "32", "-e", "signed-integer"}, rate: 16000, channels: 1, tol: 0.002},
		{name: "32-bit float", args: []string{"-b", "32", "-e", "floating-point"}, rate: 16000, channels: 1, tol: 0.002},
		{name: "64-bit float", args: []string{"-b", "64", "-e", "floating-point"}, rate: 16000, channels: 1, tol: 0.002},
		{name: "16-bit stereo 44100", args: []string{"-b", "16", "-e", "signed-integer"}, rate: 44100, channels: 2, tol: 0.002},
		{name: "16-bit 22050", args: []string{"-b", "16", "-e", "signed-integer"}, rate: 22050, channels: 1, tol: 0.002},
		{name: "24-bit stereo 48000", args: []string{"-b", "24", "-e", "signed-integer"}, rate: 48000, channels: 2, tol: 0.002},
		{name: "16-bit 4 channels (extensible)", args: []string{"-b", "16", "-e", "signed-integer"}, rate: 16000, channels: 4, tol: 0.002},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".wav")
			args := []string{"-D", "-n", "-r", strconv.Itoa(tc.rate), "-c", strconv.Itoa(tc.channels)}
			args = append(args, tc.args...)
			args = append(args, path, "synth", "0.5", "sine", "1000", "vol", "0.5")
			if out, err := exec.Command("sox", args...).CombinedOutput(); err != nil {
				t.Fatalf("sox %v: %v\n%s", args, err, out)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			clip, err := DecodeWAV(f)
			if err != nil {
				t.Fatalf("DecodeWAV: %v", err)
			}
			if clip.Rate != tc.rate || clip.Channels != tc.channels {
				t.Fatalf("format = %d Hz × %d, want %d Hz × %d", clip.Rate, clip.Channels, tc.rate, tc.channels)
			}
			if clip.Frames() != tc.rate/2 {
				t.Fatalf("frames = %d, want %d", clip.Frames(), tc.rate/2)
			}
			for ch := range tc.channels {
				one := make([]float32, clip.Frames())
				for k := range one {
					one[k] = clip.Samples[k*tc.channels+ch]
				}
				if got := toneLevel(one, 1000, tc.rate); math.Abs(got-0.5) > tc.tol {
					t.Errorf("channel %d: tone amplitude %.4f, want 0.5±%.3f", ch, got, tc.tol)
				}
			}

			mono, err := DecodeFile(path, Limits{})
			if err != nil {
				t.Fatalf("DecodeFile: %v", err)
			}
			if len(mono) != SampleRate/2 {
				t.Fatalf("DecodeFile: %d samples, want %d", len(mono), SampleRate/2)
			}
			if got := toneLevel(mono, 1000, SampleRate); math.Abs(20*math.Log10(got/0.5)) > 0.5 {
				t.Errorf("DecodeFile: tone amplitude %.4f, want 0.5 within 0.5 dB", got)
			}
		})
	}
}

// chunk builds one RIFF chunk, padded to an even size.
func chunk(id string, body []byte) []byte {
	b := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

func riff(chunks ...[]byte) []byte {
	body := []byte("WAVE")
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

func fmtBody(code, channels, rate, bits int) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(code))
	b = binary.LittleEndian.AppendUint16(b, uint16(channels))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*channels*bits/8))
	b = binary.LittleEndian.AppendUint16(b, uint16(channels*bits/8))
	return binary.LittleEndian.AppendUint16(b, uint16(bits))
}

func extensibleBody(sub, channels, rate, bits, valid int) []byte {
	b := fmtBody(0xFFFE, channels, rate, bits)
	b = binary.LittleEndian.AppendUint16(b, 22)
	b = binary.LittleEndian.AppendUint16(b, uint16(valid))
	b = binary.LittleEndian.AppendUint32(b, 0x3) // front left + right
	b = binary.LittleEndian.AppendUint16(b, uint16(sub))
	return append(b, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71)
}

func pcm16Bytes(v ...int16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, uint16(x))
	}
	return b
}

func TestDecodeWAVHandMade(t *testing.T) {
	half := pcm16Bytes(16384, -16384, 0, 32767)
	want := []float32{0.5, -0.5, 0, 32767.0 / 32768}
	int24in32 := []byte{0, 0, 0, 0x40, 0, 0, 0, 0xC0} // 24 valid bits, left-justified: 0.5, -0.5
	// 12 valid bits left-justified in 16-bit containers, as the WAVE spec says.
	fmt12in16 := fmtBody(1, 1, 16000, 16)
	binary.LittleEndian.PutUint16(fmt12in16[14:], 12)
	// 7 valid bits in 8-bit containers; fmtBody's block align, 7/8 of a byte, is 0.
	fmt7 := fmtBody(1, 1, 16000, 7)
	binary.LittleEndian.PutUint16(fmt7[12:], 1)
	stereo16Align3 := fmtBody(1, 2, 16000, 16)
	binary.LittleEndian.PutUint16(stereo16Align3[12:], 3)
	nan32 := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.25)), math.Float32bits(float32(math.NaN())))
	inf64 := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.Inf(-1)))
	tests := []struct {
		name     string
		data     []byte
		want     []float32
		channels int
		wantErr  error
		errHas   string
	}{
		{name: "plain", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half)), want: want, channels: 1},
		{name: "extensible PCM stereo", data: riff(chunk("fmt ", extensibleBody(1, 2, 16000, 16, 16)), chunk("data", half)), want: want, channels: 2},
		{name: "extensible 24 valid bits in 32", data: riff(chunk("fmt ", extensibleBody(1, 1, 16000, 32, 24)), chunk("data", int24in32)), want: []float32{0.5, -0.5}, channels: 1},
		{name: "LIST chunk before data", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("LIST", []byte("INFOISFT\x05\x00\x00\x00sox!\x00\x00")), chunk("data", half)), want: want, channels: 1},
		{name: "odd chunk padding", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("junk", []byte{1, 2, 3}), chunk("fact", []byte{4, 0, 0, 0}), chunk("data", half)), want: want, channels: 1},
		{name: "fmt with cbSize", data: riff(chunk("fmt ", append(fmtBody(1, 1, 16000, 16), 0, 0)), chunk("data", half)), want: want, channels: 1},
		{name: "data before fmt", data: riff(chunk("data", half), chunk("fmt ", fmtBody(1, 1, 16000, 16))), want: want, channels: 1},
		{name: "chunks after data ignored", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half), chunk("LIST", []byte("xx"))), want: want, channels: 1},
		{name: "truncated data keeps whole frames", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half))[:44+5], want: want[:2], channels: 1},
		{name: "unknown data size reads to end", data: func() []byte {
			b := riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half))
			binary.LittleEndian.PutUint32(b[40:], 0xFFFFFFFF)
			return b
		}(), want: want, channels: 1},
		{name: "12-bit PCM in 16-bit containers", data: riff(chunk("fmt ", fmt12in16), chunk("data", pcm16Bytes(16384, -16384))), want: []float32{0.5, -0.5}, channels: 1},
		{name: "12-bit PCM with frames too small to hold it", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 12)), chunk("data", half)), wantErr: ErrCorruptWAV, errHas: "12-bit samples in 1-byte frames"},
		{name: "7-bit PCM in bytes", data: riff(chunk("fmt ", fmt7), chunk("data", []byte{0xC0, 0x40})), want: []float32{0.5, -0.5}, channels: 1},
		// Issue 34: block align 0 was guessed from the bits, and serve answered 200 "".
		{name: "7-bit PCM, block align 0", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 7)), chunk("data", []byte{0xC0, 0x40})), wantErr: ErrCorruptWAV, errHas: "block align (bytes per frame) of 0 for 7-bit samples in 1 channel(s), where 1 belongs"},
		{name: "stereo block align of 3 bytes", data: riff(chunk("fmt ", stereo16Align3), chunk("data", half)), wantErr: ErrCorruptWAV, errHas: "block align (bytes per frame) of 3"},
		{name: "NaN float samples", data: riff(chunk("fmt ", fmtBody(3, 1, 16000, 32)), chunk("data", nan32)), wantErr: ErrCorruptWAV, errHas: "not a number"},
		{name: "infinite float64 samples", data: riff(chunk("fmt ", fmtBody(3, 1, 16000, 64)), chunk("data", inf64)), wantErr: ErrCorruptWAV, errHas: "infinite"},
		{name: "empty data chunk", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", nil)), want: []float32{}, channels: 1},
		{name: "header only", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", half))[:44], wantErr: ErrCorruptWAV, errHas: "cut short"},
		{name: "no data chunk", data: riff(chunk("fmt ", fmtBody(1, 1, 16000, 16))), wantErr: ErrCorruptWAV, errHas: "no data chunk"},
		{name: "no fmt chunk", data: riff(chunk("LIST", []byte("ab"))), wantErr: ErrCorruptWAV, errHas: "no fmt chunk"},
		{name: "A-law", data: riff(chunk("fmt ", fmtBody(6, 1, 8000, 8)), chunk("data", half)), wantErr: ErrUnsupportedWAV, errHas: "A-law"},
		{name: "MP3 in WAV", data: riff(chunk("fmt ", fmtBody(0x55, 1, 8000, 0)), chunk("data", half)), wantErr: ErrUnsupportedWAV, errHas: "0x0055"},
		{name: "16-bit float", data: riff(chunk("fmt ", fmtBody(3, 1, 8000, 16)), chunk("data", half)), wantErr: ErrUnsupportedWAV, errHas: "16-bit float"},
		{name: "zero channels", data: riff(chunk("fmt ", fmtBody(1, 0, 8000, 16)), chunk("data", half)), wantErr: ErrCorruptWAV, errHas: "0 channels"},
		{name: "text file", data: []byte("hello, this is not audio\n"), wantErr: ErrNotWAV, errHas: `starts with "hello, this `},
		{name: "mp3 file", data: []byte("ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00"), wantErr: ErrNotWAV, errHas: "looks like MP3"},
		{name: "tiny file", data: []byte("RIFF"), wantErr: ErrNotWAV, errHas: "only 4 bytes"},
		{name: "empty file", data: nil, wantErr: ErrNotWAV, errHas: "is empty (0 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clip, err := DecodeWAV(bytes.NewReader(tc.data))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.wantErr, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeWAV: %v", err)
			}
			if clip.Channels != tc.channels || clip.Rate != 16000 {
				t.Fatalf("format = %d Hz × %d, want 16000 Hz × %d", clip.Rate, clip.Channels, tc.channels)
			}
			if len(clip.Samples) != len(tc.want) {
				t.Fatalf("samples = %v, want %v", clip.Samples, tc.want)
			}
			for i := range tc.want {
				if math.Abs(float64(clip.Samples[i]-tc.want[i])) > 1e-6 {
					t.Fatalf("samples = %v, want %v", clip.Samples, tc.want)
				}
			}
		})
	}
}

// A broken WAV file fails with one whole message that names it; the
// ffmpeg-dependent cases are in TestDecodeBadFiles.
func TestDecodeFileWAVErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		wantErr error
		want    string // the whole message, so it stays one clear line
	}{
		{name: "empty file", path: write("empty.wav", nil), wantErr: ErrNotWAV, want: "DIR/empty.wav is empty (0 bytes)"},
		{name: "header only", path: write("hdr.wav", riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)))), wantErr: ErrCorruptWAV,
			want: "DIR/hdr.wav has a WAV header but no audio (no data chunk); re-export or re-record it"},
		{name: "no frames", path: write("zero.wav", riff(chunk("fmt ", fmtBody(1, 1, 16000, 16)), chunk("data", nil))), wantErr: ErrCorruptAudio,
			want: "DIR/zero.wav holds no audio (a WAV file without samples)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeFile(tc.path, Limits{})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got := strings.ReplaceAll(err.Error(), dir, "DIR"); got != tc.want {
				t.Fatalf("message:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := DecodeFile(filepath.Join(dir, "missing.wav"), Limits{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want os.ErrNotExist", err)
	}
}

func TestEncodeWAVRoundTrip(t *testing.T) {
	in := []float32{0, 0.25, -0.25, 0.999, -1, 1.5, -1.5, 0.1}
	tests := []struct {
		name     string
		encode   func(*bytes.Buffer) error
		channels int
		tol      float64
		want     []float32
	}{
		{name: "16-bit mono", encode: func(b *bytes.Buffer) error { return EncodeWAV(b, in, 16000, 1, PCM16) }, channels: 1, tol: 1.0 / 32768,
			want: []float32{0, 0.25, -0.25, 0.999, -1, 32767.0 / 32768, -1, 0.1}},
		{name: "16-bit stereo", encode: func(b *bytes.Buffer) error { return EncodeWAV(b, in, 16000, 2, PCM16) }, channels: 2, tol: 1.0 / 32768,
			want: []float32{0, 0.25, -0.25, 0.999, -1, 32767.0 / 32768, -1, 0.1}},
		{name: "float", encode: func(b *bytes.Buffer) error { _, err := b.Write(audiotest.FloatWAV(in, 16000, 1)); return err }, channels: 1, tol: 0, want: in},
		// What the remote engine sends: every sample exactly, the server hears what the app heard.
		{name: "Float32", encode: func(b *bytes.Buffer) error { return EncodeWAV(b, in, 16000, 1, Float32) }, channels: 1, tol: 0, want: in},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.encode(&buf); err != nil {
				t.Fatal(err)
			}
			clip, err := DecodeWAV(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if clip.Rate != 16000 || clip.Channels != tc.channels || len(clip.Samples) != len(tc.want) {
				t.Fatalf("got %d Hz × %d, %d samples", clip.Rate, clip.Channels, len(clip.Samples))
			}
			for i, w := range tc.want {
				if math.Abs(float64(clip.Samples[i]-w)) > tc.tol {
					t.Fatalf("sample %d = %v, want %v", i, clip.Samples[i], w)
				}
			}
			// sox must agree that the file is well formed.
			if _, err := exec.LookPath("soxi"); err == nil {
				p := filepath.Join(t.TempDir(), "x.wav")
				if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command("soxi", "-s", p).CombinedOutput()
				if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(len(in)/tc.channels) {
					t.Fatalf("soxi -s: %v %s", err, out)
				}
			}
		})
	}
	if err := EncodeWAV(&bytes.Buffer{}, in[:3], 16000, 2, PCM16); err == nil {
		t.Fatal("EncodeWAV accepted 3 samples as stereo frames")
	}
}
